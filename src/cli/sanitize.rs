//! `bob sanitize`: the visible-answer sanitizer (or the prompt-data neutralizer) as a filter.

use super::Ctx;
use super::output::{read_input, write_stdout};
use crate::error::Result;
use crate::sanitize;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Read the text from FILE instead of stdin
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,

    /// Write only the resulting text (and a newline) instead of JSON
    #[arg(long)]
    pub raw: bool,

    /// Neutralize instead: keep the text but rewrite anything that looks like a scaffold marker
    /// so it can no longer open or close a block (for data embedded in a prompt)
    #[arg(long)]
    pub neutralize: bool,
}

/// Reads text on stdin and writes `{text, removed:[kinds]}` (`{text, neutralized}` with
/// `--neutralize`; just the text with `--raw`).
pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    let text = read_input(args.input.as_deref())?;
    if args.neutralize {
        let out = sanitize::neutralize(&text);
        let changed = out != text;
        if args.raw {
            return write_raw(out);
        }
        return ctx.out.doc(&crate::contracts::Neutralized {
            text: out,
            neutralized: changed,
        });
    }
    let report = sanitize::sanitize_report(&text);
    if args.raw {
        return write_raw(report.text);
    }
    ctx.out.doc(&report)
}

fn write_raw(text: String) -> Result<()> {
    let mut bytes = text.into_bytes();
    bytes.push(b'\n');
    write_stdout(&bytes)
}
