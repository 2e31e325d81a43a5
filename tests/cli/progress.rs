//! Progress you can see (issue 12 item 13): long commands draw a bar on stderr when it is a
//! terminal and never otherwise; a command waiting on a terminal stdin says what it expects.
//!
//! The terminal side runs bob with a pseudo-terminal (posix_openpt) as stderr (and stdin), the
//! way a person's shell would, and reads what bob drew from the master side.

use crate::TestEnv;
use serde_json::{Value, json};
use std::process::Command;

/// A JSON Lines file of `n` memory records.
fn records(env: &TestEnv, n: usize) -> std::path::PathBuf {
    let mut text = String::new();
    for i in 0..n {
        text.push_str(
            &json!({"title": format!("note {i}"), "created_at": "2026-02-01T00:00:00Z",
                    "body_md": format!("body of note {i} with some words"), "tags": ["bulk"]})
            .to_string(),
        );
        text.push('\n');
    }
    env.write("bulk.jsonl", &text)
}

const SELFPLAY: [&str; 8] = [
    "mtg",
    "selfplay",
    "--games",
    "300",
    "--deck",
    "gruul-40",
    "--deck",
    "izzet-burn-60",
];

/// Bytes a progress bar or a terminal note would leave: carriage returns, escape sequences,
/// or the bars' own labels.
fn has_drawing(stderr: &[u8]) -> bool {
    let s = String::from_utf8_lossy(stderr);
    stderr.contains(&b'\r')
        || stderr.contains(&0x1b)
        || ["importing", "checking", "games", "Ctrl-D"]
            .iter()
            .any(|w| s.contains(w))
}

