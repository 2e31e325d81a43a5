//! What a person at a terminal sees while a command works: a progress bar for long loops and a
//! one-line note when a command waits on a terminal stdin.
//!
//! Both go to stderr, and only when it is a terminal: stdout carries data only, and a command
//! whose stderr is a pipe or a file (a cron job, CI, a test) never gets a bar or a note. `--json`
//! also turns bars off (docs/design.md#conventions: human views only on a terminal and never in JSON mode).
//! A bar is drawn at most 10 times a second by indicatif and cleared when the loop ends, so
//! nothing of it is left in a terminal's scrollback.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::OnceLock;

/// A progress bar on stderr, or nothing at all when stderr is not a terminal.
pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// A bar counting `len` items (a spinner with a count when `len` is unknown), labelled
    /// `what`; hidden unless `enabled` (see [`super::output::Printer::progress`]) and stderr is
    /// a terminal.
    pub fn new(enabled: bool, len: Option<u64>, what: &str) -> Progress {
        if !enabled || !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = match len {
            Some(n) => ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr())
                .with_style(bar_style()),
            None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(
                ProgressStyle::with_template("{spinner} {msg} {human_pos} ({per_sec})")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            ),
        };
        bar.set_message(what.to_string());
        Progress(Some(bar))
    }

    /// A bar that draws nothing.
    pub fn hidden() -> Progress {
        Progress(None)
    }

    /// Whether anything is drawn.
    pub fn is_visible(&self) -> bool {
        self.0.is_some()
    }

    /// Counts `n` more items done.
    pub fn inc(&self, n: u64) {
        if let Some(b) = &self.0 {
            b.inc(n);
        }
    }

    /// Sets the count of items done.
    pub fn set(&self, pos: u64) {
        if let Some(b) = &self.0 {
            b.set_position(pos);
        }
    }

    /// Sets the count of items in all, once it is known: a spinner becomes a bar.
    pub fn set_total(&self, len: u64) {
        if let Some(b) = &self.0
            && b.length() != Some(len)
        {
            if b.length().is_none() {
                b.set_style(bar_style());
            }
            b.set_length(len);
        }
    }

    /// Draws the bar as it stands now (the final count), whatever the refresh rate; it is
    /// still cleared when dropped.
    pub fn show_final(&self) {
        if let Some(b) = &self.0 {
            b.finish();
        }
    }

    /// Changes the label.
    pub fn message(&self, what: &str) {
        if let Some(b) = &self.0 {
            b.set_message(what.to_string());
        }
    }
}

fn bar_style() -> ProgressStyle {
    ProgressStyle::with_template("{msg} [{bar:30}] {human_pos}/{human_len} ({per_sec}, eta {eta})")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ")
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

/// What this process's command reads on stdin, set once by [`super::main`].
static STDIN_EXPECTS: OnceLock<&'static str> = OnceLock::new();

/// Records what the command reads on stdin (for [`note_waiting_on_stdin`]).
pub fn expect_on_stdin(what: &'static str) {
    let _ = STDIN_EXPECTS.set(what);
}

/// Called just before a command reads stdin: when stdin and stderr are both terminals (a
/// person typing, not a pipe), says on stderr what the command is waiting for, so it does not
/// look hung.
pub fn note_waiting_on_stdin() {
    if !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
        return;
    }
    let what = STDIN_EXPECTS.get().copied().unwrap_or("JSON input");
    // One write for the whole line: `eprintln!` writes each piece of its format on its own
    // (stderr is unbuffered), and what the person types, echoed by the terminal, could land
    // between them.
    let line = format!("bob: reading {what} on stdin (Ctrl-D to end)\n");
    let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
}
