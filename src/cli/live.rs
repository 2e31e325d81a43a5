//! What a person at a terminal sees of an answer (`bob chat`, `bob turn`): the answer's text
//! itself, then one dim footer line (session, tokens, cost, time), and while the model works a
//! spinner, a line per retry and, when streaming, the text as it arrives, printed once.
//!
//! The rule: this view is used only when stdout is a terminal and neither `--json` nor
//! `--format json` was given ([`super::output::Printer::is_human`]). Piped, the commands print
//! their JSON (or JSON Lines) exactly as before and nothing here draws. The spinner and the
//! retry lines go to stderr, and only when stderr is a terminal too; the footer goes to
//! stderr, dimmed only on a terminal, so `bob chat "hi" --format table > file` keeps only the
//! answer.

use crate::backend::LiveEvent;
use crate::error::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Above this many characters, the unfinished last line of a streamed answer is shown up to
/// its last space: its start can no longer turn out to be a scaffold label the sanitizer drops.
const SAFE_PARTIAL_LINE: usize = 40;

/// The facts of the footer line; absent ones are left out.
#[derive(Debug, Default)]
pub struct Footer {
    pub session: Option<String>,
    pub model: Option<String>,
    pub tokens: Option<u64>,
    pub cost: Option<f64>,
    pub elapsed: Duration,
}

impl Footer {
    /// `session s1 · gpt-4o-mini · 42 tokens · $0.0012 · 1.3 s`
    pub fn line(&self) -> String {
        let mut parts = Vec::new();
        if let Some(s) = &self.session {
            parts.push(format!("session {s}"));
        }
        if let Some(m) = &self.model {
            parts.push(m.clone());
        }
        parts.push(match self.tokens {
            Some(t) => format!("{t} tokens"),
            None => "tokens unknown".to_string(),
        });
        if let Some(c) = self.cost {
            parts.push(format!("${c:.4}"));
        }
        parts.push(format!("{:.1} s", self.elapsed.as_secs_f64()));
        parts.join(" · ")
    }
}

/// The live view of one command's answer. Cheap to clone into a backend's watch callback.
#[derive(Clone)]
pub struct Live(Arc<Mutex<State>>);

struct State {
    started: Instant,
    spinner: Option<ProgressBar>,
    /// Whether anything of the answer has been written to stdout.
    wrote: bool,
    /// Whether stdout's last byte is a newline (or nothing was written).
    at_line_start: bool,
    /// Raw text of the current answering call, and what of its sanitized form was printed.
    raw: String,
    printed: String,
    /// The current call's text is shown (it is the answering role's).
    showing: bool,
    /// Cleans raw model output before it is shown (`bob turn`: sanitized and redacted as the
    /// record is); `None`: the text is shown as it arrives (`bob chat`).
    clean: Option<Clean>,
}

/// What makes raw streamed text fit to show.
pub type Clean = Box<dyn Fn(&str) -> String + Send>;

