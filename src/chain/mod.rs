//! Keyed hash-chained logs (the approval ledger and the audit log) and the manifest that
//! anchors them (docs/design.md#conventions; the key lives in `keys/`, docs/design.md#home-layout).
//!
//! # Records
//!
//! Every record carries `key_id` (the fingerprint of the key it was written under), `seq` (its
//! 0-based position), `prev` (the previous record's `hash`, 64 zeros for the first) and `hash`
//! = **HMAC-SHA256** under the home's chain key of the record serialized without its `hash`
//! field. Editing, deleting, inserting or reordering a line
//! breaks the chain at that line, and nobody without the key can recompute a chain that
//! verifies: a chain rebuilt "from scratch" with plain SHA-256 (or with another key) fails at
//! its first record.
//!
//! # The key
//!
//! 32 random bytes from the OS, mode 0600, kept out of every log, never printed (`Keyring`'s
//! `Debug` shows only the key id). Its file ([`key_path`], installed per process by the
//! settings): `BOB_KEY_FILE`, else systemd's `$CREDENTIALS_DIRECTORY/bob-chain.key` when that
//! file exists, else `keys.file` of `config.toml`, else `<home>/keys/chain.key` (in a 0700
//! `keys/`). Outside the home, a process that can write the home cannot read it.
//!
//! The key id (fingerprint) is the first 16 hex digits of the key's SHA-256: one-way, and
//! recorded in the manifest, in every record and in every anchor statement.
//!
//! **A key is never made where one is needed.** Only a brand-new home (no manifest, no chained
//! record) gets a new key, on its first chained append (never on a read such as `bob ledger
//! verify`), created atomically (a temp file hard-linked into place, so two processes racing
//! to create it end up with one key). A missing key with a manifest or chained records, or a
//! key other than the one the manifest names, is `conflict` for every writer and a failure for
//! verify, until a human runs `bob ledger rekey` ([`rekey`]). A lost key therefore can never
//! become a new key that silently adopts whatever the logs hold (issue 23, T1).
//!
//! # Key epochs
//!
//! [`rekey`] starts a new epoch: the manifest's `epochs` lists every earlier key (`retired`:
//! kept as `keys/retired/<key_id>.key`, or `missing`: lost before the rekey), and every log is
//! adopted as it stands (its last record becomes its head, `keyed_from` the next seq, and
//! `prefix_sha256` the digest of the adopted bytes). Records before `keyed_from` are checked
//! with the key they name when bob holds it (current or retired), as plain SHA-256 links when
//! they are legacy, and by their links and the prefix digest only when their epoch's key is
//! missing (`unverifiable`). A retired key may sit in the home: the prefix it signed is frozen
//! by the keyed records and manifest after it, so it can no longer forge anything that
//! verifies. Records no key can check (legacy, unverifiable) fail verification unless the
//! verifier is told to accept them ([`Verifier::allow_legacy`]).
//!
//! On the shared store (`database.url`), the database's chains have key epochs of their own
//! ([`pg`]): `bob ledger rekey` there adds a key, sealed in the database with the secrets key
//! every node shares, and an epoch record at the end of every chain; every appender checks the
//! epoch under its chain's lock, and verification follows the chain across its epochs. The
//! home's files and its manifest are not touched by it.
//!
//! # Anchor statements
//!
//! [`anchor_statement`] signs the manifest's heads, generation, epoch, key id and a timestamp
//! under the chain key (with a label of its own, so a statement and a manifest never stand for
//! each other). Kept outside the home, it lets [`Verifier::with_anchor`] find a log that is
//! behind or diverges from it: a whole-home rollback (logs, manifest and key together), which
//! nothing inside the home can reveal.

//! # The manifest
//!
//! `keys/manifest.json` lists every chained log of the home (path relative to the home, or
//! absolute for a log outside it) with its head `{seq, hash}` and `keyed_from` (the first seq
//! hashed with the key; see "Legacy" below). The whole document carries an HMAC (`mac`) and a
//! `generation` counter. Every append takes the log's lock, then the manifest's lock
//! (`keys/manifest.json.lock`; always in that order), checks the log's end and writes the
//! records; it fdatasyncs them, then replaces the manifest atomically with the new head under
//! the manifest's lock. For a log the manifest lists already, both locks are let go before
//! the fdatasync, so concurrent appends (serve's workers share one audit log) do not queue
//! behind each other's syncs, and the anchoring is skipped when a later append anchored a
//! later head meanwhile (its fdatasync covered these records). So `bob ledger verify` also detects
//!
//! * the tail of a log deleted together with its `.head` side file (the manifest still
//!   anchors the old head);
//! * a whole day file of the audit log deleted (it is still listed);
//! * a log that is not listed (written without the key);
//! * an edited or deleted manifest (its MAC fails, or it is missing while the key exists).
//!
//! A crash between the log's fdatasync and the manifest's rename leaves records past the
//! anchored head; they verify with the key (nobody else could have written them), are
//! reported as `unanchored`, and the next append re-anchors them. Appending to a log whose
//! manifest check fails (shorter than its anchor, last record not keyed, manifest missing or
//! forged) is refused with `conflict`: bob does not write on top of a tampered log.
//!
//! # Durability of an append
//!
//! The records are fdatasynced before the manifest is replaced, and the new manifest's temp
//! file is fsynced before its rename. The `keys/` directory is fsynced after the rename only
//! when the log is listed for the first time. For a log already listed, a power loss that
//! loses the rename (or the renames of the last few appends) brings back an older manifest,
//! MAC intact, that anchors the log at an older head: exactly the crash case above
//! (unanchored records that verify, re-anchored by the next append). The cost of skipping
//! that fsync (two per `bob turn`) is that `generation` can step back by the appends whose
//! renames were lost, which an external copy of it taken in the seconds before the power loss
//! would report as a rollback; the logs themselves lose nothing.
//!
//! Limits: the manifest is one file per home, rewritten on every append (its size grows with
//! the number of day files). Someone who can write the home can still *roll back* the home
//! as a whole to an older consistent state (old logs and the old manifest together), or
//! delete `keys/` together with every log; an anchor statement kept elsewhere detects both.
//! With the key in the home, they can also read it and re-sign everything: keep it outside.
//!
//! # Legacy (unkeyed) logs
//!
//! Logs written before keys existed are chained with plain SHA-256 (no `key_id`) and anchored
//! by a `<log>.head` side file. A home holding them and no key refuses writers like any home
//! whose key is missing; `bob ledger rekey` adopts them (their last record becomes the head,
//! later records are keyed: `integrity: "mixed"`), and rewriting the adopted prefix is then
//! detected. Verified without a key they are `integrity: "legacy"`, and their records fail
//! unless accepted ([`Verifier::allow_legacy`]), with a warning that a chain recomputed from
//! scratch cannot be told apart, never a silent pass. New records are never written unkeyed,
//! and `.head` is no longer written (the manifest replaces it).

mod anchor;
mod append;
mod keyring;
mod manifest;
pub mod pg;
mod rekey;
mod report;
mod verify;

pub use anchor::{Anchor, Head, anchor_statement, anchor_statement_with, read_anchor};
pub use append::{append, append_batch, check_appendable, link, repair_torn_tail, tail};
pub use keyring::{Keyring, install_key_file, key_path};
pub use manifest::{Entry, Epoch, GENESIS, KEYS_DIR, Manifest, RECORD_KEY_FIELD, discover};
pub use rekey::{Rekeyed, rekey};
pub use report::{ChainReport, EpochRecords};
pub use verify::{Verifier, verify_records};
