use super::Ctx;
use crate::error::Result;

#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Not implemented in this build yet
    Pending,
}

pub fn run(_args: Args, _ctx: &Ctx) -> Result<()> {
    Err(super::not_yet("state"))
}
