//! Shared test fixtures: local servers on 127.0.0.1.

pub mod domain;
pub mod http;
pub mod openai;
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
