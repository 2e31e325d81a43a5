//! `bob schema`: the JSON Schema of each published contract type.

use super::Ctx;
use crate::contracts::{all_schemas, schema};
use crate::error::{Error, Result};

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
    let names: Vec<&str> = all_schemas().map(|(n, _)| *n).collect();
    match args.name {
        Some(name) if !args.list => {
            let s = schema(&name).ok_or_else(|| {
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
