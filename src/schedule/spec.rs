//! The two schedule forms of Openclawssy: `@every <Go duration>` and a one-shot RFC3339
//! timestamp. Everything else (cron expressions, `@daily`, ...) is rejected.

use super::duration::parse_go_duration;
use crate::error::{Error, Result};
use chrono::{DateTime, TimeDelta, Utc};

/// The shortest accepted `@every` interval. Cron calls `tick` once a minute, so anything
/// shorter than a minute runs once per tick; the daemon honours it down to this floor.
pub const MIN_INTERVAL: TimeDelta = TimeDelta::seconds(1);

/// What a job's `schedule` string means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spec {
    /// `@every <duration>`: run, then again `interval` after that run.
    Every(TimeDelta),
    /// A one-shot RFC3339 time: run once at (or after) it, then the job is disabled.
    Once(DateTime<Utc>),
}

/// The text every rejection names.
pub const ACCEPTED_FORMS: &str = "accepted schedules are \"@every <Go duration>\" (for example \"@every 30m\", \"@every 1h30m\", \"@every 1.5h\"; units ns, us, ms, s, m, h; at least 1s) or a one-shot RFC3339 timestamp (for example \"2026-02-18T09:00:00Z\"); cron expressions and descriptors such as @daily are not supported";

fn reject(schedule: &str, why: &str) -> Error {
    Error::invalid(format!("schedule {schedule:?}: {why}; {ACCEPTED_FORMS}"))
        .with("field", "schedule")
        .with(
            "accepted",
            vec!["@every <Go duration>", "RFC3339 timestamp"],
        )
}

impl Spec {
    /// Parses a schedule string; any other form is `invalid.request` naming the accepted ones.
    pub fn parse(schedule: &str) -> Result<Spec> {
        let s = schedule.trim();
        if let Some(rest) = s.strip_prefix("@every") {
            if !rest.starts_with([' ', '\t']) {
                return Err(reject(schedule, "@every needs a duration"));
            }
            let text = rest.trim();
            let nanos = parse_go_duration(text)
                .map_err(|e| reject(schedule, &format!("not a Go duration: {e}")))?;
            if nanos <= 0 {
                return Err(reject(schedule, "the interval must be greater than zero"));
            }
            let interval = TimeDelta::nanoseconds(nanos);
            if interval < MIN_INTERVAL {
                return Err(reject(schedule, "the interval must be at least 1s"));
            }
            return Ok(Spec::Every(interval));
        }
        if s.starts_with('@') {
            return Err(reject(schedule, "only the @every descriptor is supported"));
        }
        if s.split_whitespace().count() >= 5 {
            return Err(reject(schedule, "cron expressions are not supported"));
        }
        match DateTime::parse_from_rfc3339(s) {
            Ok(t) => Ok(Spec::Once(t.with_timezone(&Utc))),
            Err(e) => Err(reject(
                schedule,
                &format!("neither @every nor an RFC3339 timestamp ({e})"),
            )),
        }
    }

    /// When a job with this schedule is first due. An `@every` job created at `now` is due one
    /// interval later, or one interval after its `lastRun` when it carries one (so an imported
    /// job continues from its last run; a past result runs once at the next check). A one-shot
    /// job is due at its time, unless it already ran.
    pub fn first_due(
        &self,
        now: DateTime<Utc>,
        last_run: Option<DateTime<Utc>>,
    ) -> Option<DateTime<Utc>> {
        match *self {
            Spec::Every(interval) => last_run.unwrap_or(now).checked_add_signed(interval),
            Spec::Once(at) => match last_run {
                Some(_) => None,
                None => Some(at),
            },
        }
    }

    /// When the job is due next after a run that started at `run_time`: one interval later
    /// for `@every` (missed intervals are not reconstructed), never for a one-shot job.
    pub fn after_run(&self, run_time: DateTime<Utc>) -> Option<DateTime<Utc>> {
        match *self {
            Spec::Every(interval) => run_time.checked_add_signed(interval),
            Spec::Once(_) => None,
        }
    }

    pub fn is_one_shot(&self) -> bool {
        matches!(self, Spec::Once(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_two_forms() {
        assert_eq!(
            Spec::parse("@every 90s").unwrap(),
            Spec::Every(TimeDelta::seconds(90))
        );
        assert_eq!(
            Spec::parse("@every 2h45m10s").unwrap(),
            Spec::Every(TimeDelta::seconds(2 * 3600 + 45 * 60 + 10))
        );
        assert_eq!(
            Spec::parse("@every 1.5h").unwrap(),
            Spec::Every(TimeDelta::minutes(90))
        );
        let t = Spec::parse("2026-02-18T10:00:00+01:00").unwrap();
        assert_eq!(
            t,
            Spec::Once(crate::clock::parse_rfc3339("2026-02-18T09:00:00Z").unwrap())
        );
    }

    #[test]
    fn rejects_everything_else_naming_the_accepted_forms() {
        for bad in [
            "*/5 * * * *",
            "0 9 * * 1-5",
            "@daily",
            "@hourly",
            "@every",
            "@every ",
            "@every -5m",
            "@every 0s",
            "@every 5x",
            "@every 500ms",
            "@every5m",
            "every 5m",
            "5m",
            "tomorrow",
            "2026-02-18",
            "2026-02-18 09:00",
            "",
        ] {
            let e = Spec::parse(bad).unwrap_err();
            assert_eq!(e.code, crate::error::Code::InvalidRequest, "{bad}");
            assert!(e.message.contains("@every <Go duration>"), "{bad}: {e}");
        }
    }

    #[test]
    fn missed_intervals_are_not_reconstructed() {
        let t0 = crate::clock::parse_rfc3339("2026-02-15T00:00:00Z").unwrap();
        let every = Spec::Every(TimeDelta::hours(1));
        assert_eq!(every.first_due(t0, None), Some(t0 + TimeDelta::hours(1)));
        let late = t0 + TimeDelta::minutes(330);
        assert_eq!(every.after_run(late), Some(late + TimeDelta::hours(1)));
        let once = Spec::Once(t0);
        assert_eq!(once.first_due(late, None), Some(t0));
        assert_eq!(once.first_due(late, Some(t0)), None);
        assert_eq!(once.after_run(late), None);
    }
}
