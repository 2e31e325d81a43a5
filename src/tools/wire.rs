//! Tool names on the wire of native tool calling.
//!
//! OpenAI's Chat Completions API (and the servers that copy it) accepts a function name only if
//! it matches `^[a-zA-Z0-9_-]{1,64}$`, so `fs.read_text` is refused with HTTP 400. bob keeps its
//! dotted names everywhere (registry, records, audit, traces, history) and translates only at
//! the edge, in the request it sends ([`to_wire`]: `tools[].function.name` and every
//! `messages[].tool_calls[].function.name`) and in the `tool_calls` it reads back
//! ([`WireNames::original`], streamed or not: the deltas are folded before the names are read).
//!
//! **The scheme** (deterministic, no state):
//!
//! * a *plain* name (one or more runs of `[A-Za-z0-9_]` joined by single dots, at most 64
//!   characters) has each `.` replaced by `-`: `fs.read_text` → `fs-read_text`. Plain names
//!   contain no `-`, so this is reversible, and its results never start with `-` nor contain
//!   `--`;
//! * any other name is `--` followed by the lowercase hex of its UTF-8 bytes when that fits in
//!   64 characters (names of up to 31 bytes), else `--h` followed by 16 hex digits of the
//!   SHA-256 of the name. Both start with `--`, which no plain name's wire form does, so the two
//!   forms never collide.
//!
//! Reading a name back: the wire form of a tool offered in this request wins (that is how a
//! hashed name is resolved), then the inverse of the two reversible rules; a name that is none
//! of those (a model that answered with the dotted name itself, or made one up) is kept as it
//! is, so the registry refuses it as an unknown tool.

use serde_json::Value;
use std::collections::BTreeMap;

/// Longest function name OpenAI accepts.
pub const MAX_WIRE_LEN: usize = 64;

/// True when OpenAI would accept `name` as a function name.
pub fn is_valid(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_WIRE_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn is_plain(name: &str) -> bool {
    name.len() <= MAX_WIRE_LEN
        && name.split('.').all(|seg| {
            !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        })
}

/// The wire form of bob tool name `name` (see the module docs).
pub fn wire_name(name: &str) -> String {
    if is_plain(name) {
        return name.replace('.', "-");
    }
    let hexed = hex::encode(name.as_bytes());
    if hexed.len() + 2 <= MAX_WIRE_LEN {
        return format!("--{hexed}");
    }
    use sha2::Digest;
    let digest = sha2::Sha256::digest(name.as_bytes());
    format!("--h{}", &hex::encode(digest)[..16])
}

/// The reverse mapping for the tools offered in one request.
#[derive(Debug, Clone, Default)]
pub struct WireNames {
    from_wire: BTreeMap<String, String>,
}

impl WireNames {
    /// The mapping of the tools offered (their bob names).
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> WireNames {
        WireNames {
            from_wire: names
                .into_iter()
                .map(|n| (wire_name(n), n.to_string()))
                .collect(),
        }
    }

    /// The mapping of the tools named in a request's `tools` array (the bob names).
    pub fn of_tools(tools: Option<&Value>) -> WireNames {
        let names: Vec<&str> = tools
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|t| t.pointer("/function/name").and_then(Value::as_str))
            .collect();
        WireNames::new(names)
    }

    /// The bob name of a name read from the wire.
    pub fn original(&self, wire: &str) -> String {
        if let Some(n) = self.from_wire.get(wire) {
            return n.clone();
        }
        if let Some(h) = wire.strip_prefix("--")
            && let Ok(bytes) = hex::decode(h)
            && let Ok(s) = String::from_utf8(bytes)
        {
            return s;
        }
        if !wire.starts_with('-') && !wire.contains("--") && !wire.contains('.') {
            let dotted = wire.replace('-', ".");
            if is_plain(&dotted) {
                return dotted;
            }
        }
        wire.to_string()
    }
}

