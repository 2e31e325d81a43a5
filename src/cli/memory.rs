//! `bob memory`: short-term entries, candidates and decisions, long-term query, listing,
//! promotion, import/export and the retrieval benchmark.

use super::Ctx;
use super::output::{self, Format};
use crate::contracts::{MemoryGcReport, StmEntry, StmGcReport};
use crate::error::{Error, Result};
use crate::memory::{self, Decision, Memory, ProposeCtx, QueryOpts, io as mio, vectors};
use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;

mod lines;
use lines::{CandidateLine, RecordLine, StmLine, Warning, warn};

#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Store memory candidates (redacted) as pending. Reads a candidate, an array, a
    /// {save_plan|suggest_memory_save|memory_candidates: …} wrapper, or THINK output with
    /// <<<MEMORY_CANDIDATES_JSON>>> … <<<END_MEMORY_CANDIDATES_JSON>>> blocks (at most 2 taken)
    ///
    /// `type` is one of preference, fact, procedure, project_decision, mtg_profile, mtg_lesson
    /// (the Bob v0 runtime), lesson or reference (default fact); `source` one of user_said,
    /// assistant_inferred, tool_output (the Bob v0 runtime), practice, mtg_journal, web.search or
    /// tool:<name> (default assistant_inferred). Anything else is invalid.request and nothing is stored.
    Propose {
        /// Read from FILE instead of stdin
        #[arg(long, value_name = "FILE")]
        input: Option<PathBuf>,
        /// Memory user or profile name
        #[arg(long, default_value = "default")]
        user: String,
        /// Session the candidates came from (kept as provenance)
        #[arg(long)]
        session: Option<String>,
        /// Run the candidates came from (kept as provenance)
        #[arg(long)]
        run: Option<String>,
    },
    /// List candidates (JSON Lines), oldest first
    Candidates {
        /// Only candidates with this status
        #[arg(long, value_parser = ["pending", "approved", "rejected"])]
        status: Option<String>,
        /// Only this memory user's (or profile's) candidates [default: every user's]
        #[arg(long)]
        user: Option<String>,
    },
    /// Approve a pending candidate (optionally edited): ledger record first, then LTM.
    /// A candidate already decided is a conflict (exit 5)
    Approve {
        /// The candidate's id (cand_…, from `bob memory candidates`)
        id: String,
        /// JSON object of candidate fields to replace before storing (an "edit" decision);
        /// `type` and `source` must be among the accepted values (see `memory propose`)
        #[arg(long, value_name = "JSON")]
        edit: Option<String>,
        /// Who decided [default: $BOB_ACTOR, else $USER, else "human"]
        #[arg(long)]
        actor: Option<String>,
        /// Memory user or profile name the candidate must belong to (not_found otherwise)
        #[arg(long)]
        user: Option<String>,
    },
    /// Reject a pending candidate; the decision and reason go to the ledger
    Reject {
        /// The candidate's id (cand_…, from `bob memory candidates`)
        id: String,
        /// Why it is rejected (recorded on the ledger)
        #[arg(long)]
        reason: String,
        /// Who decided [default: $BOB_ACTOR, else $USER, else "human"]
        #[arg(long)]
        actor: Option<String>,
        /// Memory user or profile name the candidate must belong to (not_found otherwise)
        #[arg(long)]
        user: Option<String>,
    },
    /// Ranked query of long-term memory (JSON Lines hits; --format block renders the
    /// RETRIEVED_MEMORY block)
    ///
    /// Lexical ranking is SQLite full-text search; semantic ranking compares embeddings
    /// (memory.embeddings); hybrid fuses both (0.85 × cosine + 0.15 × lexical score) and gives each
    /// hit both component scores (lexical_score, semantic_score). Without --mode: hybrid when
    /// embeddings are configured (falling back to lexical, with a warning, when the embedder
    /// cannot be used), else lexical.
    Query {
        /// What to look for (full-text, ranked)
        text: String,
        /// Number of hits
        #[arg(short, long, default_value_t = 5)]
        k: usize,
        /// How hits are ranked [default: hybrid with embeddings configured, else lexical]
        #[arg(long, value_parser = ["lexical", "semantic", "hybrid"])]
        mode: Option<String>,
        /// Only records carrying every one of these tags (comma-separated or repeated)
        #[arg(long, value_delimiter = ',')]
        tags: Vec<String>,
        /// Memory user or profile name
        #[arg(long, default_value = "default")]
        user: String,
    },
    /// List short-term or long-term memory (JSON I/O memory_admin)
    List {
        /// Which memory to list
        #[arg(long, value_parser = ["short_term", "long_term"], default_value = "long_term")]
        scope: String,
        /// At most this many entries, newest first
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// Include record bodies
        #[arg(long)]
        include_body: bool,
        /// Memory user or profile name
        #[arg(long, default_value = "default", conflicts_with = "all_users")]
        user: String,
        /// Every user's entries
        #[arg(long)]
        all_users: bool,
    },
    /// Short-term memory entries
    #[command(subcommand)]
    Stm(StmArgs),
    /// Nominate short-term entries (access_count >= 3, sessions_seen >= 2, live, not tainted)
    /// as pending candidates; each entry is attempted once
    Promote {
        /// Show what would be nominated; change nothing
        #[arg(long)]
        dry_run: bool,
        /// Only this memory user's (or profile's) entries [default: every user's]
        #[arg(long)]
        user: Option<String>,
    },
    /// Practice/learn consolidation (the Bob v0 runtime): propose pending candidates from what happened
    /// since the cutoff: tools that failed in two or more calls across the turns in turns.jsonl
    /// (at most 2), and p1's MTG lessons of every game journaled under mtg/ that started then
    /// and has ended. Never writes long-term memory: approve or reject what it proposes
    Practice {
        /// How far back to look: a duration such as 30m, 24h or 7d
        #[arg(long, value_name = "DURATION", default_value = "7d")]
        since: String,
        /// Memory user or profile name
        #[arg(long, default_value = "default")]
        user: String,
    },
    /// Remove expired long-term records (recorded on the ledger) and expired short-term entries
    Gc {
        /// Who is recorded on the ledger [default: $BOB_ACTOR, else $USER, else "human"]
        #[arg(long)]
        actor: Option<String>,
        /// Only this memory user's (or profile's) records and entries [default: every user's]
        #[arg(long)]
        user: Option<String>,
    },
    /// Import memory records: markdown files or JSON Lines (JSON I/O records, `memory export`
    /// lines); one ledger record per batch
    ///
    /// PATH is a file or a directory (walked for *.md, *.markdown, *.jsonl, *.ndjson). A file
    /// is JSON Lines when it is named *.jsonl or *.ndjson, or when its first non-blank line is
    /// a whole JSON object; otherwise it is one markdown document. --jsonl / --markdown force
    /// the format. A record's JSON I/O UUID id is kept; other ids become content ids. A
    /// progress bar is drawn on stderr when it is a terminal.
    Import {
        /// A file or a directory of files to import
        path: PathBuf,
        /// Read every file as JSON Lines (one record per line)
        #[arg(long, conflicts_with = "markdown")]
        jsonl: bool,
        /// Read every file as one markdown document
        #[arg(long)]
        markdown: bool,
        /// Memory user for records that name none
        #[arg(long, default_value = "default")]
        user: String,
        /// Who is recorded on the ledger [default: $BOB_ACTOR, else $USER, else "human"]
        #[arg(long)]
        actor: Option<String>,
    },
    /// Embed long-term records with the configured embedder (memory.embeddings): every
    /// record, replacing the vectors of an earlier model, or with --missing only the queued
    /// ones (records with no vector of the configured model). A progress bar is drawn on
    /// stderr when it is a terminal
    Reindex {
        /// Only records that have no vector of the configured model yet
        #[arg(long)]
        missing: bool,
    },
    /// Print the memory record a markdown file converts to (as `memory import` would store
    /// it: title, summary, facts, tags and front matter, token estimate), without storing it
    Convert {
        /// The markdown file (front matter optional)
        path: PathBuf,
        /// Memory user the record is for
        #[arg(long, default_value = "default")]
        user: String,
    },
    /// Write every long-term record as JSON Lines, or with --index the tag index
    Export {
        /// Only this memory user's (or profile's) records [default: every user's]
        #[arg(long)]
        user: Option<String>,
        /// Write the tag index (the seed's index.json) instead of the records: one JSON
        /// document {records, tags: {tag: [ids]}, memories: {id: metadata without the body}}
        #[arg(long)]
        index: bool,
        /// Write to FILE (atomically) instead of stdout
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Retrieval quality: a LongMemEval-format dataset (a JSON array: recall_any@{1,5,10},
    /// NDCG@10), or a JSON Lines evaluation set per ranking mode
    ///
    /// A JSON Lines set has `{"memories":[{"id","text"}…]}` lines and
    /// `{"query","relevant":[ids]}` lines. Each mode (lexical; semantic and hybrid when
    /// memory.embeddings is configured) reports recall@1/5/10, MRR, nDCG@10 and the query
    /// latency p50/p95 (the query's embedding included), side by side.
    Bench {
        /// The dataset: a LongMemEval JSON file (questions with their haystack sessions)
        #[arg(long, value_name = "FILE")]
        dataset: PathBuf,
        /// Include per-question results (LongMemEval), or each query's best 40 per mode with
        /// both component scores (JSON Lines set)
        #[arg(long)]
        detail: bool,
        /// JSON Lines set: also measure the latency with the store grown to N records
        /// (copies of the set's memories)
        #[arg(long, value_name = "N")]
        scale: Option<usize>,
    },
}

#[derive(Debug, clap::Subcommand)]
pub enum StmArgs {
    /// Write one entry (JSON on stdin: intent, resolution, open_questions<=3, tools_used,
    /// entities); at most 3072 bytes of content; the oldest beyond 200 per user is evicted
    Add {
        /// Read from FILE instead of stdin
        #[arg(long, value_name = "FILE")]
        input: Option<PathBuf>,
        /// Memory user or profile name [default: default]
        #[arg(long)]
        user: Option<String>,
        /// Session the entry comes from
        #[arg(long)]
        session: Option<String>,
        /// The turn failed: refuse, write nothing
        #[arg(long)]
        error_state: bool,
    },
    /// Record an access: access_count+1, last_accessed, session added to sessions_seen
    Touch {
        /// The entry's id (from `bob memory stm list`)
        id: String,
        /// Session that used the entry (added to sessions_seen)
        #[arg(long)]
        session: Option<String>,
        /// Memory user or profile name the entry must belong to (not_found otherwise)
        #[arg(long)]
        user: Option<String>,
        /// The turn failed: refuse, record nothing
        #[arg(long)]
        error_state: bool,
    },
    /// Live entries, newest first
    List {
        /// Memory user or profile name
        #[arg(long, default_value = "default", conflicts_with = "all_users")]
        user: String,
        /// Every user's entries
        #[arg(long)]
        all_users: bool,
        /// At most this many entries
        #[arg(long, default_value_t = 200)]
        limit: usize,
    },
    /// Delete entries older than 72 hours
    Gc {
        /// Only this memory user's (or profile's) entries [default: every user's]
        #[arg(long)]
        user: Option<String>,
    },
}

/// `--actor`, else the `cli.actor` setting (`BOB_ACTOR`, `USER`, config), else `human`.
fn actor(settings: &crate::settings::Settings, a: Option<String>) -> String {
    a.filter(|s| !s.trim().is_empty())
        .or_else(|| settings.text("cli.actor").map(str::to_string))
        .unwrap_or_else(|| "human".into())
}

/// What the subcommand reads when it reads stdin, for the note a person at a terminal sees.
pub fn stdin_expectation(args: &Args) -> &'static str {
    match args {
        Args::Propose { .. } => {
            "assistant text with MEMORY_CANDIDATES_JSON blocks, or candidates JSON"
        }
        Args::Stm(StmArgs::Add { .. }) => "a short-term entry JSON {intent, resolution, …}",
        Args::Import { .. } => "memory records (JSON Lines or markdown)",
        Args::Bench { .. } => "a LongMemEval dataset JSON or a JSON Lines evaluation set",
        _ => "memory JSON",
    }
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::Query {
            text,
            k,
            mode,
            tags,
            user,
        } => query(ctx, &text, k, mode.as_deref(), tags, &user),
        Args::Reindex { missing } => {
            let m = Memory::open(&ctx.home)?;
            let mut bar = None;
            let report = m.reindex(missing, &mut |done, total| {
                bar.get_or_insert_with(|| ctx.out.progress(Some(total as u64), "embedding"))
                    .set(done as u64);
            })?;
            drop(bar);
            ctx.out.doc(&report)
        }
        Args::Propose {
            input,
            user,
            session,
            run,
        } => {
            let text = output::read_input(input.as_deref())?;
            let found = memory::extract_candidates(&text)?;
            let m = Memory::open(&ctx.home)?;
            if found.dropped > 0 {
                warn(Warning::Dropped {
                    dropped_candidates: found.dropped,
                    reason: format!(
                        "at most {} candidates per THINK output",
                        memory::candidates::MAX_PER_THINK
                    ),
                });
            }
            let mut rows = Vec::new();
            for c in found.candidates {
                rows.push(m.propose(
                    c,
                    ProposeCtx {
                        user: Some(user.clone()),
                        session_id: session.clone(),
                        run_id: run.clone(),
                    },
                )?);
            }
            ctx.out.rows(&rows)
        }
        Args::Practice { since, user } => {
            let window = memory::practice::parse_since(&since)?;
            let m = Memory::open_read(&ctx.home)?;
            let out = memory::practice::practice(
                &ctx.home,
                &m,
                crate::clock::now()?,
                window,
                &since,
                Some(user),
            )?;
            ctx.out.doc(&out)
        }
        Args::Candidates { status, user } => {
            let m = Memory::open_read(&ctx.home)?;
            let rows = m.candidates(status.as_deref(), user.as_deref())?;
            if ctx.out.is_human() {
                let t: Vec<CandidateLine> = rows
                    .iter()
                    .map(|r| CandidateLine {
                        id: &r.id,
                        status: &r.status,
                        user: &r.user,
                        kind: &r.candidate.kind,
                        text: &r.candidate.text,
                        created_at: &r.created_at,
                    })
                    .collect();
                return ctx.out.rows(&t);
            }
            ctx.out.rows(&rows)
        }
        Args::Approve {
            id,
            edit,
            actor: a,
            user,
        } => {
            let decision = match edit {
                None => Decision::Approve,
                Some(e) => Decision::Edit(output::parse_json("--edit", &e)?),
            };
            let m = Memory::open(&ctx.home)?;
            ctx.out
                .doc(&m.decide_for(&id, decision, &actor(&ctx.settings, a), user.as_deref())?)
        }
        Args::Reject {
            id,
            reason,
            actor: a,
            user,
        } => {
            let m = Memory::open(&ctx.home)?;
            ctx.out.doc(&m.decide_for(
                &id,
                Decision::Reject { reason },
                &actor(&ctx.settings, a),
                user.as_deref(),
            )?)
        }
        Args::List {
            scope,
            limit,
            include_body,
            user,
            all_users,
        } => {
            let user = (!all_users).then_some(user.as_str());
            list(ctx, &scope, limit, include_body, user)
        }
        Args::Stm(s) => stm(ctx, s),
        Args::Promote { dry_run, user } => {
            let m = Memory::open(&ctx.home)?;
            ctx.out.rows(&m.promote(user.as_deref(), dry_run)?)
        }
        Args::Gc { actor: a, user } => {
            let m = Memory::open(&ctx.home)?;
            let ltm = m.ltm_gc(&actor(&ctx.settings, a), user.as_deref())?;
            let stm = m.stm_gc(user.as_deref())?;
            ctx.out.doc(&MemoryGcReport {
                long_term_removed: ltm,
                short_term_removed: stm,
            })
        }
        Args::Import {
            path,
            jsonl,
            markdown,
            user,
            actor: a,
        } => {
            let force = if jsonl {
                Some(mio::SourceFormat::JsonLines)
            } else if markdown {
                Some(mio::SourceFormat::Markdown)
            } else {
                None
            };
            import(ctx, &path, force, &user, &actor(&ctx.settings, a))
        }
        Args::Convert { path, user } => {
            crate::ids::check_user("user", &user)?;
            let text = output::read_input(Some(&path))?;
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let now = crate::clock::rfc3339(crate::clock::now()?);
            let redactor = crate::redact::Redactor::load(&ctx.home)?;
            // Secrets masked as on import; the id follows the masked content.
            let record = mio::record_from_markdown(&text, &stem, &user, &now);
            ctx.out.doc(&mio::masked_record(&redactor, record, &user)?)
        }
        Args::Export {
            user,
            index,
            output,
        } => {
            let m = Memory::open_read(&ctx.home)?;
            if index {
                let ix = m.export_index(user.as_deref())?;
                return match output {
                    Some(p) => {
                        let mut buf = serde_json::to_vec_pretty(&ix)
                            .map_err(|e| Error::internal(e.to_string()))?;
                        buf.push(b'\n');
                        crate::store::write_bytes_atomic(&p, &buf)
                    }
                    None => ctx.out.doc(&ix),
                };
            }
            match output {
                Some(p) => m.export_file(user.as_deref(), &p).map(drop),
                None => {
                    let stdout = std::io::stdout();
                    let mut out = std::io::BufWriter::new(stdout.lock());
                    m.export_to(user.as_deref(), &mut out, &output::stdout_error)?;
                    out.flush().map_err(output::stdout_error)
                }
            }
        }
        Args::Bench {
            dataset,
            detail,
            scale,
        } => {
            let text = output::read_input(Some(&dataset))?;
            if memory::relevance::is_jsonl_set(&text) {
                let mut bar = None;
                let report = memory::relevance::run(&text, scale, detail, &mut |done, total| {
                    bar.get_or_insert_with(|| ctx.out.progress(Some(total as u64), "benchmark"))
                        .set(done as u64);
                })?;
                drop(bar);
                return ctx.out.doc(&report);
            }
            let mut bar = None;
            let report = memory::bench::run_longmemeval_with(&text, detail, &mut |done, total| {
                bar.get_or_insert_with(|| ctx.out.progress(Some(total as u64), "questions"))
                    .set(done as u64);
            })?;
            drop(bar);
            ctx.out.doc(&report)
        }
    }
}

