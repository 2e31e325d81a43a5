//! `bob schema`: the JSON Schema of each published contract type.

use super::Ctx;
use crate::contracts::{SchemaFn, all_schemas};
use crate::error::{Error, Result};

/// Every schema `bob schema` prints: the contracts', then the MTG game's wire.
fn published() -> impl Iterator<Item = &'static (&'static str, SchemaFn)> {
    all_schemas().chain(crate::mtg::action::SCHEMAS)
}

/// Print the JSON Schema of a contract type
///
/// With no NAME (or --list), lists the names.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Contract name, e.g. checkpoint, notes-patch, tool-request, memory-record, job
    pub name: Option<String>,
    /// List the available names
    #[arg(long)]
    pub list: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    let names: Vec<&str> = published().map(|(n, _)| *n).collect();
    match args.name {
        Some(name) if !args.list => {
            let s = published()
                .find(|(n, _)| *n == name)
                .map(|(_, f)| f())
                .ok_or_else(|| {
                    Error::not_found(format!(
                        "no schema named {name:?}; known: {}",
                        names.join(", ")
                    ))
                })?;
            ctx.out.doc(&s)
        }
        _ => ctx.out.rows(&names),
    }
}
