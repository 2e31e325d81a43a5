//! The audit log (the audit event contract): `audit/<agent_id>/YYYY-MM-DD.jsonl`, append-only,
//! hash-chained under the home's key by [`crate::chain::append_batch`], secrets redacted
//! before the write.
//!
//! One [`Audit`] belongs to one run. Its file is chosen once, from the date at
//! [`Audit::open`], so every event of a run lands in one file even when the run crosses
//! midnight; `seq` (the chain position in that file) is therefore strictly increasing per run.
//!
//! Events are written at once by [`Audit::event`]. [`Audit::queue`] collects events and
//! [`Audit::flush`] writes them with one lock and one fdatasync (the tool runner does this
//! for runs of read-only calls, flushes before anything mutating executes, and releases no
//! result before the flush that makes its events durable). Queued events are flushed when
//! the `Audit` is dropped, as a last resort.
//!
//! The agent and run ids name the log and sit in every record: they follow the id rule of
//! [`crate::ids`] and an id the home's redactor would change is refused when the log is opened,
//! never written. `human` and `system` are reserved actors ([`crate::ids::RESERVED_ACTORS`]):
//! no agent is given either as its id at an entry point, so `audit/human/` holds human acts
//! only.
//!
//! Human acts (a capability granted or revoked, a tool enabled, a state set by hand, a
//! memory decision, a TURBOTIME toggle, a staged call confirmed) are recorded with
//! [`human_act`]: one event with `actor: "human"` in the log of agent [`HUMAN_AGENT`]
//! (`audit/human/YYYY-MM-DD.jsonl`), chained and verified like every other audit log.
//!
//! Opening an `Audit` checks its log first: the chain key is loaded (created only for a
//! brand-new home; a missing or different key is `conflict` until `bob ledger rekey`),
//! and a log that cannot be opened for appending or ends in a torn record is an error right
//! there (`conflict` for a torn tail), before the caller runs anything it would have to audit.
//!
//! With `database.url` set, the events go to the shared database instead ([`pg`]: one keyed
//! chain per agent, rows never updated or deleted), through the same calls: redaction before
//! the write, and a result released only after the write that makes its events durable, hold
//! for both backends.

pub mod pg;

use crate::chain::{self, Keyring};
use crate::clock;
use crate::contracts::{AuditEvent, AuditPayload};
use crate::error::{Error, Result};
use crate::home::Home;
use crate::ids;
use crate::redact::Redactor;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The agent id whose audit log holds human acts (`audit/human/`).
pub const HUMAN_AGENT: &str = "human";

/// Records one human act now: an event `event_type` with `actor: "human"` in the
/// [`HUMAN_AGENT`] log, under a run id of its own (`human_<uuid>`). Returns the event as
/// written. Callers record the act before they commit it (under the lock that guards the
/// change), so an act whose audit record cannot be written is not carried out.
pub fn human_act<T: AuditPayload>(home: &Home, payload: &T) -> Result<AuditEvent> {
    open_human(home)?.record("human", payload)
}

/// Opens the [`HUMAN_AGENT`] log for one act (run id `human_<uuid>`), checking that it can be
/// appended to: for an act recorded elsewhere first (a memory decision goes to the approval
/// ledger), open this before that record and write the event after it.
pub fn open_human(home: &Home) -> Result<Audit> {
    let run_id = format!("human_{}", uuid::Uuid::new_v4().simple());
    Audit::open(home, HUMAN_AGENT, &run_id)
}

fn payload_value<T: AuditPayload>(payload: &T) -> Result<Value> {
    serde_json::to_value(payload).map_err(|e| Error::internal(e.to_string()))
}