fn query(
    ctx: &Ctx,
    text: &str,
    k: usize,
    mode: Option<&str>,
    tags: Vec<String>,
    user: &str,
) -> Result<()> {
    let block = ctx.out.format() == Some(Format::Block);
    let strict = mode.is_some();
    let mode = match mode {
        Some(m) => vectors::Mode::parse(m)?,
        None => vectors::Mode::default_for(memory::embed::provider()),
    };
    let hits = if ctx.home.memory_db().exists() || crate::db::is_configured() {
        let m = Memory::open_query(&ctx.home)?;
        if let Some(b) = rank_budget(&ctx.settings)? {
            m.set_rank_budget(b);
        }
        let ranked = m.query_ranked(
            text,
            &QueryOpts {
                k,
                tags: tags.into_iter().filter(|t| !t.trim().is_empty()).collect(),
                user: user.to_string(),
            },
            mode,
            strict,
        )?;
        if let Some(why) = &ranked.fallback {
            warn(Warning::Lexical {
                ranking: "lexical",
                fallback: why,
            });
        }
        if ranked.unembedded > 0 {
            warn(Warning::Unembedded {
                unembedded: ranked.unembedded,
                note: "these memories are found lexically only until `bob memory reindex --missing`",
            });
        }
        ranked.hits
    } else {
        crate::ids::check_user("user", user)?;
        Vec::new()
    };
    if block {
        return output::write_stdout(memory::render_block(&hits).as_bytes());
    }
    ctx.out.rows(&hits)
}

