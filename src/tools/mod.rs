//! Tools: the registry, the policy, the sandbox, and the runner that executes Openclawssy request
//! envelopes into response envelopes, auditing every call (docs/design.md#module-map).
//!
//! A [`Runner`] never fails or panics because a tool failed: every failure (unknown tool,
//! invalid input, policy, sandbox, timeout, I/O) becomes an `ok:false` envelope carrying the
//! Openclawssy error. An unknown or disabled tool is never executed.
//!
//! Deadlines: every call runs under a [`deadline::Deadline`] (its clamped `timeout_ms`) and
//! answers `timeout` at it, never `ok` after it: the tools that could run long stop or are
//! abandoned at the deadline (see that module), and a read-only answer ready only after the
//! deadline is replaced by `timeout`.
//!
//! Audit before delivery (docs/design.md#security-model): [`Runner::new`] opens the run's audit log and fails
//! (before any tool can run) when it is torn or cannot be written; a call's `tool.call` event
//! is queued before it executes (and written before anything mutating runs); a response is
//! released only once its `tool.result` event is durable (at once outside batch mode, after
//! [`Runner::flush`] in batch mode).

pub mod argv;
pub mod confirm;
pub mod deadline;
pub mod domain;
pub mod failure_loop;
pub mod fs;
pub mod http;
pub mod parse;
pub mod policy;
pub mod registry;
pub mod session;
pub mod shell;
pub mod spec;
pub mod wire;

pub use failure_loop::{AttemptSummary, FailureLoop, LoopState};
pub use parse::{CallDefaults, parse_calls};
pub use policy::{Policy, PolicyOverrides};
pub use registry::{Kind, ToolSpec, registry, resolve};

use crate::audit::Audit;
use crate::clock;
use crate::contracts::audit;
use crate::contracts::{ToolMessage, ToolRequest, ToolResponse};
use crate::error::{Code, Error, Result};
use crate::home::Home;
use crate::ids;
use crate::redact::Redactor;
use registry::Input;
use serde_json::Value;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Outputs larger than this (as JSON text) are stored in the audit log as a snippet.
pub const AUDIT_OUTPUT_CAP: usize = 16 * 1024;

/// Executes tool requests under one policy, for one run.
pub struct Runner {
    home: Home,
    policy: Policy,
    run_id: String,
    agent_id: String,
    session_id: Option<String>,
    redactor: Redactor,
    /// One audit writer per (agent_id, run_id) seen; the runner's own first.
    audits: Vec<Audit>,
    sandbox: Option<fs::Sandbox>,
    failure_loop: FailureLoop,
    loop_state: LoopState,
    batch: bool,
    audit_time: Duration,
    audit_cpu: Duration,
    measure: bool,
    domain: Option<domain::DomainSettings>,
    /// Record every `duration_ms` as 0 (a replay turn's reproducible output).
    fixed_durations: bool,
    /// Where the ids tools draw come from (`web.search`'s staging directories): seeded in
    /// replay mode.
    ids: std::sync::Mutex<crate::ids::IdSource>,
    /// Requests refused for their ids so far (their envelopes' `refused_<n>` request ids).
    refused: u64,
}

impl Runner {
    /// A runner for `run_id` of `agent_id`. With a session, its failure loop is loaded from
    /// `sessions/<id>/failure_loop.json` (save it with [`Runner::save_failure_loop`]).
    pub fn new(
        home: &Home,
        policy: Policy,
        run_id: &str,
        agent_id: &str,
        session_id: Option<String>,
    ) -> Result<Runner> {
        ids::check("run_id", run_id)?;
        ids::check("agent_id", agent_id)?;
        let failure_loop = match &session_id {
            Some(s) => FailureLoop::load(home, s)?,
            None => FailureLoop::default(),
        };
        let loop_state = failure_loop.state();
        let redactor = Redactor::load(home)?;
        let audits = vec![Audit::with_redactor(
            home,
            agent_id,
            run_id,
            redactor.clone(),
        )?];
        Ok(Runner {
            home: home.clone(),
            policy,
            run_id: run_id.to_string(),
            agent_id: agent_id.to_string(),
            session_id,
            redactor,
            audits,
            sandbox: None,
            failure_loop,
            loop_state,
            batch: false,
            audit_time: Duration::ZERO,
            audit_cpu: Duration::ZERO,
            measure: false,
            domain: None,
            fixed_durations: false,
            ids: Default::default(),
            refused: 0,
        })
    }