/// One run's writer of audit events.
#[derive(Debug)]
pub struct Audit {
    /// The day file, or with the shared store the chain's name (`postgres:audit_events/<agent>`).
    path: PathBuf,
    /// The shared database the events go to (`database.url` set), else the home's day file.
    shared: Option<&'static crate::db::Database>,
    keys: Keyring,
    agent_id: String,
    run_id: String,
    redactor: Redactor,
    pending: Vec<Map<String, Value>>,
    counter: u64,
    /// Event ids are `evt_<run nonce>_<counter>`: unique without a random draw per event.
    nonce: String,
    /// With [`Audit::keep_written`]: every event written so far, as written (chain fields
    /// included), for the run bundle.
    written: Option<Vec<Value>>,
}

impl Audit {
    /// Opens the audit log of `agent_id` for the run `run_id` (today's file, by
    /// [`clock::now`]). Loads the redaction rules (`invalid.request` on a bad rule file).
    pub fn open(home: &Home, agent_id: &str, run_id: &str) -> Result<Audit> {
        // The home's cached redactor (reloaded when a rule or secret changes), not a fresh
        // read of the rules file and the secrets store per run.
        let redactor = (*crate::redact::for_home(home)?).clone();
        Self::with_redactor(home, agent_id, run_id, redactor)
    }

    /// [`Audit::open`] with an already loaded redactor.
    pub fn with_redactor(
        home: &Home,
        agent_id: &str,
        run_id: &str,
        redactor: Redactor,
    ) -> Result<Audit> {
        // The ids name the log and sit in every record: they follow the id rule and are never
        // written masked (an id the redactor would change is refused, see `crate::ids`).
        ids::check("run_id", run_id)?;
        ids::check("agent_id", agent_id)?;
        ids::check_unredacted(&redactor, "run_id", run_id)?;
        ids::check_unredacted(&redactor, "agent_id", agent_id)?;
        // The one place the audit log learns its backend.
        let shared = crate::db::audit_connection()?;
        let (path, keys) = match shared {
            Some(_) => (pg::chain_name(agent_id), Keyring::open(home.root())?),
            None => {
                let day = clock::now()?.format("%Y-%m-%d").to_string();
                let path = home.audit_dir(agent_id)?.join(format!("{day}.jsonl"));
                let mut keys = Keyring::open(home.root())?;
                chain::check_appendable(&mut keys, &path)?;
                (path, keys)
            }
        };
        Ok(Audit {
            path,
            shared,
            keys,
            agent_id: agent_id.to_string(),
            run_id: run_id.to_string(),
            redactor,
            pending: Vec::new(),
            counter: 0,
            nonce: uuid::Uuid::new_v4().simple().to_string(),
            written: None,
        })
    }

    /// Sets the run nonce event ids are built from (a replay turn derives it from its seed).
    pub fn set_nonce(&mut self, nonce: String) {
        self.nonce = nonce;
    }

    /// Keeps every event written from now on, as written, for [`Audit::take_written`]: the run
    /// bundle copies a run's events from here instead of reading them back from the log.
    pub fn keep_written(&mut self) {
        self.written.get_or_insert_with(Vec::new);
    }

    /// Whether [`Audit::keep_written`] was called.
    pub fn keeps_written(&self) -> bool {
        self.written.is_some()
    }

