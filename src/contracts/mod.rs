//! Every type that crosses stdin/stdout or lands on disk (DESIGN.md §3), in one place.
//!
//! Reading is tolerant: unknown fields are ignored and every seed's shape is accepted and
//! converted to the canonical one. Writing is strict: fixed field order, no `null` noise.
//! `bob schema NAME` prints the JSON Schema of each type listed in [`SCHEMAS`].

mod chat;
mod event;
mod job;
mod memory;
mod state;
mod tool;

pub use chat::*;
pub use event::*;
pub use job::*;
pub use memory::*;
pub use state::*;
pub use tool::*;

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
];

/// Looks up a published schema by name.
pub fn schema(name: &str) -> Option<schemars::Schema> {
    SCHEMAS.iter().find(|(n, _)| *n == name).map(|(_, f)| f())
}