    /// Replay mode: the runner's audit events take `nonce` as their run nonce (event ids
    /// `evt_<nonce>_<n>`), the ids tools draw derive from it, and every `duration_ms` is
    /// recorded as 0, so the same calls write the same bytes.
    pub fn set_reproducible(&mut self, nonce: String) {
        self.ids =
            std::sync::Mutex::new(crate::ids::IdSource::seeded(0, &format!("tools\0{nonce}")));
        if let Some(a) = self.audits.first_mut() {
            a.set_nonce(nonce);
        }
        self.fixed_durations = true;
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Batch mode: audit events of read-only calls are queued and written together (one lock,
    /// one fdatasync) before the next mutating call, on [`Runner::flush`], or on drop. Off by
    /// default: then every call's events are durable when [`Runner::run`] returns. In batch
    /// mode the caller must not release a response (print it, hand it to a model) before a
    /// [`Runner::flush`] that returned `Ok` after it: audit before delivery.
    pub fn set_batch(&mut self, on: bool) {
        self.batch = on;
    }

    /// Writes every queued audit event.
    pub fn flush(&mut self) -> Result<()> {
        let t = self.mark();
        let mut result = Ok(());
        for a in self.audits.iter_mut() {
            if let Err(e) = a.write_pending() {
                result = Err(e);
                break;
            }
        }
        self.account(t);
        result
    }

    /// Wall time spent so far building, redacting and writing audit events (for benchmarks).
    pub fn audit_time(&self) -> Duration {
        self.audit_time
    }

    /// CPU time of the same work (unaffected by other processes competing for the CPU).
    pub fn audit_cpu_time(&self) -> Duration {
        self.audit_cpu
    }

    /// Measure the audit's wall and CPU time ([`Runner::audit_time`]); off by default (it
    /// costs a few clock syscalls per call).
    pub fn set_measure(&mut self, on: bool) {
        self.measure = on;
    }

    fn mark(&self) -> (Instant, Duration) {
        if self.measure {
            (Instant::now(), thread_cpu())
        } else {
            (Instant::now(), Duration::ZERO)
        }
    }

    fn account(&mut self, (wall, cpu): (Instant, Duration)) {
        if self.measure {
            self.audit_time += wall.elapsed();
            self.audit_cpu += thread_cpu().saturating_sub(cpu);
        }
    }

    pub fn failure_loop(&self) -> &FailureLoop {
        &self.failure_loop
    }

    /// The state after the last call (`Escalate` when the last call escalated).
    pub fn loop_state(&self) -> &LoopState {
        &self.loop_state
    }

    /// Persists the failure loop to the session (no-op without a session).
    pub fn save_failure_loop(&self) -> Result<()> {
        match &self.session_id {
            Some(s) => self.failure_loop.save(&self.home, s),
            None => Ok(()),
        }
    }

    /// Whether the ids of `req` may be written: each follows the id rule, the agent is the
    /// runner's own or not a reserved actor, and the redactor would change none of them.
    fn check_ids(&self, req: &ToolRequest) -> Result<()> {
        ids::check("request_id", &req.request_id)?;
        ids::check("run_id", &req.run_id)?;
        if req.agent_id != self.agent_id {
            ids::check_agent("agent_id", &req.agent_id)?;
        }
        for (field, id) in [
            ("request_id", &req.request_id),
            ("run_id", &req.run_id),
            ("agent_id", &req.agent_id),
        ] {
            ids::check_unredacted(&self.redactor, field, id)?;
        }
        Ok(())
    }

    fn audit_for(&mut self, req: &ToolRequest) -> Result<&mut Audit> {
        let (agent, run) = (req.agent_id.as_str(), req.run_id.as_str());
        let i = match self
            .audits
            .iter()
            .position(|a| a.agent_id() == agent && a.run_id() == run)
        {
            Some(i) => i,
            None => {
                let mut a = Audit::with_redactor(&self.home, agent, run, self.redactor.clone())?;
                if self.audits.first().is_some_and(Audit::keeps_written) {
                    a.keep_written();
                }
                self.audits.push(a);
                self.audits.len() - 1
            }
        };
        Ok(&mut self.audits[i])
    }

    /// Keeps the audit events this runner writes from now on ([`Audit::keep_written`]).
    pub fn keep_written(&mut self) {
        self.audits.iter_mut().for_each(Audit::keep_written);
    }

    /// The kept audit events of `run_id` of `agent_id` (see [`Runner::keep_written`]), each
    /// with the log file it went to, in each file's order.
    pub fn take_written(
        &mut self,
        agent_id: &str,
        run_id: &str,
    ) -> Vec<(std::path::PathBuf, Value)> {
        let mut out = Vec::new();
        for a in &mut self.audits {
            if a.agent_id() == agent_id && a.run_id() == run_id {
                let path = a.path().to_path_buf();
                out.extend(a.take_written().into_iter().map(|e| (path.clone(), e)));
            }
        }
        out
    }

    /// Executes one request. Never returns an error: a failure is an `ok:false` envelope.
    ///
    /// A request whose ids may not be written ([`crate::ids`]: the id rule, a reserved actor
    /// as agent, an id the redactor would change) is not executed: it fails `invalid.request`
    /// naming the field, and its envelope and audit record carry the runner's run and agent
    /// ids and a request id of bob's (`refused_<n>`) instead of the refused values.
    pub fn run(&mut self, req: &ToolRequest) -> ToolResponse {
        let started = Instant::now();
        let refused;
        let (req, result) = match self.check_ids(req) {
            Ok(()) => (req, self.execute(req, started)),
            Err(e) => {
                self.refused += 1;
                refused = ToolRequest {
                    request_id: format!("refused_{}", self.refused),
                    run_id: self.run_id.clone(),
                    agent_id: self.agent_id.clone(),
                    ..req.clone()
                };
                (&refused, Err(e))
            }
        };
        let finished_at = clock::now().map(clock::rfc3339).unwrap_or_default();
        let resp = match result {
            Ok(output) => ToolResponse {
                request_id: req.request_id.clone(),
                run_id: req.run_id.clone(),
                tool: req.tool.clone(),
                ok: true,
                output: Some(output),
                error: None,
                duration_ms: started.elapsed().as_millis() as u64,
                finished_at,
            },
            Err(e) => ToolResponse {
                request_id: req.request_id.clone(),
                run_id: req.run_id.clone(),
                tool: req.tool.clone(),
                ok: false,
                output: None,
                error: Some(e),
                duration_ms: started.elapsed().as_millis() as u64,
                finished_at,
            },
        };
        let mut resp = resp;
        if self.fixed_durations {
            resp.duration_ms = 0;
        }
        let ran = resp.ok;
        let t = self.mark();
        let audited = self.audit_result(req, &resp);
        self.account(t);
        if let Err(e) = audited {
            // The result could not be audited: it is withheld, and the envelope says so.
            resp.ok = false;
            resp.output = None;
            resp.error = Some(Error::internal(format!(
                "{} its audit record could not be written: {}",
                if ran {
                    "the tool ran but"
                } else {
                    "the call failed and"
                },
                e.message
            )));
        }
        if !self.batch
            && let Err(e) = self.flush()
        {
            resp.ok = false;
            resp.output = None;
            resp.error = Some(Error::internal(format!(
                "audit log write failed: {}",
                e.message
            )));
        }
        self.loop_state = self
            .failure_loop
            .record(resp.ok, AttemptSummary::from_response(&resp));
        resp
    }

    fn audit_result(&mut self, req: &ToolRequest, resp: &ToolResponse) -> Result<()> {
        let mut payload = serde_json::to_value(audit::ToolResult {
            request_id: &req.request_id,
            tool: &req.tool,
            ok: resp.ok,
            output: Value::Null,
            error: resp.error.as_ref(),
            duration_ms: resp.duration_ms,
        })
        .map_err(|e| Error::internal(e.to_string()))?;
        let mut redactions = self.redactor.redact_value(&mut payload, "payload");
        if let Some(o) = &resp.output {
            let mut o = o.clone();
            redactions.extend(self.redactor.redact_value(&mut o, "payload.output"));
            if approx_len(&o) > AUDIT_OUTPUT_CAP {
                let text = o.to_string();
                let mut cut = AUDIT_OUTPUT_CAP.min(text.len());
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                o = serde_json::to_value(OutputSnippet {
                    snippet: &text[..cut],
                    bytes: text.len(),
                    sha256: crate::store::sha256_hex(text.as_bytes()),
                })
                .unwrap_or_default();
            }
            payload["output"] = o;
        }
        let audit = self.audit_for(req)?;
        audit.queue_redacted("tool.result", "system", payload, redactions)
    }

    fn execute(&mut self, req: &ToolRequest, started: Instant) -> Result<Value> {
        let spec = resolve(&req.tool);
        let session_id = self.session_id.clone();
        let call = audit::ToolCall {
            request_id: &req.request_id,
            tool: &req.tool,
            canonical_tool: spec.map(|s| s.name),
            input: &req.input,
            timeout_ms: req.timeout_ms,
            session_id: session_id.as_deref(),
            mutating: spec.map(|s| s.mutating),
        };
        let t = self.mark();
        let queued = self
            .audit_for(req)
            .and_then(|a| a.queue_payload("agent", &call));
        self.account(t);
        queued?;
        let Some(spec) = spec else {
            return Err(wire::not_found(
                &req.tool,
                "it was not executed (see `bob tool list`)",
            ));
        };
        let input = registry::validate(&req.tool, spec, &req.input)?;
        self.policy.check_tool(&req.tool, spec)?;
        let timeout = Duration::from_millis(self.policy.clamp_timeout(req.timeout_ms));
        // From the call's start, as its `duration_ms` counts.
        let deadline = deadline::Deadline::since(started, timeout, spec.name);
        if spec.mutating {
            // Write-ahead: the call is on disk before it changes anything.
            self.flush()?;
        }
        let output = match input {
            Input::ReadText(i) => self.sandbox()?.read_text(&i),
            Input::ListDir(i) => self.sandbox()?.list_dir(&i),
            Input::WriteText(i) => self.sandbox()?.write_text(&i),
            Input::ShellExec(i) => {
                let t = timeout.min(Duration::from_secs(i.timeout_s.max(1)));
                let roots = self.policy.roots.clone();
                let (rules, mode) = (self.policy.shell_rules()?, self.policy.sandbox_mode);
                let mut files: Vec<PathBuf> = self
                    .policy
                    .settings
                    .path("redact.rules")
                    .into_iter()
                    .collect();
                if !rules.source.starts_with("builtin:") {
                    files.push(PathBuf::from(&rules.source));
                }
                let bob = shell::Confinement {
                    home: Some(self.home.root().to_path_buf()),
                    files,
                    budget: shell::budget(&self.policy.settings)?,
                };
                shell::exec(&i, self.sandbox()?, &roots, &rules, t, mode, &bob)
            }
            Input::HttpGet(i) => http::get(&self.home, &self.policy, &i, timeout),
            Input::Scryfall(i) => {
                self.domain(spec.name, deadline, |c| domain::scryfall::lookup(c, &i))
            }
            Input::Steam(i) => self.domain(spec.name, deadline, |c| domain::steam::lookup(c, &i)),
            Input::News(i) => self.domain(spec.name, deadline, |c| domain::news::search(c, &i)),
            Input::Knowledge(i) => {
                self.domain(spec.name, deadline, |c| domain::knowledge::search(c, &i))
            }
            Input::FetchText(i) => self.domain(spec.name, deadline, |c| domain::web::fetch(c, &i)),
            Input::BomNormalize(i) => {
                let home = self.home.clone();
                deadline.run(move |d| domain::bom::run(&home, &i, d))
            }
            Input::Offers(i) => {
                self.domain(spec.name, deadline, |c| domain::commerce::search(c, &i))
            }
            Input::Spreadsheet(i) => domain::spreadsheet::write(self.sandbox()?, &i),
            Input::Search(i) => self.search(spec.name, deadline, &i),
            // MTG bypasses TURBOTIME (the Bob v0 runtime): the engine's own files, no network.
            // A model plays only the seats a human granted it (`mtg:<game>:<seat>`).
            Input::MtgState(i) => {
                let seats = self.mtg_seats(&i.game)?;
                let seat = match i.viewer.map(|v| v.seat()) {
                    Some(v) if !seats.contains(&v) => {
                        return Err(mtg_seat_denied(
                            &i.game,
                            &format!("view the game as {}", v.name()),
                        ));
                    }
                    Some(v) => v,
                    None => crate::mtg::game::decider(&self.home, &i.game)?
                        .filter(|d| seats.contains(d))
                        .unwrap_or(seats[0]),
                };
                crate::mtg::game::seat_view(&self.home, &i.game, Some(seat))
            }
            Input::MtgActions(i) => {
                let seats = self.mtg_seats(&i.game)?;
                crate::mtg::game::actions_for(&self.home, &i.game, &seats)
            }
            Input::MtgAct(i) => {
                let seats = self.mtg_seats(&i.game)?;
                match crate::mtg::game::decider(&self.home, &i.game)? {
                    Some(d) if !seats.contains(&d) => {
                        Err(mtg_seat_denied(&i.game, &format!("act for {}", d.name())))
                    }
                    _ => crate::memory::mtg_lessons::act(&self.home, &i.game, &i.action),
                }
            }
            Input::BomBuild(i) => {
                self.sandbox()?;
                self.domain_settings()?;
                let (Some(sb), Some(settings)) = (&self.sandbox, &self.domain) else {
                    return Err(Error::internal("sandbox and settings"));
                };
                domain::bom_build::build(
                    &domain::Ctx {
                        home: &self.home,
                        policy: &self.policy,
                        settings,
                        timeout,
                        deadline,
                        tool: spec.name,
                        ids: &self.ids,
                    },
                    sb,
                    &i,
                )
            }
        };
        // Never `ok` after the deadline: a read-only answer that is ready only then is
        // dropped. (A mutating tool's effect has happened by then and is reported as it is;
        // the tools that could run long stop by themselves at the deadline.)
        if output.is_ok() && !spec.mutating && deadline.passed() {
            return Err(deadline.error());
        }
        output
    }

    /// `web.search`: the sandbox when the policy has a root (file mode needs it).
    fn search(
        &mut self,
        tool: &'static str,
        deadline: deadline::Deadline,
        i: &domain::search::SearchRequest,
    ) -> Result<Value> {
        if self.policy.root().is_some() {
            self.sandbox()?;
        }
        self.domain_settings()?;
        let Some(settings) = &self.domain else {
            return Err(Error::internal("settings"));
        };
        domain::search::run(
            &domain::Ctx {
                home: &self.home,
                policy: &self.policy,
                settings,
                timeout: deadline.timeout(),
                deadline,
                tool,
                ids: &self.ids,
            },
            self.sandbox.as_ref(),
            i,
        )
    }

    fn domain_settings(&mut self) -> Result<()> {
        if self.domain.is_none() {
            self.domain = Some(domain::DomainSettings::from_settings(
                &self.home,
                &self.policy.settings,
            )?);
        }
        Ok(())
    }

    /// Runs a domain tool with the settings (loaded once per runner).
    fn domain(
        &mut self,
        tool: &'static str,
        deadline: deadline::Deadline,
        f: impl FnOnce(&domain::Ctx<'_>) -> Result<Value>,
    ) -> Result<Value> {
        if self.domain.is_none() {
            self.domain = Some(domain::DomainSettings::from_settings(
                &self.home,
                &self.policy.settings,
            )?);
        }
        let settings = self
            .domain
            .as_ref()
            .ok_or_else(|| Error::internal("settings"))?;
        f(&domain::Ctx {
            home: &self.home,
            policy: &self.policy,
            settings,
            timeout: deadline.timeout(),
            deadline,
            tool,
            ids: &self.ids,
        })
    }

    /// The seats of `game` a human granted this session (`mtg:<game>:p1|p2`); none is
    /// `policy.denied`.
    fn mtg_seats(&self, game: &str) -> Result<Vec<crate::mtg::Seat>> {
        let prefix = format!("mtg:{game}:");
        let seats: Vec<crate::mtg::Seat> = self
            .policy
            .capabilities_granted
            .iter()
            .filter_map(|c| c.strip_prefix(&prefix))
            .filter_map(crate::mtg::Seat::parse)
            .collect();
        if seats.is_empty() {
            return Err(mtg_seat_denied(game, "play it"));
        }
        Ok(seats)
    }

    fn sandbox(&mut self) -> Result<&fs::Sandbox> {
        if self.sandbox.is_none() {
            let Some(_) = self.policy.root() else {
                return Err(Error::new(
                    Code::SandboxRequired,
                    "the tool sandbox has no root",
                ));
            };
            let dotfiles = self
                .policy
                .capabilities_granted
                .iter()
                .any(|c| c == fs::DOTFILES_CAP);
            self.sandbox = Some(fs::Sandbox::open(&self.policy.roots)?.allow_dotfiles(dotfiles));
        }
        self.sandbox
            .as_ref()
            .ok_or_else(|| Error::internal("sandbox"))
    }
}

/// A tool call for an MTG seat no human granted this session.
fn mtg_seat_denied(game: &str, what: &str) -> Error {
    Error::new(
        Code::PolicyDenied,
        format!(
            "this session may not {what} in game {game:?}: the seats a model plays are a human grant (`bob caps grant --session ID mtg:{game}:p1`, or `--grant` for one run)"
        ),
    )
    .with("game", game.to_string())
}

impl Drop for Runner {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// CPU time consumed by the calling thread.
pub fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// A cheap upper-bound-ish estimate of a value's JSON size (no serialization).
fn approx_len(v: &Value) -> usize {
    match v {
        Value::Null | Value::Bool(_) | Value::Number(_) => 24,
        Value::String(s) => s.len() + 2,
        Value::Array(a) => a.iter().map(approx_len).sum::<usize>() + a.len() + 2,
        Value::Object(m) => {
            m.iter()
                .map(|(k, v)| k.len() + 4 + approx_len(v))
                .sum::<usize>()
                + 2
        }
    }
}

/// An audited tool output over the audit cap: its start, its whole length and digest.
#[derive(serde::Serialize)]
struct OutputSnippet<'a> {
    snippet: &'a str,
    bytes: usize,
    sha256: String,
}

/// A response as the Spectator tool-role message
/// `{"role":"tool","tool_call_id":…,"content":"<json of {id,tool,ok,output,error}>"}`
/// (`bob tool run --as tool-messages`).
#[derive(serde::Serialize)]
pub struct ToolRoleMessage {
    role: crate::contracts::Role,
    tool_call_id: String,
    content: String,
}

/// Renders a response as its [`ToolRoleMessage`].
pub fn tool_message(r: &ToolResponse) -> ToolRoleMessage {
    ToolRoleMessage {
        role: crate::contracts::Role::Tool,
        tool_call_id: r.request_id.clone(),
        content: serde_json::to_string(&ToolMessage::from(r)).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::io::{Read, Write};

    /// The turn is async: the runner must work from inside a tokio runtime (no nested
    /// runtime on the caller's thread) for every tool, http.get included.
    #[tokio::test(flavor = "current_thread")]
    async fn runner_works_inside_a_tokio_runtime() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            if let Ok((mut s, _)) = listener.accept() {
                let mut buf = [0u8; 1024];
                let _ = s.read(&mut buf);
                let _ = s.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
                );
            }
        });
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path().join("home"));
        let root = dir.path().join("root");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("a.txt"), "A").unwrap();
        let o = PolicyOverrides {
            roots: vec![root],
            enable_all: true,
            grant: vec!["net:127.0.0.1".into()],
            allow_loopback: true,
            // The full sandbox re-executes the bob binary as its helper; a unit-test binary is
            // not bob (tests/cli/sandbox.rs covers the full mode through the real binary).
            sandbox_mode: Some(crate::sandbox::Mode::Weak),
            ..Default::default()
        };
        let policy = Policy::load(&home, &crate::settings::Settings::default(), None, o).unwrap();
        let mut runner = Runner::new(&home, policy, "run_t", "agent_t", None).unwrap();
        let mut d = CallDefaults::new().unwrap();
        d.run_id = "run_t".into();
        d.agent_id = "agent_t".into();
        let calls = parse_calls(
            &json!([
                {"id": "a", "tool": "fs.read_text", "args": {"path": "a.txt"}},
                {"id": "b", "tool": "http.get", "args": {"url": format!("http://127.0.0.1:{port}/"), "use_cache": false}},
                {"id": "c", "tool": "shell.exec", "args": {"cmd": "cat a.txt"}}
            ])
            .to_string(),
            &d,
        )
        .unwrap();
        let out: Vec<ToolResponse> = calls.iter().map(|c| runner.run(c)).collect();
        assert_eq!(out[0].output.as_ref().unwrap()["text"], "A");
        assert_eq!(
            out[1].output.as_ref().unwrap()["body"],
            "ok",
            "{:?}",
            out[1]
        );
        assert_eq!(
            out[2].output.as_ref().unwrap()["stdout"],
            "A",
            "{:?}",
            out[2]
        );
        assert_eq!(runner.audits.len(), 1);
        let log = std::fs::read_to_string(runner.audits[0].path()).unwrap();
        assert_eq!(log.lines().count(), 6);
    }
    /// A request whose ids may not be written is not executed: it fails `invalid.request`
    /// naming the field, under the runner's ids and a request id of bob's, and no log is
    /// opened under the refused ids.
    #[test]
    fn a_request_with_ids_that_may_not_be_written_fails_under_the_runners_ids() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path().join("home"));
        let root = dir.path().join("root");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("a.txt"), "A").unwrap();
        let o = PolicyOverrides {
            roots: vec![root],
            enable_all: true,
            ..Default::default()
        };
        let policy = Policy::load(&home, &crate::settings::Settings::default(), None, o).unwrap();
        let mut runner = Runner::new(&home, policy, "run_t", "agent_t", None).unwrap();
        runner.redactor.add_literal("Zq8vLmN3pR7sT1wXk4");
        let ok = ToolRequest {
            request_id: "a".into(),
            run_id: "run_t".into(),
            agent_id: "agent_t".into(),
            tool: "fs.read_text".into(),
            input: json!({"path": "a.txt"}),
            timeout_ms: 1000,
            created_at: String::new(),
        };
        let cases = [
            ("agent_id", "human"),
            ("agent_id", "system"),
            ("agent_id", "../x"),
            ("run_id", "run:1"),
            ("request_id", "Zq8vLmN3pR7sT1wXk4"),
        ];
        for (n, (field, id)) in cases.iter().enumerate() {
            let mut req = ok.clone();
            match *field {
                "agent_id" => req.agent_id = id.to_string(),
                "run_id" => req.run_id = id.to_string(),
                _ => req.request_id = id.to_string(),
            }
            let resp = runner.run(&req);
            assert!(!resp.ok, "{field}={id}");
            let e = resp.error.unwrap();
            assert_eq!(e.code, Code::InvalidRequest);
            assert_eq!(e.details["field"], *field);
            assert_eq!(resp.request_id, format!("refused_{}", n + 1));
            assert_eq!(resp.run_id, "run_t");
        }
        assert!(runner.run(&ok).ok);
        // The runner's own agent may be named, whatever it is (`bob search` runs as human).
        assert_eq!(runner.audits.len(), 1);
        let agents: Vec<_> = std::fs::read_dir(home.root().join("audit"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(agents, vec!["agent_t"]);
        let log = std::fs::read_to_string(runner.audits[0].path()).unwrap();
        assert!(!log.contains("Zq8vLmN3pR7sT1wXk4"));
        assert_eq!(log.lines().count(), cases.len() + 2);
    }
}
