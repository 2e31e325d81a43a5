//! The scheduler (the scheduler job contract): jobs in `schedule/jobs.json` (or, with
//! `database.url` set, in the shared database: see `shared`), run as `bob turn` child
//! processes by [`Scheduler::tick`] (what cron calls every minute) or the daemon loop.
//!
//! * **Two schedule forms only**: `@every <Go duration>` and a one-shot RFC3339 timestamp
//!   ([`Spec`]); anything else is rejected on create and update.
//! * **Missed jobs** are not reconstructed: a due `@every` job runs once, then is next due one
//!   interval after *that run* (`next_run = run time + interval`); a one-shot job whose time
//!   has passed runs once and is then disabled.
//! * **Overlapping ticks** never run a job twice for one due time: a tick claims its due jobs
//!   under the `jobs.json` lock (advancing `next_run`, marking `last_status: running`,
//!   disabling one-shots) and releases the lock before running them, so a second tick finds
//!   them not due. The result is written back under the lock when each run ends.
//! * **Hung jobs** are killed (their whole process group) after their timeout and recorded as
//!   `timeout`; a failed turn is recorded as `failed` with its error and the job stays
//!   scheduled.
//! * A tick with nothing due reads `jobs.json` once, starts nothing and writes only its stamp:
//!   every tick first writes its time to `schedule/last_tick` ([`Scheduler::last_tick`]), so
//!   a reader can tell a scheduler that ticks from one that stopped (cron removed, daemon dead).
//! * Every run is appended to `schedule/history.jsonl` ([`JobRun`]).

pub mod duration;
pub mod install;
pub mod runner;
mod shared;
pub mod spec;

pub use duration::{DurationError, parse_go_duration};
pub use runner::{Outcome, TURN_CMD_ENV, TurnCommand, run_turn};
pub use spec::{ACCEPTED_FORMS, MIN_INTERVAL, Spec};

use crate::clock;
use crate::contracts::{Job, JobRun, JobsFile, NextDue, SchedulerStatus, TickReport};
use crate::error::{Error, Result};
use crate::home::Home;
use crate::ids;
use crate::store::{self, BadLine, Lock};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A run's timeout when neither the job (`timeout_s`) nor the caller sets one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// Longest job id (the default session id `job-<id>` must stay a safe file name).
pub const MAX_ID_LEN: usize = 120;

/// Fields a caller may set on create and update; the rest is bob's bookkeeping.
const SETTABLE: &[&str] = &[
    "id",
    "agentID",
    "schedule",
    "message",
    "enabled",
    "session",
    "timeout_s",
];

/// How jobs are run.
pub struct RunOptions<'a> {
    pub turn: TurnCommand,
    /// Timeout for jobs that set no `timeout_s`.
    pub default_timeout: Duration,
    /// Most turns running at once within one tick.
    pub max_parallel: usize,
    /// Raised (e.g. by SIGINT/SIGTERM) to kill running turns and record them `cancelled`.
    pub cancel: &'a AtomicBool,
}

/// The scheduler's files under one home.
#[derive(Debug, Clone)]
pub struct Scheduler {
    jobs: PathBuf,
    lock: PathBuf,
    history: PathBuf,
}

/// The session a job's turns run in: its `session`, else `job-<id>`.
pub fn session_of(job: &Job) -> String {
    match &job.session {
        Some(s) if !s.is_empty() => s.clone(),
        _ => format!("job-{}", job.id),
    }
}

/// When `job` is next due, or `None` when it never is again. A job written without
/// `next_run` (hand-written or imported from Openclawssy) is placed by its schedule: an `@every`
/// job one interval after its `lastRun`, or now if it never ran; a one-shot at its time unless
/// it already ran.
pub fn due_time(job: &Job, now: DateTime<Utc>) -> Result<Option<DateTime<Utc>>> {
    if let Some(next) = &job.next_run {
        return clock::parse_rfc3339(next)
            .map(Some)
            .map_err(|e| Error::invalid(format!("job {:?}: next_run: {}", job.id, e.message)));
    }
    let spec = Spec::parse(&job.schedule)?;
    let last = job
        .last_run
        .as_deref()
        .map(clock::parse_rfc3339)
        .transpose()?;
    Ok(match spec {
        Spec::Every(_) => match last {
            Some(t) => spec.after_run(t),
            None => Some(now),
        },
        Spec::Once(at) => last.is_none().then_some(at),
    })
}

