use super::Ctx;
use crate::error::Result;

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args, _ctx: &Ctx) -> Result<()> {
    Err(super::not_yet("sanitize"))
}