#[test]
fn no_bar_and_no_note_when_stderr_is_not_a_terminal() {
    let env = TestEnv::new();
    let file = records(&env, 3000);
    let out = env
        .bob(&["memory", "import", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rep: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rep["imported"], 3000);

    let out = env.bob(&SELFPLAY).output().unwrap();
    assert!(out.status.success());
    assert!(
        !has_drawing(&out.stderr),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["games"], 300);

    // stdin is a pipe here: no note about it.
    let out = env
        .bob(&["state", "set", "--session", "s1"])
        .write_stdin(r#"{"goals":["g"]}"#)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `cmd` with the pty as stderr (and as stdin when `typed` is given: those bytes are
/// typed on it); returns (exit success, stdout, everything drawn on the terminal).
fn on_terminal(cmd: Command, typed: Option<&[u8]>) -> Option<(bool, Vec<u8>, Vec<u8>)> {
    let on = crate::support::pty::On {
        stdout: false,
        stderr: true,
    };
    let Some(d) = crate::support::pty::run(cmd, on, typed) else {
        eprintln!("no pseudo-terminal on this machine: terminal side not tested");
        return None;
    };
    Some((d.code == Some(0), d.stdout, d.terminal))
}

#[test]
fn a_bar_is_drawn_when_stderr_is_a_terminal() {
    let env = TestEnv::new();
    let file = records(&env, 3000);
    let Some((ok, stdout, drawn)) = on_terminal(
        env.std_command(&["memory", "import", file.to_str().unwrap()]),
        None,
    ) else {
        return;
    };
    assert!(ok, "{}", String::from_utf8_lossy(&drawn));
    let text = String::from_utf8_lossy(&drawn);
    assert!(
        text.contains("checking") || text.contains("importing"),
        "no bar drawn: {text:?}"
    );
    // stdout is data only, bar or no bar.
    let rep: Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(rep["imported"], 3000);

    let Some((ok, stdout, drawn)) = on_terminal(env.std_command(&SELFPLAY), None) else {
        return;
    };
    assert!(ok);
    assert!(
        String::from_utf8_lossy(&drawn).contains("games"),
        "{drawn:?}"
    );
    assert_eq!(
        serde_json::from_slice::<Value>(&stdout).unwrap()["games"],
        300
    );

    // --json turns bars off even on a terminal.
    let mut args = SELFPLAY.to_vec();
    args.push("--json");
    let Some((ok, _, drawn)) = on_terminal(env.std_command(&args), None) else {
        return;
    };
    assert!(ok);
    assert!(!has_drawing(&drawn), "{}", String::from_utf8_lossy(&drawn));
}

#[test]
fn the_import_bar_counts_records_not_bytes() {
    let env = TestEnv::new();
    let file = records(&env, 3);
    let Some((ok, stdout, drawn)) = on_terminal(
        env.std_command(&["memory", "import", file.to_str().unwrap()]),
        None,
    ) else {
        return;
    };
    assert!(ok, "{}", String::from_utf8_lossy(&drawn));
    let text = String::from_utf8_lossy(&drawn);
    // Three records: the bar ends at 3/3 (a byte count would be in the hundreds).
    assert!(
        text.contains("importing") && text.contains("3/3"),
        "{text:?}"
    );
    let rep: Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(rep["imported"], 3);
}

#[test]
fn a_command_waiting_on_a_terminal_stdin_says_what_it_expects() {
    let env = TestEnv::new();
    // The person types a State, then Ctrl-D on an empty line (end of input).
    let Some((ok, stdout, drawn)) = on_terminal(
        env.std_command(&["state", "set", "--session", "s1"]),
        Some(b"{\"goals\":[\"typed\"]}\n\x04"),
    ) else {
        return;
    };
    let text = String::from_utf8_lossy(&drawn);
    assert!(ok, "{text}");
    assert!(
        text.contains("bob: reading a State or Checkpoint JSON on stdin (Ctrl-D to end)"),
        "{text:?}"
    );
    let cp: Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(cp["state"]["goals"], json!(["typed"]));
}

#[test]
fn mtg_play_with_a_human_seat_says_what_it_waits_for_once() {
    let env = TestEnv::new();
    env.bob(&[
        "mtg",
        "new",
        "--game",
        "g1",
        "--deck",
        "gruul-40",
        "--deck",
        "izzet-burn-60",
    ])
    .assert()
    .success();
    // The person reads the first decision, then ends the input (Ctrl-D on an empty line).
    let Some((ok, stdout, drawn)) = on_terminal(
        env.std_command(&[
            "mtg", "play", "--game", "g1", "--p1", "human", "--p2", "human",
        ]),
        Some(b"\x04"),
    ) else {
        return;
    };
    let text = String::from_utf8_lossy(&drawn);
    assert!(ok, "{text}");
    assert_eq!(
        text.matches("bob: reading one action JSON line {decision_id, type, …} per decision")
            .count(),
        1,
        "{text:?}"
    );
    // stdout: the decision shown, then the summary (no decision taken).
    let lines: Vec<Value> = String::from_utf8_lossy(&stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines[0]["decision"]["decision_id"].is_string(), "{lines:?}");
    assert_eq!(lines.last().unwrap()["decisions_taken"], 0, "{lines:?}");

    // A piped stdin gets no note.
    let out = env
        .bob(&[
            "mtg", "play", "--game", "g1", "--p1", "human", "--p2", "human",
        ])
        .write_stdin("")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        !has_drawing(&out.stderr),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn each_stdin_reading_command_names_what_it_reads() {
    let env = TestEnv::new();
    let cards = [
        (
            &["mtg", "cards", "import", "-"][..],
            "bob: reading a Scryfall card file JSON",
        ),
        (&["mtg", "act", "--game", "none"][..], ""),
        (
            &["memory", "stm", "add"][..],
            "bob: reading a short-term entry JSON",
        ),
        (
            &["memory", "propose"][..],
            "bob: reading assistant text with MEMORY_CANDIDATES_JSON",
        ),
    ];
    for (args, expected) in cards {
        let Some((_, _, drawn)) = on_terminal(env.std_command(args), Some(b"\x04")) else {
            return;
        };
        let text = String::from_utf8_lossy(&drawn);
        if expected.is_empty() {
            // A game that does not exist is refused before stdin is read: no note.
            assert!(!text.contains("bob: reading"), "{args:?}: {text:?}");
        } else {
            assert!(text.contains(expected), "{args:?}: {text:?}");
        }
    }
}
