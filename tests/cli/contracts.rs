//! Seed examples through the binary: every example a bob command accepts as input goes through
//! that command, and every "also accepted" state / patch shape of docs/design.md#contracts ends up in the
//! canonical form. (Examples of the other contract types are checked by the unit tests in
//! src/contracts/mod.rs, over the same fixtures.)

use crate::TestEnv;
use serde_json::{Value, json};

fn fixture(name: &str) -> String {
    let p = crate::env::repo_root()
        .join("tests/fixtures/seed_examples")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn fixture_json(name: &str) -> Value {
    serde_json::from_str(&fixture(name)).unwrap()
}

fn in_markers(payload: &str) -> String {
    format!("Okay, noted.\n<<<NOTES_JSON>>>\n{payload}\n<<<END_NOTES_JSON>>>\nAnything else?")
}

#[test]
fn seed_000_notes_payload_applies_bare_and_inside_markers() {
    let payload = fixture("000_s2_notes_patch.json");
    for (session, input) in [("bare", payload.clone()), ("text", in_markers(&payload))] {
        let env = TestEnv::new();
        let r = env.json(&["notes", "apply", "--session", session], &input);
        assert_eq!(
            r["applied"],
            json!([
                "set_goals",
                "add_open_loops",
                "close_open_loops",
                "add_decisions",
                "add_constraints",
                "set_episode_summary",
                "add_memory_tags",
                "actions"
            ]),
            "{session}"
        );
        assert_eq!(r["ignored_keys"], json!([]));
        assert_eq!(r["errors"], json!([]));
        assert_eq!(r["requested"], json!(["net:huggingface.co"]));
        assert_eq!(r["condense"], "condense_now");
        let s = &env.json(&["state", "show", "--session", session], "")["state"];
        assert_eq!(s["goals"], json!(["..."]));
        // add then close of the same loop within one patch: closed.
        assert_eq!(s["open_loops"], json!([]));
        assert_eq!(s["decisions"], json!(["..."]));
        assert_eq!(s["episode_summary"], "...");
        assert_eq!(s["capabilities_pending"], json!(["net:huggingface.co"]));
        assert_eq!(s["capabilities_granted"], json!([]));
    }
}

#[test]
fn seed_000_notes_payload_extracts_to_the_canonical_patch() {
    let env = TestEnv::new();
    let payload = fixture("000_s2_notes_patch.json");
    let x = env.json(&["notes", "extract"], &in_markers(&payload));
    assert_eq!(x["patch"], fixture_json("000_s2_notes_patch.json"));
    assert_eq!(x["visible_text"], "Okay, noted.\n\nAnything else?");
}

#[test]
fn seed_004_note_frames_convert_to_a_patch() {
    let frames = fixture("004_note_frames.json");
    let env = TestEnv::new();
    let x = env.json(&["notes", "extract"], &in_markers(&frames));
    assert_eq!(
        x["patch"],
        json!({
            "add_open_loops": ["which ESC rating?", "price the motors"],
            "add_decisions": ["use a 4-in-1 ESC"],
            "add_constraints": ["the frame is a Diatone Roma F35"]
        })
    );
    // Bare, and wrapped as a JSON I/O Thinking output {plan, notes, save_plan}.
    let wrapped = format!(r#"{{"plan":[],"notes":{frames},"save_plan":null}}"#);
    for input in [frames.clone(), wrapped] {
        let env = TestEnv::new();
        env.json(&["notes", "apply", "--session", "s"], &input);
        let s = &env.json(&["state", "show", "--session", "s"], "")["state"];
        assert_eq!(
            s["open_loops"],
            json!(["which ESC rating?", "price the motors"])
        );
        assert_eq!(s["decisions"], json!(["use a 4-in-1 ESC"]));
        assert_eq!(s["constraints"], json!(["the frame is a Diatone Roma F35"]));
    }
}

#[test]
fn seed_000_state_and_checkpoint_are_accepted_by_state_set() {
    // Capabilities change only through `bob caps`: with the same ones granted and requested,
    // the seed's state is accepted as it is.
    let env = TestEnv::new();
    let state = fixture_json("000_s1_1_state.json");
    env.json(
        &["caps", "grant", "--session", "s1", "net:huggingface.co"],
        "",
    );
    env.json(&["caps", "request", "--session", "s1", "net"], "");
    let cp = env.json(
        &["state", "set", "--session", "s1"],
        &fixture("000_s1_1_state.json"),
    );
    assert_eq!(cp["state"], state, "a canonical state is stored as given");

    // A seed checkpoint carries its revision (3) as the expected revision.
    let env = TestEnv::new();
    let input = fixture_json("000_s1_2_checkpoint.json");
    env.json(&["caps", "grant", "--session", "s1", "net"], "");
    env.json(&["state", "set", "--session", "s1"], "{}");
    env.fails(
        &["state", "set", "--session", "s1"],
        &fixture("000_s1_2_checkpoint.json"),
        5,
        "conflict",
    );
    env.json(&["state", "set", "--session", "s1"], "{}");
    let cp = env.json(
        &["state", "set", "--session", "s1"],
        &fixture("000_s1_2_checkpoint.json"),
    );
    assert_eq!(cp["state"], input["state"]);
    assert_eq!(cp["recent_messages"], input["recent_messages"]);
    assert_eq!(cp["revision"], 4, "the stored revision + 1");
    // `state show` output is itself valid `state set` input (round trip).
    let shown = env
        .bob(&["state", "show", "--session", "s1"])
        .output()
        .unwrap();
    let again = env.json(
        &["state", "set", "--session", "s1"],
        std::str::from_utf8(&shown.stdout).unwrap(),
    );
    assert_eq!(again["state"], input["state"]);
    assert_eq!(again["revision"], 5);
}

#[test]
fn seed_001_state_json_converts_to_the_canonical_state() {
    let env = TestEnv::new();
    let cp = env.json(
        &["state", "set", "--session", "s1"],
        &fixture("001_state_json.json"),
    );
    assert_eq!(
        cp["state"]["episode_summary"],
        "debugging the MTG engine's stack"
    );
    assert_eq!(
        cp["state"]["open_loops"],
        json!(["fix stack resolution order", "add journal viewer"])
    );
    assert!(cp["state"].get("active_context").is_none());
    assert!(cp["state"].get("open_threads").is_none());
    // Inside a checkpoint too.
    let wrapped = format!(r#"{{"state":{}}}"#, fixture("001_state_json.json"));
    let cp = env.json(&["state", "set", "--session", "s1"], &wrapped);
    assert_eq!(cp["state"]["open_loops"].as_array().unwrap().len(), 2);
}

#[test]
fn published_schemas_cover_the_spine_contracts() {
    let env = TestEnv::new();
    let patch = env.json(&["schema", "notes-patch"], "");
    let props = patch["properties"].as_object().unwrap();
    for key in fixture_json("000_s2_notes_patch.json")
        .as_object()
        .unwrap()
        .keys()
    {
        assert!(props.contains_key(key), "notes-patch schema lacks {key}");
    }
    let state = env.json(&["schema", "state"], "");
    for key in fixture_json("000_s1_1_state.json")
        .as_object()
        .unwrap()
        .keys()
    {
        assert!(
            state["properties"].as_object().unwrap().contains_key(key),
            "state schema lacks {key}"
        );
    }
}