    /// The events kept since [`Audit::keep_written`] (and forgets them), in log order.
    pub fn take_written(&mut self) -> Vec<Value> {
        self.written
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    fn kept(&mut self, written: &[Map<String, Value>]) {
        if let Some(kept) = &mut self.written {
            kept.extend(written.iter().map(|m| Value::Object(m.clone())));
        }
    }

    /// The file this run's events go to (with the shared store, the name of its chain there).
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    pub fn agent_id(&self) -> &str {
        &self.agent_id
    }

    /// The redactor applied to every payload.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// Writes one event now (after any queued ones) and returns it as written, with its
    /// chain `seq`, `prev` and `hash`.
    pub fn event(&mut self, event_type: &str, actor: &str, payload: Value) -> Result<AuditEvent> {
        self.queue(event_type, actor, payload)?;
        let mut written = self.flush()?;
        written
            .pop()
            .ok_or_else(|| Error::internal("audit flush wrote nothing"))
    }

    /// [`Audit::event`] for a typed payload (its event type is the payload's).
    pub fn record<T: AuditPayload>(&mut self, actor: &str, payload: &T) -> Result<AuditEvent> {
        self.event(payload.event_type(), actor, payload_value(payload)?)
    }

    /// [`Audit::queue`] for a typed payload (its event type is the payload's).
    pub fn queue_payload<T: AuditPayload>(&mut self, actor: &str, payload: &T) -> Result<()> {
        self.queue(payload.event_type(), actor, payload_value(payload)?)
    }

    /// Redacts and queues one event; nothing is written until [`Audit::flush`].
    pub fn queue(&mut self, event_type: &str, actor: &str, payload: Value) -> Result<()> {
        self.queue_with(event_type, actor, payload, Vec::new())
    }

    /// [`Audit::queue`] for a payload the caller already redacted in part (e.g. before cutting
    /// a large output to a snippet): `redactions` are the paths it replaced.
    pub fn queue_with(
        &mut self,
        event_type: &str,
        actor: &str,
        mut payload: Value,
        mut redactions: Vec<String>,
    ) -> Result<()> {
        for p in self.redactor.redact_value(&mut payload, "payload") {
            if !redactions.contains(&p) {
                redactions.push(p);
            }
        }
        self.queue_redacted(event_type, actor, payload, redactions)
    }

    /// Queues a payload the caller has fully redacted already (`redactions` = the paths it
    /// replaced). Callers must pass every payload through [`Audit::redactor`] first.
    pub fn queue_redacted(
        &mut self,
        event_type: &str,
        actor: &str,
        payload: Value,
        redactions: Vec<String>,
    ) -> Result<()> {
        self.counter += 1;
        let ts = clock::rfc3339(clock::now()?);
        let mut m = Map::new();
        m.insert(
            "event_id".into(),
            Value::from(format!("evt_{}_{}", self.nonce, self.counter)),
        );
        m.insert("event_type".into(), Value::from(event_type));
        m.insert("ts".into(), Value::from(ts));
        m.insert("run_id".into(), Value::from(self.run_id.as_str()));
        m.insert("agent_id".into(), Value::from(self.agent_id.as_str()));
        m.insert("actor".into(), Value::from(actor));
        m.insert("payload".into(), payload);
        m.insert(
            "redactions".into(),
            Value::Array(redactions.into_iter().map(Value::from).collect()),
        );
        self.pending.push(m);
        Ok(())
    }

    /// Number of queued, unwritten events.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Chains and writes `batch` whole: to the day file (one lock, one fdatasync) or to the
    /// shared database (one transaction).
    fn append(&self, batch: Vec<Map<String, Value>>) -> Result<Vec<Map<String, Value>>> {
        match self.shared {
            Some(db) => pg::append(db, &self.keys, &self.agent_id, batch),
            None => chain::append_batch(&self.keys, &self.path, batch),
        }
    }

    /// Writes every queued event with one lock and one fdatasync; returns how many.
    pub fn write_pending(&mut self) -> Result<usize> {
        if self.pending.is_empty() {
            return Ok(0);
        }
        let batch = std::mem::take(&mut self.pending);
        let written = self.append(batch)?;
        let n = written.len();
        if let Some(kept) = &mut self.written {
            kept.extend(written.into_iter().map(Value::Object));
        }
        Ok(n)
    }

    /// Writes every queued event with one lock and one fdatasync; returns them as written.
    pub fn flush(&mut self) -> Result<Vec<AuditEvent>> {
        if self.pending.is_empty() {
            return Ok(Vec::new());
        }
        let batch = std::mem::take(&mut self.pending);
        let written = self.append(batch)?;
        self.kept(&written);
        written
            .into_iter()
            .map(|m| {
                serde_json::from_value(Value::Object(m))
                    .map_err(|e| Error::internal(format!("audit event shape: {e}")))
            })
            .collect()
    }
}

impl Drop for Audit {
    fn drop(&mut self) {
        if !self.pending.is_empty() {
            let _ = self.write_pending();
        }
    }
}
