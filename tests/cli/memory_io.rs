//! `bob memory import` and `export` as the memory library does them: the source is read once
//! (a named pipe imports), the import cap refuses an over-size source with nothing written,
//! and `export --output` replaces its file atomically, readable by its owner only.

use crate::TestEnv;
use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt;

/// `n` memory records as JSON Lines.
fn records(n: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        text.push_str(
            &json!({"title": format!("note {i}"), "created_at": "2026-02-01T00:00:00Z",
                    "body_md": format!("body of note {i}"), "tags": ["io"]})
            .to_string(),
        );
        text.push('\n');
    }
    text
}

fn ledger_lines(env: &TestEnv) -> Vec<Value> {
    std::fs::read_to_string(env.home().join("memory_approvals.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn stored(env: &TestEnv) -> usize {
    env.jsonl(&["memory", "list", "--limit", "100000"], "")
        .len()
}

#[test]
fn a_file_of_n_records_imports_n_in_one_ledger_batch() {
    let env = TestEnv::new();
    let file = env.write("many.jsonl", &records(1234));
    let rep = env.json(&["memory", "import", file.to_str().unwrap()], "");
    assert_eq!(
        (rep["count"].as_u64(), rep["imported"].as_u64()),
        (Some(1234), Some(1234))
    );
    assert_eq!(stored(&env), 1234);
    let ledger = ledger_lines(&env);
    assert_eq!(ledger.len(), 1, "{ledger:?}");
    assert_eq!(ledger[0]["kind"], "import");
    assert_eq!(ledger[0]["count"], 1234);
    // Over 1000 records the batch is covered by its digest, not listed.
    assert!(ledger[0]["records"].as_array().is_none_or(Vec::is_empty));
}

#[test]
fn a_named_pipe_is_read_once_and_imports_every_record() {
    let env = TestEnv::new();
    let fifo = env.path("stream.jsonl");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path this test owns; the result is checked.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let text = records(50);
    let writer = {
        let fifo = fifo.clone();
        // Opening a pipe for writing waits for its reader: bob.
        std::thread::spawn(move || std::fs::write(fifo, text).unwrap())
    };
    let rep = env.json(&["memory", "import", fifo.to_str().unwrap()], "");
    writer.join().unwrap();
    // A second pass over a pipe would find it empty: every record came from the one read.
    assert_eq!(
        (rep["count"].as_u64(), rep["imported"].as_u64()),
        (Some(50), Some(50))
    );
    assert_eq!(stored(&env), 50);
}

#[test]
fn a_source_over_the_import_cap_is_refused_and_nothing_is_written() {
    let text = records(40);
    let size = text.len() as u64;
    let refused = |env: &TestEnv, path: &std::path::Path, cap: u64| {
        let out = env
            .bob(&["memory", "import", path.to_str().unwrap()])
            .env("BOB_MEMORY_IMPORT_MAX_BYTES", cap.to_string())
            .output()
            .unwrap();
        let e = crate::env::error_of(&out, 2, "invalid.request");
        assert_eq!(e["details"]["limit_bytes"], cap, "{e}");
        let msg = e["message"].as_str().unwrap();
        assert!(
            msg.contains(&cap.to_string()) && msg.contains("import cap"),
            "{msg}"
        );
        assert!(
            ledger_lines(env).is_empty(),
            "a ledger record for a refused import"
        );
        assert_eq!(stored(env), 0);
    };

    // One byte over: refused before anything is read.
    let env = TestEnv::new();
    let file = env.write("big.jsonl", &text);
    refused(&env, &file, size - 1);
    // Exactly the cap: imported.
    let out = env
        .bob(&["memory", "import", file.to_str().unwrap()])
        .env("BOB_MEMORY_IMPORT_MAX_BYTES", size.to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stored(&env), 40);

    // Files under the cap each, over it together.
    let env = TestEnv::new();
    env.write("dir/a.jsonl", &text);
    env.write("dir/b.md", "# Extra\n\nsome words\n");
    refused(&env, &env.path("dir"), size + 5);

    // A stream whose size is not known up front is cut off as it is read: nothing is kept,
    // though the records before the cap were good.
    let env = TestEnv::new();
    let fifo = env.path("stream.jsonl");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path this test owns; the result is checked.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let writer = {
        let (fifo, text) = (fifo.clone(), text.clone());
        std::thread::spawn(move || {
            // bob stops reading at the cap; the rest may find the pipe closed.
            let _ = std::fs::write(fifo, text);
        })
    };
    refused(&env, &fifo, size / 2);
    writer.join().unwrap();
}

#[test]
fn export_output_replaces_the_file_atomically_readable_by_its_owner_only() {
    let env = TestEnv::new();
    let file = env.write("in.jsonl", &records(30));
    env.json(&["memory", "import", file.to_str().unwrap()], "");
    let stdout = env.bob(&["memory", "export"]).output().unwrap();
    assert!(stdout.status.success());
    assert_eq!(stdout.stdout.iter().filter(|b| **b == b'\n').count(), 30);

    // An existing world-readable file is replaced by an owner-only one with the same lines.
    let target = env.write("out/memory.jsonl", "old contents\n");
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = env
        .bob(&["memory", "export", "--output", target.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read(&target).unwrap(), stdout.stdout);
    let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "mode {mode:o}");
    // No temporary file is left beside it.
    let names: Vec<_> = std::fs::read_dir(env.path("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("memory.jsonl")]);

    // A missing directory is created; a directory in the way is an error and is left alone.
    let nested = env.path("new/dir/export.jsonl");
    let out = env
        .bob(&["memory", "export", "--output", nested.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&nested).unwrap(), stdout.stdout);
    std::fs::create_dir_all(env.path("taken")).unwrap();
    let out = env
        .bob(&[
            "memory",
            "export",
            "--output",
            env.path("taken").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(env.path("taken").is_dir());
}
