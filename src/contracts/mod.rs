//! Every type that crosses stdin/stdout or lands on disk (docs/design.md#contracts), in one place.
//!
//! Reading is tolerant: unknown fields are ignored and every seed's shape is accepted and
//! converted to the canonical one. Writing is strict: fixed field order, no `null` noise.
//! `bob schema NAME` prints the JSON Schema of each type listed in [`all_schemas`].

pub mod audit;
mod chat;
mod event;
pub mod http;
mod job;
mod memory;
mod report;
mod run;
mod serve;
mod state;
mod tool;
pub mod trace;
mod turn;

pub use chat::*;
pub use event::*;
pub use job::*;
pub use memory::*;
pub use report::*;
pub use run::*;
pub use serve::*;
pub use state::*;
pub use tool::*;
pub use turn::*;

pub use crate::error::Error as ErrorShape;

/// Builds one published JSON Schema.
pub type SchemaFn = fn() -> schemars::Schema;

/// (name, generator) for every published schema, in `bob schema --list` order.
pub const SCHEMAS: &[(&str, SchemaFn)] = &[
    ("state", || schemars::schema_for!(State)),
    ("checkpoint", || schemars::schema_for!(Checkpoint)),
    ("chat-message", || schemars::schema_for!(ChatMessage)),
    ("notes-patch", || schemars::schema_for!(NotesPatch)),
    ("tool-request", || schemars::schema_for!(ToolRequest)),
    ("tool-response", || schemars::schema_for!(ToolResponse)),
    ("tool-message", || schemars::schema_for!(ToolMessage)),
    ("error", || schemars::schema_for!(crate::error::Error)),
    ("trace-event", || schemars::schema_for!(TraceEvent)),
    ("audit-event", || schemars::schema_for!(AuditEvent)),
    ("memory-candidate", || {
        schemars::schema_for!(MemoryCandidate)
    }),
    ("memory-record", || schemars::schema_for!(MemoryRecord)),
    ("job", || schemars::schema_for!(Job)),
    ("jobs-file", || schemars::schema_for!(JobsFile)),
    ("job-run", || schemars::schema_for!(JobRun)),
    ("tick-report", || schemars::schema_for!(TickReport)),
    ("stm-entry", || schemars::schema_for!(StmEntry)),
    ("memory-candidate-row", || {
        schemars::schema_for!(CandidateRow)
    }),
    ("memory-hit", || schemars::schema_for!(Hit)),
    ("ledger-entry", || schemars::schema_for!(LedgerEntry)),
    ("memory-promotion", || schemars::schema_for!(Promotion)),
    ("memory-gc-report", || schemars::schema_for!(MemoryGcReport)),
    ("stm-gc-report", || schemars::schema_for!(StmGcReport)),
    ("turn-record", || schemars::schema_for!(TurnRecord)),
    ("turn-request", || schemars::schema_for!(TurnRequest)),
    ("trace-notes-patch-rejected", || {
        schemars::schema_for!(NotesPatchRejected)
    }),
    ("run-summary", || schemars::schema_for!(RunSummary)),
    ("run-bundle", || schemars::schema_for!(RunBundle)),
    ("tool-result-line", || schemars::schema_for!(ToolResultLine)),
    ("config-show", || schemars::schema_for!(ConfigShow)),
    ("config-paths", || schemars::schema_for!(ConfigPaths)),
    ("config-set", || schemars::schema_for!(ConfigSet)),
    ("config-unset", || schemars::schema_for!(ConfigUnset)),
    ("trace-appended", || schemars::schema_for!(TraceAppended)),
    ("tool-schema", || schemars::schema_for!(ToolSchema)),
    ("serve-ready", || schemars::schema_for!(ServeReady)),
    ("token-created", || schemars::schema_for!(TokenCreated)),
    ("token-listed", || schemars::schema_for!(TokenListed)),
    ("token-revoked", || schemars::schema_for!(TokenRevoked)),
    ("scheduler-status", || {
        schemars::schema_for!(SchedulerStatus)
    }),
    ("scheduler-paused", || {
        schemars::schema_for!(SchedulerPaused)
    }),
    ("init-report", || schemars::schema_for!(InitReport)),
    ("sanitize-neutralized", || {
        schemars::schema_for!(Neutralized)
    }),
    ("keys-exported", || schemars::schema_for!(KeysExported)),
    ("secret-stored", || schemars::schema_for!(SecretStored)),
    ("secret-removed", || schemars::schema_for!(SecretRemoved)),
    ("ledger-repaired", || schemars::schema_for!(TailRepaired)),
    ("tool-listed", || schemars::schema_for!(ToolListed)),
];

/// Looks up a published schema by name.
pub fn schema(name: &str) -> Option<schemars::Schema> {
    all_schemas().find(|(n, _)| *n == name).map(|(_, f)| f())
}

