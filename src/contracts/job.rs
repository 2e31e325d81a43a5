//! Scheduler jobs: what `schedule/jobs.json` holds.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Openclawssy scheduler job, plus bob's bookkeeping (`next_run`, `last_status`,
/// `last_run_id`) and two optional knobs (`session`, `timeout_s`).
///
/// ```json
/// {"id":"job_daily_report","agentID":"agent_default","schedule":"@every 1h",
///  "message":"Generate status report","enabled":true,"lastRun":"2026-02-15T00:00:00Z",
///  "next_run":"2026-02-15T01:00:00Z","last_status":"ok","last_run_id":"run_42"}
/// ```
///
/// `schedule` is either `@every <Go duration>` or a one-shot RFC3339 timestamp. `next_run` is
/// when the job is next due (absent once a one-shot job has run). `last_status` is `running`
/// while a tick has claimed the job, then `ok`, `failed`, `timeout` or `cancelled`. `session`
/// is the turn's session id (default `job-<id>`); `timeout_s` bounds one run (default: the
/// runner's `--timeout`, 300 s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Job {
    pub id: String,
    #[serde(
        rename = "agentID",
        alias = "agent_id",
        default,
        skip_serializing_if = "String::is_empty"
    )]
    pub agent_id: String,
    pub schedule: String,
    #[serde(default)]
    pub message: String,
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(
        rename = "lastRun",
        alias = "last_run",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub last_run: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_run: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<u64>,
}

fn yes() -> bool {
    true
}

/// `schedule/jobs.json`: the global pause flag and every job, in creation order.
///
/// ```json
/// {"paused":false,"jobs":[{"id":"job_daily_report","schedule":"@every 1h", "...": "..."}]}
/// ```
///
/// A bare JSON array of jobs (Openclawssy "jobs are persisted as JSON records") is read as an
/// unpaused file; bob always writes the object form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
pub struct JobsFile {
    #[serde(default)]
    pub paused: bool,
    #[serde(default)]
    pub jobs: Vec<Job>,
}

impl<'de> Deserialize<'de> for JobsFile {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
        use serde::de::{MapAccess, SeqAccess, Visitor};

        #[derive(Deserialize)]
        struct Object {
            #[serde(default)]
            paused: bool,
            #[serde(default)]
            jobs: Vec<Job>,
        }
        // A visitor (not an untagged enum) so the file is parsed once, without buffering,
        // and errors keep their line and column.
        struct Shape;
        impl<'de> Visitor<'de> for Shape {
            type Value = JobsFile;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object {\"paused\", \"jobs\"} or an array of jobs")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<JobsFile, A::Error> {
                let jobs = Vec::<Job>::deserialize(SeqAccessDeserializer::new(seq))?;
                Ok(JobsFile {
                    paused: false,
                    jobs,
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<JobsFile, A::Error> {
                let o = Object::deserialize(MapAccessDeserializer::new(map))?;
                Ok(JobsFile {
                    paused: o.paused,
                    jobs: o.jobs,
                })
            }
        }
        d.deserialize_any(Shape)
    }
}

/// One run of a job: a line of `schedule/history.jsonl` and an entry of a tick's `ran`.
///
/// ```json
/// {"job_id":"job_daily_report","trigger":"tick","due":"2026-02-15T01:00:00Z",
///  "started":"2026-02-15T01:00:04Z","finished":"2026-02-15T01:00:09Z","duration_ms":5012,
///  "status":"ok","run_id":"run_42","session":"job-job_daily_report","agentID":"agent_default"}
/// ```
///
/// `trigger` is `tick` (a tick or the daemon) or `manual` (`bob schedule run`); `due` is the
/// `next_run` the tick claimed (absent for manual runs). `status` is `ok`, `failed`, `timeout`
/// or `cancelled`; a failed run carries `error` (the turn's error object) and, when the turn
/// exited, `exit_code`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JobRun {
    pub job_id: String,
    pub trigger: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due: Option<String>,
    pub started: String,
    pub finished: String,
    #[serde(default)]
    pub duration_ms: u64,
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// The turn's token usage and cost, from its turn record; `null` when unknown (no record,
    /// a call without usage, an unpriced model), never 0.
    #[serde(default)]
    pub usage: Option<crate::contracts::Usage>,
    #[serde(default)]
    pub cost: Option<f64>,
    pub session: String,
    #[serde(
        rename = "agentID",
        alias = "agent_id",
        default,
        skip_serializing_if = "String::is_empty"
    )]
    pub agent_id: String,
}

/// What `bob schedule tick` prints: the runs it made and how many jobs it left alone.
///
/// ```json
/// {"now":"2026-02-15T01:00:00Z","paused":false,"jobs":3,"ran":[{"job_id":"a","...":"..."}],
///  "skipped":2,"failed":0,"already_claimed":0}
/// ```
///
/// `skipped` counts jobs that were not due (or disabled, or everything when paused);
/// `failed` counts entries of `ran` whose status is not `ok`; `already_claimed` counts jobs
/// that looked due but that an overlapping tick claimed first; `invalid` lists jobs whose
/// stored fields do not parse (hand-edited files), which are skipped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TickReport {
    pub now: String,
    pub paused: bool,
    pub jobs: usize,
    pub ran: Vec<JobRun>,
    pub skipped: usize,
    pub failed: usize,
    pub already_claimed: usize,
    /// Jobs skipped because their stored fields do not parse.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invalid: Vec<InvalidJob>,
}

/// A job a tick skipped because its stored fields do not parse, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InvalidJob {
    pub job_id: String,
    pub message: String,
}

impl TickReport {
    /// The report of a tick that has run nothing yet: every one of `jobs` counts as skipped.
    pub fn nothing_run(now: String, paused: bool, jobs: usize) -> TickReport {
        TickReport {
            now,
            paused,
            jobs,
            ran: Vec::new(),
            skipped: jobs,
            failed: 0,
            already_claimed: 0,
            invalid: Vec::new(),
        }
    }
}

/// The scheduler paused or resumed as a whole (`bob schedule pause|resume`, the admin API's
/// control): its state and how many jobs it holds.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SchedulerPaused {
    pub paused: bool,
    pub jobs: usize,
}

/// `bob schedule status`: the jobs, the enabled ones, those due now and the next one due.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SchedulerStatus {
    pub paused: bool,
    pub jobs: usize,
    pub enabled: usize,
    pub due: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_due: Option<NextDue>,
}

/// The enabled job due first, and when (RFC 3339).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct NextDue {
    pub job_id: String,
    pub at: String,
}