/// `memory.rank_budget` (`BOB_MEMORY_RANK_BUDGET`): a row count, or `exact` to rank every
/// match (benchmarks, tests); `None` when not set (the library's default applies).
fn rank_budget(settings: &crate::settings::Settings) -> Result<Option<Option<u64>>> {
    if !settings.is_set("memory.rank_budget") {
        return Ok(None);
    }
    let v = settings.text("memory.rank_budget").unwrap_or_default();
    if v.trim() == "exact" {
        return Ok(Some(None));
    }
    v.trim().parse::<u64>().map(|n| Some(Some(n))).map_err(|_| {
        Error::invalid(format!(
            "BOB_MEMORY_RANK_BUDGET must be a row count or `exact`, not {v:?}"
        ))
    })
}

fn list(
    ctx: &Ctx,
    scope: &str,
    limit: usize,
    include_body: bool,
    user: Option<&str>,
) -> Result<()> {
    let m = Memory::open_read(&ctx.home)?;
    let human = ctx.out.is_human();
    if scope == "short_term" {
        let entries = m.stm_list(user, limit)?;
        if human {
            let t: Vec<StmLine> = entries
                .iter()
                .map(|e| StmLine {
                    id: &e.id,
                    user: &e.user,
                    intent: &e.intent,
                    created_at: &e.created_at,
                    access_count: e.access_count,
                    sessions: e.sessions_seen.len(),
                })
                .collect();
            return ctx.out.rows(&t);
        }
        return ctx.out.rows(&entries);
    }
    let records = m.ltm_list(user, limit)?;
    if human {
        let t: Vec<RecordLine> = records
            .iter()
            .map(|r| RecordLine {
                id: &r.id,
                user: &r.user,
                title: &r.title,
                tags: &r.tags,
                created_at: &r.created_at,
                ttl_days: r.ttl_days,
                promoted_from: r.metadata.get("promoted_from"),
                body_md: include_body.then_some(r.body_md.as_str()),
                summary: (!include_body).then_some(r.summary.as_str()),
            })
            .collect();
        return ctx.out.rows(&t);
    }
    let rows: Vec<Value> = records
        .into_iter()
        .map(|r| {
            let mut v = serde_json::to_value(&r).unwrap_or(Value::Null);
            if !include_body && let Value::Object(m) = &mut v {
                m.shift_remove("body_md");
            }
            v
        })
        .collect();
    ctx.out.rows(&rows)
}