/// Whether `job` should run at `now` (enabled and due).
pub fn is_due(job: &Job, now: DateTime<Utc>) -> Result<bool> {
    Ok(job.enabled && due_time(job, now)?.is_some_and(|t| t <= now))
}

/// Checks a job's fields and sets its `next_run` for a create at `now`.
pub fn prepare(mut job: Job, now: DateTime<Utc>) -> Result<Job> {
    ids::check("id", &job.id)?;
    if job.id.len() > MAX_ID_LEN {
        return Err(
            Error::invalid(format!("id is longer than {MAX_ID_LEN} characters"))
                .with("field", "id"),
        );
    }
    let spec = Spec::parse(&job.schedule)?;
    if !job.agent_id.is_empty() {
        ids::check_agent("agentID", &job.agent_id)?;
    }
    if let Some(s) = &job.session {
        ids::check("session", s)?;
    }
    if job.timeout_s == Some(0) {
        return Err(Error::invalid("timeout_s must be at least 1").with("field", "timeout_s"));
    }
    let last = match &job.last_run {
        Some(t) => Some(
            clock::parse_rfc3339(t)
                .map_err(|e| Error::invalid(format!("lastRun: {}", e.message)))?,
        ),
        None => None,
    };
    job.last_run = last.map(clock::rfc3339);
    job.next_run = spec.first_due(now, last).map(clock::rfc3339);
    Ok(job)
}

/// Builds a job from a JSON object (the Openclawssy shape), refusing bookkeeping fields.
pub fn job_from_json(mut map: Map<String, Value>) -> Result<Job> {
    for (alias, name) in [("agent_id", "agentID"), ("last_run", "lastRun")] {
        if let Some(v) = map.remove(alias) {
            map.entry(name).or_insert(v);
        }
    }
    for k in ["next_run", "last_status", "last_run_id"] {
        if map.contains_key(k) {
            return Err(
                Error::invalid(format!("{k} is kept by the scheduler and cannot be set"))
                    .with("field", k),
            );
        }
    }
    for k in ["id", "schedule"] {
        if !map.get(k).is_some_and(Value::is_string) {
            return Err(Error::invalid(format!(
                "a job needs a string {k:?} (id and schedule are required)"
            ))
            .with("field", k));
        }
    }
    serde_json::from_value(Value::Object(map)).map_err(|e| Error::invalid(format!("job: {e}")))
}

/// Refuses a job whose ids (`id`, `agentID`, `session`) the storage redactor would change:
/// an id is never written masked ([`crate::ids`]).
fn ids_unredacted(job: &Job) -> Result<()> {
    let r = crate::redact::for_storage()?;
    ids::check_unredacted(&r, "id", &job.id)?;
    ids::check_unredacted(&r, "agentID", &job.agent_id)?;
    if let Some(s) = &job.session {
        ids::check_unredacted(&r, "session", s)?;
    }
    Ok(())
}

impl Scheduler {
    pub fn new(home: &Home) -> Scheduler {
        let dir = home.schedule_dir();
        let jobs = dir.join("jobs.json");
        Scheduler {
            lock: store::lock_path(&jobs),
            history: dir.join("history.jsonl"),
            jobs,
        }
    }

    pub fn jobs_path(&self) -> &Path {
        &self.jobs
    }

    pub fn history_path(&self) -> &Path {
        &self.history
    }

    /// Reads `jobs.json` (empty when missing). A corrupt file is reported, never replaced.
    pub fn load(&self) -> Result<JobsFile> {
        if let Some(db) = crate::db::shared()? {
            return shared::load(db);
        }
        match store::read_json::<JobsFile>(&self.jobs) {
            Ok(f) => Ok(f.unwrap_or_default()),
            Err(mut e) if e.code == crate::error::Code::InvalidRequest => {
                e.message = format!(
                    "{} is corrupt and was left untouched (fix it or move it aside): {}",
                    self.jobs.display(),
                    e.message
                );
                Err(e.with("path", self.jobs.display().to_string()))
            }
            Err(e) => Err(e),
        }
    }