/// Every published schema: [`SCHEMAS`], then the turn's trace kinds ([`trace::TRACE_SCHEMAS`]),
/// the audit payloads ([`audit::AUDIT_SCHEMAS`]) and the answers of `bob serve`
/// ([`http::ANSWER_SCHEMAS`]).
pub fn all_schemas() -> impl Iterator<Item = &'static (&'static str, SchemaFn)> {
    SCHEMAS
        .iter()
        .chain(trace::TRACE_SCHEMAS)
        .chain(audit::AUDIT_SCHEMAS)
        .chain(http::ANSWER_SCHEMAS)
}

#[cfg(test)]
mod tests {
    //! Every seed example with a contract type (tests/fixtures/seed_examples/) parses into
    //! that type, and what bob writes back parses to the same value.

    use super::*;
    use serde::Serialize;
    use serde::de::DeserializeOwned;
    use serde_json::Value;

    macro_rules! fixture {
        ($name:literal) => {
            (
                $name,
                include_str!(concat!("../../tests/fixtures/seed_examples/", $name)),
            )
        };
    }

    fn parses<T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug>(
        (name, text): (&str, &str),
    ) -> T {
        let v: T = serde_json::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let again: T = serde_json::from_value(serde_json::to_value(&v).unwrap())
            .unwrap_or_else(|e| panic!("{name} does not round-trip: {e}"));
        assert_eq!(v, again, "{name} round trip");
        v
    }

    /// Canonical examples are written back exactly as the seed writes them.
    fn canonical<T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug>(
        fixture: (&str, &str),
    ) -> T {
        let v: T = parses(fixture);
        let original: Value = serde_json::from_str(fixture.1).unwrap();
        assert_eq!(serde_json::to_value(&v).unwrap(), original, "{}", fixture.0);
        v
    }

    #[derive(Debug, PartialEq, Serialize, serde::Deserialize)]
    struct Wrapped {
        error: crate::error::Error,
    }

    #[test]
    fn seed_000_examples() {
        let p: NotesPatch = canonical(fixture!("000_s2_notes_patch.json"));
        assert_eq!(p.actions.unwrap().len(), 3);
        let s: State = canonical(fixture!("000_s1_1_state.json"));
        assert_eq!(s.capabilities_granted, ["net:huggingface.co"]);
        let c: Checkpoint = canonical(fixture!("000_s1_2_checkpoint.json"));
        assert_eq!(c.recent_messages[3].role, Role::Tool);
        let m: ChatMessage = canonical(fixture!("000_s1_3_chat_message.json"));
        assert_eq!(m.role, Role::User);
        let t: ToolMessage = canonical(fixture!("000_s3_tool_message.json"));
        assert!(t.ok);
        let e: TraceEvent = canonical(fixture!("000_s6_trace_event.json"));
        assert!(TRACE_KINDS.contains(&e.kind.as_str()));
    }

    #[test]
    fn seed_001_examples_convert_to_canonical() {
        let s: State = parses(fixture!("001_state_json.json"));
        assert_eq!(s.episode_summary, "debugging the MTG engine's stack");
        assert_eq!(s.open_loops.len(), 2);
        let c: MemoryCandidate = canonical(fixture!("001_memory_candidate.json"));
        assert_eq!(c.kind, "preference");
    }

    #[test]
    fn seed_003_examples() {
        let r: ToolRequest = canonical(fixture!("003_s1_1_tool_request.json"));
        assert_eq!(r.timeout_ms, DEFAULT_TIMEOUT_MS);
        let r: ToolResponse = parses(fixture!("003_s1_2_tool_response.json"));
        assert!(r.ok && r.error.is_none());
        let e: crate::error::Error = canonical(fixture!("003_s1_3_error.json"));
        assert_eq!(e.code, crate::error::Code::PolicyDenied);
        let a: AuditEvent = canonical(fixture!("003_s3_audit_event.json"));
        assert_eq!(a.seq, 7);
        let j: Job = canonical(fixture!("003_s4_job.json"));
        assert_eq!(j.agent_id, "agent_default");
        for f in [
            fixture!("003_s5_queue_full_error.json"),
            fixture!("003_s5_rate_limited_error.json"),
            fixture!("003_s5_http_error.json"),
        ] {
            let w: Wrapped = parses(f);
            assert!(!w.error.message.is_empty());
        }
    }

    #[test]
    fn seed_004_examples_convert_to_canonical() {
        let f: NoteFrames = canonical(fixture!("004_note_frames.json"));
        let p = f.into_patch();
        assert_eq!(p.add_decisions.unwrap(), ["use a 4-in-1 ESC"]);
        assert_eq!(
            p.add_open_loops.unwrap(),
            ["which ESC rating?", "price the motors"]
        );
        for f in [
            fixture!("004_suggest_memory_save.json"),
            fixture!("004_save_memory_intent_payload.json"),
        ] {
            let c: MemoryCandidate = parses(f);
            assert!(c.title.is_some() && !c.text.is_empty());
        }
        let r: MemoryRecord = parses(fixture!("004_memory_record.json"));
        assert_eq!(r.token_est, 345);
    }
}