/// The registry tool whose wire form `name` is (`fs-read_text` → `fs.read_text`), when `name`
/// is not itself a tool name or alias.
///
/// bob's own call formats (an Openclawssy envelope's `tool`, a Spectator item's `tool`, the JSON I/O contracts
/// `action`, `bob tool enable`) take bob's names only: a wire name there is refused as
/// `tool.not_found`, and the error names the tool meant ([`not_found`]). Only an OpenAI-shaped
/// call (`{"function": {"name": …}}`), the one place wire names legitimately appear, is read
/// back through [`WireNames::original`]. One spelling per format keeps the audit log, the
/// records and the policy checks on one name.
pub fn meant(name: &str) -> Option<&'static str> {
    if super::registry::resolve(name).is_some() {
        return None;
    }
    let decoded = WireNames::default().original(name);
    if decoded == name {
        return None;
    }
    super::registry::resolve(&decoded).map(|t| t.name)
}

/// The `tool.not_found` error for `name`; `what` ends the message. A wire name of a registry
/// tool gets the bob name in the message and in `details.bob_name`.
pub fn not_found(name: &str, what: &str) -> crate::error::Error {
    use crate::error::{Code, Error};
    match meant(name) {
        Some(bob) => Error::new(
            Code::ToolNotFound,
            format!(
                "no tool named {name:?}: that is the OpenAI wire form of {bob:?}, accepted only \
                 as an OpenAI function call's name; call it {bob:?}; {what}"
            ),
        )
        .with("tool", name.to_string())
        .with("bob_name", bob),
        None => Error::new(
            Code::ToolNotFound,
            format!("no tool named {name:?}; {what}"),
        )
        .with("tool", name.to_string()),
    }
}

/// Rewrites the tool names of a request body's `tools` and of the `tool_calls` of its messages
/// to their wire form (bob names in, OpenAI-valid names out).
pub fn to_wire(tools: Option<&mut Value>, messages: &mut [crate::contracts::ChatMessage]) {
    fn rename(v: &mut Value) {
        if let Some(Value::String(n)) = v.pointer_mut("/function/name") {
            *n = wire_name(n);
        }
    }
    if let Some(Value::Array(a)) = tools {
        a.iter_mut().for_each(rename);
    }
    for m in messages {
        if let Some(Value::Array(a)) = m.tool_calls.as_mut() {
            a.iter_mut().for_each(rename);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn registry_names_map_to_readable_valid_names() {
        assert_eq!(wire_name("fs.read_text"), "fs-read_text");
        assert_eq!(wire_name("run_command"), "run_command");
        let mut seen = std::collections::BTreeSet::new();
        let all: Vec<&str> = crate::tools::registry().iter().map(|t| t.name).collect();
        let names = WireNames::new(all.iter().copied());
        for n in all {
            let w = wire_name(n);
            assert!(is_valid(&w), "{n} → {w}");
            assert!(seen.insert(w.clone()), "collision on {w}");
            assert_eq!(names.original(&w), n);
            assert_eq!(WireNames::default().original(&w), n);
        }
    }

    #[test]
    fn odd_names_are_hex_or_hashed_and_still_reversible_in_a_request() {
        let long = "a.".repeat(40) + "z";
        for n in ["my-tool", "a..b", ".x", "é.tool", "x y", long.as_str()] {
            let w = wire_name(n);
            assert!(is_valid(&w), "{n:?} → {w}");
            assert_eq!(WireNames::new([n]).original(&w), n);
        }
        // A name the model made up stays as it is (the registry refuses it).
        assert_eq!(WireNames::default().original("ghost.tool"), "ghost.tool");
    }

    #[test]
    fn a_wire_name_in_bobs_own_formats_is_refused_naming_the_tool_meant() {
        assert_eq!(meant("fs-read_text"), Some("fs.read_text"));
        assert_eq!(meant("fs.read_text"), None);
        assert_eq!(
            meant("run_command"),
            None,
            "a name without dots is its own wire form"
        );
        assert_eq!(meant("ghost-tool"), None);
        let e = not_found("fs-read_text", "it was not executed");
        assert_eq!(e.code, crate::error::Code::ToolNotFound);
        assert!(e.message.contains("\"fs.read_text\""), "{}", e.message);
    }

    proptest! {
        #[test]
        fn wire_names_are_valid_and_injective(a in "\\PC{0,80}", b in "\\PC{0,80}") {
            let (wa, wb) = (wire_name(&a), wire_name(&b));
            prop_assert!(a.is_empty() || is_valid(&wa), "{a:?} → {wa}");
            if a != b && !wa.starts_with("--h") {
                prop_assert_ne!(&wa, &wb);
            }
            prop_assert_eq!(WireNames::new([a.as_str(), b.as_str()]).original(&wa), a);
        }
    }
}
