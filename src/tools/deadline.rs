//! A tool call's deadline: its `timeout_ms` (clamped by the policy), kept by cancellation.
//!
//! The promise: a call answers `timeout` (exit class 124) at its deadline, never `ok` after
//! it. Three means, by the kind of work:
//!
//! * network waits run under the remaining time ([`Deadline::remaining`]: the domain client
//!   and `http.get` wrap them in a tokio timeout), so a tool that fetches several pages
//!   shares one budget;
//! * CPU work (HTML parsing and extraction, BOM parsing) runs on a worker thread
//!   ([`Deadline::run`]); at the deadline the call answers `timeout` and the worker's result
//!   is dropped. The worker checks the deadline too (the HTML parser is fed 64 KiB at a time,
//!   [`super::domain::html::parse_until`]) and what it cannot stop half-way (one Readability
//!   pass) is bounded by the caps of [`super::domain::html`], so an abandoned worker ends on
//!   its own soon after;
//! * loops that write (a BOM's row file) check [`Deadline::check`] as they go and stop
//!   before committing anything once the deadline has passed.

use crate::error::{Code, Error, Result};
use std::time::{Duration, Instant};

/// When a call must have answered by.
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    at: Instant,
    timeout: Duration,
    tool: &'static str,
}

impl Deadline {
    /// `timeout` from now, for `tool`.
    pub fn after(timeout: Duration, tool: &'static str) -> Deadline {
        Deadline::since(Instant::now(), timeout, tool)
    }

    /// `timeout` from `start`, for `tool`.
    pub fn since(start: Instant, timeout: Duration, tool: &'static str) -> Deadline {
        Deadline {
            at: start + timeout,
            timeout,
            tool,
        }
    }

    /// This deadline moved earlier by a tenth of the budget (at most one second): what a
    /// tool that reports each fetch's failure and still answers gives one fetch, so a hung
    /// server leaves it the time to answer.
    pub fn for_fetch(&self) -> Deadline {
        let reserve = (self.timeout / 10).min(Duration::from_secs(1));
        Deadline {
            at: self.at.checked_sub(reserve).unwrap_or(self.at),
            ..*self
        }
    }

    /// The call's whole budget.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Time left (zero once passed).
    pub fn remaining(&self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }

    pub fn passed(&self) -> bool {
        Instant::now() >= self.at
    }

    /// The `timeout` error of this call.
    pub fn error(&self) -> Error {
        Error::new(
            Code::Timeout,
            format!(
                "{} did not finish within {} ms",
                self.tool,
                self.timeout.as_millis()
            ),
        )
        .retryable(false)
        .with("timeout_ms", self.timeout.as_millis() as u64)
    }

    /// `timeout` once the deadline has passed.
    pub fn check(&self) -> Result<()> {
        if self.passed() {
            return Err(self.error());
        }
        Ok(())
    }

    /// Runs `work` on a worker thread and waits for it until the deadline: its answer, or
    /// `timeout` at the deadline (the worker is left to end on its own; its answer is
    /// dropped). `work` gets the deadline to check as it goes.
    pub fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(Deadline) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        self.check()?;
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let me = *self;
        std::thread::Builder::new()
            .name(format!("bob-{}", self.tool))
            .spawn(move || {
                let _ = tx.send(work(me));
            })
            .map_err(|e| Error::internal(format!("{}: cannot start a worker: {e}", self.tool)))?;
        match rx.recv_timeout(self.remaining()) {
            Ok(r) => r,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(self.error()),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(Error::internal(format!(
                "{}: the worker stopped without an answer",
                self.tool
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_late_is_a_timeout_at_the_deadline() {
        let d = Deadline::after(Duration::from_millis(50), "t.slow");
        let r = d.run(|_| {
            std::thread::sleep(Duration::from_secs(2));
            Ok(1)
        });
        // Had the call waited for the worker, its answer would be `Ok(1)`.
        assert_eq!(r.unwrap_err().code, Code::Timeout);
        let d = Deadline::after(Duration::from_secs(5), "t.fast");
        assert_eq!(d.run(|d| d.check().map(|_| 7)).unwrap(), 7);
        let gone = Deadline::after(Duration::ZERO, "t.none");
        assert_eq!(gone.check().unwrap_err().code, Code::Timeout);
    }
}
