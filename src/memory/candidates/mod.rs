//! Candidates, human decisions and the approval ledger.
//!
//! A decision (approve / edit / reject) runs under the ledger's lock file
//! (`memory_approvals.jsonl.lock`): the candidate must still be `pending` (otherwise
//! `conflict`), the decision is appended to the keyed, hash-chained ledger FIRST
//! ([`crate::chain`]), and only then applied to the database in one transaction that also
//! marks the ledger `seq` as seen (`ledger_seen`). The same holds for `gc` and `import`
//! records.
//!
//! Every decision is also a human act in the audit log (`memory.decision`, actor `human`,
//! the decider's name as `by`, its ledger `seq`): the audit log is checked for appending
//! before the ledger record and the event is written after the decision is applied.
//!
//! Crash recovery: whatever instant a kill lands, the ledger is the truth. Every
//! [`Memory::open`] (and every decision, under the lock, before it looks at the candidate)
//! compares the ledger's last whole record (read from the log itself, never from a side file
//! that a crash may have left behind) with what `ledger_seen` holds; if any seq is missing,
//! every unseen record is replayed in order. A replayed decision on a candidate that is still
//! pending is applied; one on a candidate the database already shows decided, or whose
//! digest does not match the candidate (impossible unless the files were edited), is marked
//! seen and not applied. Every decision seen is also recorded per candidate
//! (`ledger_decided`, same transaction), so once the ledger holds a decision for a
//! candidate, applied or not, a second decision is `conflict`: a candidate is never decided
//! twice. An `import` record whose batch never reached the database cannot be
//! replayed (the ledger lists ids and digests, not bodies): it is marked seen, unapplied, and
//! running the same import again completes it (records already stored are left as they are).

mod batch;
mod decide;
mod extract;
mod propose;
mod replay;

pub(crate) use batch::ImportBatch;
pub use batch::{ImportReport, batch_digest, gc_entry};
pub use decide::{Decided, Decision};
pub use extract::{
    BLOCK_CLOSE, BLOCK_OPEN, Extracted, MAX_PER_PROPOSAL, MAX_PER_THINK, MAX_TEXT_BYTES,
    candidate_digest, canonicalize, extract_candidates, validate,
};
