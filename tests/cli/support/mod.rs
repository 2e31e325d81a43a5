//! Shared test fixtures: local servers on 127.0.0.1, and the small helpers every test module
//! would otherwise copy (a recursive file walk, a directory copy, the error-code extractor).

pub mod domain;
pub mod http;
pub mod model;
pub mod openai;
pub mod pg;
pub mod pty;
pub mod webdriver;

/// Every file under `dir`, recursively, in directory order (none when `dir` does not exist).
pub fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Copies the tree under `from` to `to` (created), files byte for byte.
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

/// The canonical error code of a result object (`{"error": {"code": …}}`); empty when it has none.
pub fn code(v: &serde_json::Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

/// Writes session `session`'s checkpoint (revision 1) with `caps` granted, as a human would have.
pub fn write_caps(env: &crate::TestEnv, session: &str, caps: &[&str]) {
    let cp = serde_json::json!({"session_id": session, "revision": 1, "updated_ts": 0.0,
        "state": {"capabilities_granted": caps}, "recent_messages": []});
    env.write(
        &format!("home/sessions/{session}/checkpoint.json"),
        &cp.to_string(),
    );
}