impl Live {
    /// A view that draws a spinner on stderr while waiting (when stderr is a terminal).
    /// `clean`: what streamed text goes through before it is shown (see [`Clean`]).
    pub fn start(label: &str, clean: Option<Clean>) -> Live {
        let spinner = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(
                ProgressStyle::with_template("{spinner} {msg} {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.set_message(label.to_string());
            bar.enable_steady_tick(Duration::from_millis(100));
            bar
        });
        Live(Arc::new(Mutex::new(State {
            started: Instant::now(),
            spinner,
            wrote: false,
            at_line_start: true,
            raw: String::new(),
            printed: String::new(),
            showing: true,
            clean,
        })))
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Time since the view started.
    pub fn elapsed(&self) -> Duration {
        self.state().started.elapsed()
    }

    /// Shows one event of the call or turn in progress.
    pub fn event(&self, event: &LiveEvent) {
        let mut st = self.state();
        match event {
            LiveEvent::Retry { delay, reason, .. } => {
                let line = format!("retrying in {}: {reason}", seconds(*delay));
                match &st.spinner {
                    Some(bar) => bar.println(line),
                    None if std::io::stderr().is_terminal() => eprintln!("{line}"),
                    None => {}
                }
            }
            LiveEvent::Call { role, answers } => {
                // The spinner says which stage the turn is in while nothing is shown yet.
                if let Some(bar) = &st.spinner {
                    bar.set_message(if *answers {
                        format!("answering ({role})")
                    } else {
                        format!("thinking ({role})")
                    });
                }
                st.raw.clear();
                st.printed.clear();
                st.showing = *answers;
                if st.wrote && !st.at_line_start {
                    st.write("\n");
                }
            }
            LiveEvent::Text(t) => {
                if st.showing {
                    st.raw.push_str(t);
                    st.show_stable();
                }
            }
        }
    }

    /// Shows a streamed piece of text as it is, but for control characters (`bob chat`).
    pub fn text(&self, t: &str) {
        self.event(&LiveEvent::Text(&printable(t)));
    }

    /// Ends the view with the whole answer: prints what of `answer` was not yet shown (all of
    /// it when nothing streamed, or when what streamed was not its beginning), then the footer.
    pub fn finish(&self, answer: &str, footer: &Footer) -> Result<()> {
        let mut st = self.state();
        st.clear_spinner();
        let answer = printable(answer);
        let answer = answer.trim_end();
        let rest = if st.printed.is_empty() {
            if st.wrote && !st.at_line_start {
                st.write("\n");
            }
            answer
        } else if let Some(rest) = answer.strip_prefix(st.printed.as_str()) {
            rest
        } else {
            // What streamed was not the answer's beginning (a tool round's preamble): the
            // answer follows on its own line.
            if !st.at_line_start {
                st.write("\n");
            }
            answer
        };
        st.write(rest);
        if !st.at_line_start {
            st.write("\n");
        }
        st.flush()?;
        let line = footer.line();
        let mut err = std::io::stderr().lock();
        let _ = if err.is_terminal() {
            writeln!(err, "\x1b[2m{line}\x1b[0m")
        } else {
            writeln!(err, "{line}")
        };
        Ok(())
    }

    /// Ends the view without an answer (an error follows on stderr).
    pub fn abandon(&self) {
        let mut st = self.state();
        st.clear_spinner();
        if st.wrote && !st.at_line_start {
            st.write("\n");
        }
        let _ = st.flush();
    }
}

impl State {
    fn clear_spinner(&mut self) {
        if let Some(bar) = self.spinner.take() {
            bar.finish_and_clear();
        }
    }

    /// Writes to stdout; a write error (a closed terminal) ends the live text, not the call:
    /// the final write in [`Live::finish`] reports it.
    fn write(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        self.clear_spinner();
        let mut out = std::io::stdout().lock();
        if out.write_all(s.as_bytes()).is_ok() {
            let _ = out.flush();
        }
        self.wrote = true;
        self.at_line_start = s.ends_with('\n');
    }

    fn flush(&mut self) -> Result<()> {
        std::io::stdout()
            .lock()
            .flush()
            .map_err(super::output::stdout_error)
    }

    /// Prints the part of the text so far that can no longer change once cleaned: complete
    /// lines, and a long unfinished line up to its last space.
    fn show_stable(&mut self) {
        let clean = match &self.clean {
            Some(f) => f(&self.raw),
            None => self.raw.clone(),
        };
        let stable: &str = if self.clean.is_none() {
            &clean
        } else {
            let line_start = clean.rfind('\n').map_or(0, |i| i + 1);
            let partial = &clean[line_start..];
            match partial.rfind(' ') {
                Some(i) if partial.chars().count() >= SAFE_PARTIAL_LINE => &clean[..line_start + i],
                _ => &clean[..line_start],
            }
        };
        if let Some(new) = stable.strip_prefix(self.printed.as_str()) {
            let new = new.to_string();
            self.write(&new);
            self.printed.push_str(&new);
        }
    }
}

/// `text` without terminal control sequences' lead bytes and other control characters (but
/// newlines and tabs): model output must not drive the terminal.
fn printable(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
        .collect()
}

/// `2 s`, `0.5 s`.
fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.0} s")
    } else {
        format!("{s:.1} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn footer_names_what_it_knows() {
        let f = Footer {
            session: Some("s1".into()),
            model: None,
            tokens: Some(42),
            cost: None,
            elapsed: Duration::from_millis(1300),
        };
        assert_eq!(f.line(), "session s1 · 42 tokens · 1.3 s");
        let f = Footer {
            cost: Some(0.00123),
            ..Footer::default()
        };
        assert_eq!(f.line(), "tokens unknown · $0.0012 · 0.0 s");
    }

    #[test]
    fn retry_delays_read_as_seconds() {
        assert_eq!(seconds(Duration::from_secs(2)), "2 s");
        assert_eq!(seconds(Duration::from_millis(250)), "0.2 s");
    }
}