/// `--error-state`: a turn in an error state writes no short-term memory.
fn refuse_in_error_state(error_state: bool) -> Result<()> {
    if error_state {
        return Err(Error::denied(
            "no short-term memory is written while the turn is in an error state",
        )
        .with("flag", "--error-state"));
    }
    Ok(())
}

fn stm(ctx: &Ctx, args: StmArgs) -> Result<()> {
    match args {
        StmArgs::Add {
            input,
            user,
            session,
            error_state,
        } => {
            refuse_in_error_state(error_state)?;
            let text = output::read_input(input.as_deref())?;
            let mut e: StmEntry = output::parse_json("stm entry", &text)?;
            if let Some(u) = user {
                e.user = u;
            }
            if session.is_some() {
                e.session_id = session;
            }
            let m = Memory::open_fast(&ctx.home)?;
            ctx.out.doc(&m.stm_add(e)?)
        }
        StmArgs::Touch {
            id,
            session,
            user,
            error_state,
        } => {
            refuse_in_error_state(error_state)?;
            let m = Memory::open_fast(&ctx.home)?;
            if let Some(u) = user {
                let u = m.resolve_user(&u)?;
                if m.stm_owner(&id)?.is_some_and(|owner| owner != u) {
                    return Err(Error::not_found(format!(
                        "no live short-term entry {id:?} for user {u:?}"
                    ))
                    .with("id", id.as_str())
                    .with("user", u));
                }
            }
            ctx.out.doc(&m.stm_touch(&id, session.as_deref())?)
        }
        StmArgs::List {
            user,
            all_users,
            limit,
        } => {
            let m = Memory::open_read(&ctx.home)?;
            let user = (!all_users).then_some(user.as_str());
            ctx.out.rows(&m.stm_list(user, limit)?)
        }
        StmArgs::Gc { user } => {
            let m = Memory::open_fast(&ctx.home)?;
            ctx.out.doc(&StmGcReport {
                short_term_removed: m.stm_gc(user.as_deref())?,
            })
        }
    }
}

fn import(
    ctx: &Ctx,
    path: &std::path::Path,
    format: Option<mio::SourceFormat>,
    user: &str,
    actor: &str,
) -> Result<()> {
    let max_bytes = ctx
        .settings
        .u64("memory.import_max_bytes")?
        .unwrap_or(mio::DEFAULT_IMPORT_MAX_BYTES);
    let m = Memory::open(&ctx.home)?;
    let request = mio::ImportRequest {
        path,
        format,
        user,
        actor,
        max_bytes,
    };
    let mut bar: Option<super::progress::Progress> = None;
    let report = m.import_path(&request, &mut |done, total| {
        let b = bar.get_or_insert_with(|| ctx.out.progress(total.map(|n| n as u64), "importing"));
        if let Some(n) = total {
            b.set_total(n as u64);
        }
        b.set(done as u64);
    })?;
    if let Some(b) = &bar {
        b.show_final();
    }
    drop(bar);
    ctx.out.doc(&report)
}
