//! `bob runs`: read run bundles (`runs/<run_id>/`).

use super::Ctx;
use crate::error::Result;

#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// List run bundles, newest first (JSON Lines {run_id, session_id, agent_id, status, ts,
    /// tools, output_chars})
    List {
        /// Show at most N
        #[arg(long, default_value_t = 50, value_name = "N")]
        limit: usize,
    },
    /// Show one bundle: {run_id, path, request, record, events, tool_results}
    Show {
        /// The run id (run_…)
        id: String,
    },
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::List { limit } => {
            let rows = crate::runs::list(&ctx.home)?;
            for r in rows.iter().take(limit) {
                ctx.out.line(r)?;
            }
            Ok(())
        }
        Args::Show { id } => ctx.out.doc(&crate::runs::show(&ctx.home, &id)?),
    }
}