    /// Read-modify-write under the jobs lock; `f` returns its result and whether it changed
    /// anything (nothing is written otherwise).
    fn mutate<T>(&self, f: impl FnOnce(&mut JobsFile) -> Result<(T, bool)>) -> Result<T> {
        if let Some(db) = crate::db::shared()? {
            return shared::mutate(db, f);
        }
        let _lock = Lock::exclusive(&self.lock)?;
        let mut file = self.load()?;
        let (out, changed) = f(&mut file)?;
        if changed {
            store::write_json_atomic(&self.jobs, &file)?;
        }
        Ok(out)
    }

    fn find<'f>(file: &'f mut JobsFile, id: &str) -> Result<&'f mut Job> {
        file.jobs
            .iter_mut()
            .find(|j| j.id == id)
            .ok_or_else(|| not_found(id))
    }

    /// One job by id.
    pub fn get(&self, id: &str) -> Result<Job> {
        self.load()?
            .jobs
            .into_iter()
            .find(|j| j.id == id)
            .ok_or_else(|| not_found(id))
    }

    /// Creates a job; a duplicate id is a `conflict`.
    pub fn add(&self, job: Job, now: DateTime<Utc>) -> Result<Job> {
        let job = prepare(job, now)?;
        ids_unredacted(&job)?;
        self.mutate(|file| {
            if file.jobs.iter().any(|j| j.id == job.id) {
                return Err(
                    Error::conflict(format!("a job with id {:?} already exists", job.id))
                        .with("id", job.id.clone()),
                );
            }
            file.jobs.push(job.clone());
            Ok((job, true))
        })
    }

    /// Changes the settable fields of a job (`agentID`, `schedule`, `message`, `enabled`,
    /// `session`, `timeout_s`). A new schedule is validated like on create and re-places
    /// `next_run`: an `@every` job one interval after its last run (or now), a one-shot at
    /// its new time (even if an earlier time already ran).
    pub fn update(&self, id: &str, patch: Map<String, Value>, now: DateTime<Utc>) -> Result<Job> {
        let mut patch = patch;
        if let Some(v) = patch.remove("agent_id") {
            patch.entry("agentID").or_insert(v);
        }
        for k in patch.keys() {
            if !SETTABLE.contains(&k.as_str()) {
                return Err(Error::invalid(format!(
                    "{k:?} cannot be updated (settable: agentID, schedule, message, enabled, session, timeout_s)"
                ))
                .with("field", k.clone()));
            }
        }
        if let Some(v) = patch.get("id")
            && v.as_str() != Some(id)
        {
            return Err(Error::invalid("a job's id cannot be changed").with("field", "id"));
        }
        self.mutate(|file| {
            let job = Self::find(file, id)?;
            let mut map = match serde_json::to_value(&*job) {
                Ok(Value::Object(m)) => m,
                _ => return Err(Error::internal("job did not serialize to an object")),
            };
            let schedule_changed = patch.contains_key("schedule");
            for (k, v) in &patch {
                map.insert(k.clone(), v.clone());
            }
            let mut updated: Job = serde_json::from_value(Value::Object(map))
                .map_err(|e| Error::invalid(format!("job: {e}")))?;
            // Validate everything as on create, then keep the bookkeeping unless re-placed.
            let checked = prepare(updated.clone(), now)?;
            ids_unredacted(&checked)?;
            if schedule_changed {
                let spec = Spec::parse(&updated.schedule)?;
                updated.next_run = match spec {
                    Spec::Every(_) => checked.next_run,
                    Spec::Once(at) => Some(clock::rfc3339(at)),
                };
            }
            if updated.enabled && updated.next_run.is_none() {
                return Err(one_shot_done(&updated));
            }
            *job = updated.clone();
            Ok((updated, true))
        })
    }

    /// Deletes a job and returns it (its history stays).
    pub fn remove(&self, id: &str) -> Result<Job> {
        self.mutate(|file| {
            let i = file
                .jobs
                .iter()
                .position(|j| j.id == id)
                .ok_or_else(|| not_found(id))?;
            Ok((file.jobs.remove(i), true))
        })
    }

    /// Sets the global pause flag; returns the file's job count.
    /// The jobs at `now`: how many, how many enabled and due, and the enabled job due first.
    pub fn status(&self, now: DateTime<Utc>) -> Result<SchedulerStatus> {
        let file = self.load()?;
        let mut next: Option<(DateTime<Utc>, &str)> = None;
        let (mut enabled, mut due) = (0, 0);
        for job in file.jobs.iter().filter(|j| j.enabled) {
            enabled += 1;
            if let Ok(Some(t)) = due_time(job, now) {
                if t <= now {
                    due += 1;
                }
                if next.is_none_or(|(n, _)| t < n) {
                    next = Some((t, &job.id));
                }
            }
        }
        Ok(SchedulerStatus {
            paused: file.paused,
            jobs: file.jobs.len(),
            enabled,
            due,
            next_due: next.map(|(t, id)| NextDue {
                job_id: id.to_string(),
                at: clock::rfc3339(t),
            }),
        })
    }

    pub fn set_paused(&self, paused: bool) -> Result<usize> {
        self.mutate(|file| {
            let changed = file.paused != paused;
            file.paused = paused;
            Ok((file.jobs.len(), changed))
        })
    }

    /// Pauses (`enabled: false`) or resumes one job. A resumed job keeps its `next_run`, so if
    /// that passed while it was paused it runs once at the next tick (the missed-job policy).
    /// Resuming a one-shot job that already ran is a `conflict`: give it a new time instead.
    pub fn set_enabled(&self, id: &str, enabled: bool, now: DateTime<Utc>) -> Result<Job> {
        self.mutate(|file| {
            let job = Self::find(file, id)?;
            if enabled && job.next_run.is_none() {
                let placed = due_time(job, now)?;
                match placed {
                    Some(t) => job.next_run = Some(clock::rfc3339(t)),
                    None => return Err(one_shot_done(job)),
                }
            }
            let changed = job.enabled != enabled;
            job.enabled = enabled;
            Ok((job.clone(), changed))
        })
    }

    /// The runs recorded in `history.jsonl` (optionally of one job), oldest first, and the
    /// lines that are not whole records. An id with no job and no history is `not_found`.
    pub fn history(&self, id: Option<&str>) -> Result<(Vec<JobRun>, Vec<BadLine>)> {
        let contents = store::read_jsonl(&self.history)?;
        let mut bad = contents.bad;
        let mut runs = Vec::new();
        for (line, v) in contents.records {
            match serde_json::from_value::<JobRun>(v) {
                Ok(r) => {
                    if id.is_none_or(|id| r.job_id == id) {
                        runs.push(r);
                    }
                }
                Err(e) => bad.push(BadLine {
                    line,
                    kind: "malformed",
                    reason: format!("not a job run: {e}"),
                }),
            }
        }
        if let Some(id) = id
            && runs.is_empty()
            && !self.load()?.jobs.iter().any(|j| j.id == id)
        {
            return Err(not_found(id));
        }
        bad.sort_by_key(|b| b.line);
        Ok((runs, bad))
    }

    /// Runs every due job once (see the module docs) and reports what happened.
    pub fn tick(&self, opts: &RunOptions<'_>, now: DateTime<Utc>) -> Result<TickReport> {
        self.stamp_tick(now);
        if let Some(report) = self.nothing_due(now) {
            return Ok(report);
        }
        let file = self.load()?;
        let mut report = TickReport::nothing_run(clock::rfc3339(now), file.paused, file.jobs.len());
        if file.paused {
            return Ok(report);
        }
        let mut due = Vec::new();
        for job in &file.jobs {
            match is_due(job, now) {
                Ok(true) => due.push(job.id.as_str()),
                Ok(false) => {}
                Err(e) => report.invalid.push(crate::contracts::InvalidJob {
                    job_id: job.id.clone(),
                    message: e.message,
                }),
            }
        }
        if due.is_empty() || opts.cancel.load(Ordering::SeqCst) {
            return Ok(report);
        }
        let due: HashSet<&str> = due.into_iter().collect();
        let now_s = clock::rfc3339(now);
        // Claim under the lock: a concurrent tick re-reads and finds these jobs not due.
        let (claimed, paused) = self.mutate(|file| {
            if file.paused {
                return Ok(((Vec::new(), true), false));
            }
            let mut claimed = Vec::new();
            for job in file.jobs.iter_mut() {
                if !due.contains(job.id.as_str()) || !is_due(job, now).unwrap_or(false) {
                    continue;
                }
                let due_at = due_time(job, now)?.map(clock::rfc3339);
                let spec = Spec::parse(&job.schedule)?;
                job.last_run = Some(now_s.clone());
                job.last_status = Some("running".into());
                job.last_run_id = None;
                job.next_run = spec.after_run(now).map(clock::rfc3339);
                if spec.is_one_shot() {
                    job.enabled = false;
                }
                claimed.push((job.clone(), due_at));
            }
            let changed = !claimed.is_empty();
            Ok(((claimed, false), changed))
        })?;
        report.paused = paused;
        report.already_claimed = if paused { 0 } else { due.len() - claimed.len() };
        report.skipped = report.jobs - claimed.len();
        report.ran = self.run_claimed(claimed, opts)?;
        report.failed = report.ran.iter().filter(|r| r.status != "ok").count();
        Ok(report)
    }

    /// The fast path of a tick (the common case: cron every minute, nothing due): reads
    /// `jobs.json` once into borrowed fields only, and answers only when it is sure nothing
    /// is due. Anything unusual (a missing file, another shape, a job without a plain
    /// `next_run`) returns `None` so the full path decides.
    fn nothing_due(&self, now: DateTime<Utc>) -> Option<TickReport> {
        if crate::db::is_configured() {
            return None;
        }
        #[derive(serde::Deserialize)]
        struct Peek<'a> {
            #[serde(default = "enabled_default")]
            enabled: bool,
            #[serde(default, borrow)]
            next_run: Option<&'a str>,
        }
        #[derive(serde::Deserialize)]
        struct PeekFile<'a> {
            #[serde(default)]
            paused: bool,
            #[serde(borrow)]
            jobs: Vec<Peek<'a>>,
        }
        fn enabled_default() -> bool {
            true
        }
        let bytes = std::fs::read(&self.jobs).ok()?;
        let file: PeekFile<'_> = serde_json::from_slice(&bytes).ok()?;
        let now_s = clock::rfc3339(now);
        let canonical = |s: &str| s.len() == 20 && s.ends_with('Z') && s.as_bytes()[10] == b'T';
        if !file.paused {
            for job in &file.jobs {
                if !job.enabled {
                    continue;
                }
                let next = job.next_run?;
                let due = if canonical(next) {
                    next <= now_s.as_str() // same fixed-width UTC form: text order is time order
                } else {
                    clock::parse_rfc3339(next).ok()? <= now
                };
                if due {
                    return None;
                }
            }
        }
        Some(TickReport::nothing_run(now_s, file.paused, file.jobs.len()))
    }

    fn run_claimed(
        &self,
        claimed: Vec<(Job, Option<String>)>,
        opts: &RunOptions<'_>,
    ) -> Result<Vec<JobRun>> {
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<(usize, Result<JobRun>)>> = Mutex::new(Vec::new());
        let workers = opts.max_parallel.clamp(1, claimed.len().max(1));
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some((job, due)) = claimed.get(i) else {
                            break;
                        };
                        let r = self.run_one(job, due.clone(), "tick", opts);
                        if let Ok(mut v) = results.lock() {
                            v.push((i, r));
                        }
                    }
                });
            }
        });
        let mut results = results
            .into_inner()
            .map_err(|_| Error::internal("a job runner thread panicked"))?;
        results.sort_by_key(|(i, _)| *i);
        results.into_iter().map(|(_, r)| r).collect()
    }

    fn tick_stamp_path(&self) -> PathBuf {
        self.jobs.with_file_name("last_tick")
    }

    /// Writes the tick's time to `schedule/last_tick`, when the scheduler has a directory (a
    /// tick never creates one). Unsynced and best effort: it is a liveness hint, not a record.
    fn stamp_tick(&self, now: DateTime<Utc>) {
        let path = self.tick_stamp_path();
        if path.parent().is_some_and(Path::is_dir) {
            let _ = std::fs::write(&path, clock::rfc3339(now));
        }
    }

    /// When a tick (cron's `bob schedule tick`, the daemon's, any other) last began, by the
    /// stamp each tick writes; `None` when no tick has run here or the stamp does not parse.
    pub fn last_tick(&self) -> Option<DateTime<Utc>> {
        let text = std::fs::read_to_string(self.tick_stamp_path()).ok()?;
        clock::parse_rfc3339(text.trim()).ok()
    }

    /// The daemon: a tick every `interval` (measured from the start of the last one) until
    /// `opts.cancel` rises. Each tick's outcome goes to `on_tick`; a failed tick (say, a
    /// corrupt `jobs.json`) does not stop the loop, an error `on_tick` returns does.
    pub fn daemon(
        &self,
        opts: &RunOptions<'_>,
        interval: Duration,
        mut on_tick: impl FnMut(Result<TickReport>) -> Result<()>,
    ) -> Result<()> {
        while !opts.cancel.load(Ordering::SeqCst) {
            let began = Instant::now();
            on_tick(clock::now().and_then(|now| self.tick(opts, now)))?;
            while !opts.cancel.load(Ordering::SeqCst) && began.elapsed() < interval {
                let left = interval.saturating_sub(began.elapsed());
                std::thread::sleep(left.min(Duration::from_millis(100)));
            }
        }
        Ok(())
    }

    /// Runs one job now, whatever its schedule, pause or enabled state. Its `next_run` is left
    /// as it is; `lastRun`, `last_status` and `last_run_id` record this run.
    pub fn run_now(&self, id: &str, opts: &RunOptions<'_>) -> Result<JobRun> {
        let job = self.get(id)?;
        self.run_one(&job, None, "manual", opts)
    }

    fn run_one(
        &self,
        job: &Job,
        due: Option<String>,
        trigger: &str,
        opts: &RunOptions<'_>,
    ) -> Result<JobRun> {
        let session = session_of(job);
        let timeout = job
            .timeout_s
            .map(Duration::from_secs)
            .unwrap_or(opts.default_timeout);
        let started = clock::now()?;
        let clock_start = Instant::now();
        let outcome = run_turn(&opts.turn, job, &session, timeout, opts.cancel);
        let finished = clock::now()?;
        let run = JobRun {
            job_id: job.id.clone(),
            trigger: trigger.into(),
            due,
            started: clock::rfc3339(started),
            finished: clock::rfc3339(finished),
            duration_ms: u64::try_from(clock_start.elapsed().as_millis()).unwrap_or(u64::MAX),
            status: outcome.status.into(),
            run_id: outcome.run_id,
            turn_status: outcome.turn_status,
            exit_code: outcome.exit_code,
            error: outcome.error,
            usage: outcome.usage,
            cost: outcome.cost,
            session,
            agent_id: job.agent_id.clone(),
        };
        store::append_jsonl(&self.history, &run)?;
        let claimed_at = job.last_run.clone();
        self.mutate(|file| {
            let Some(current) = file.jobs.iter_mut().find(|j| j.id == job.id) else {
                return Ok(((), false)); // removed while it ran
            };
            if trigger == "tick" {
                // A newer claim supersedes this run's result.
                if current.last_run != claimed_at {
                    return Ok(((), false));
                }
            } else {
                current.last_run = Some(run.started.clone());
            }
            current.last_status = Some(run.status.clone());
            current.last_run_id = run.run_id.clone();
            Ok(((), true))
        })?;
        Ok(run)
    }
}

fn not_found(id: &str) -> Error {
    Error::not_found(format!("no job with id {id:?}")).with("id", id)
}

fn one_shot_done(job: &Job) -> Error {
    Error::conflict(format!(
        "one-shot job {:?} already ran{}; give it a new time with `bob schedule update {} --schedule RFC3339`",
        job.id,
        job.last_run
            .as_deref()
            .map(|t| format!(" at {t}"))
            .unwrap_or_default(),
        job.id
    ))
    .with("id", job.id.clone())
}
