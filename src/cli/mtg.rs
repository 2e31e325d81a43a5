//! `bob mtg …`: the Magic: The Gathering engine (`crate::mtg`) driven from the command line.
//! Games live under `<home>/mtg/<game_id>/` (state.json, journal.jsonl, summary.json).

use super::Ctx;
use super::output::{parse_json, read_input};
use crate::error::{Error, Result};
use crate::memory::mtg_lessons;
use crate::mtg::action::{ActionRequest, Viewer, surface, visible};
use crate::mtg::agents::{Agent, AgentKind, selfplay_with};
use crate::mtg::apply;
use crate::mtg::cards::{self, CardData, Pool, kw};
use crate::mtg::decks::{self, Deck};
use crate::mtg::journal::{self, GameFiles, Start};
use crate::mtg::state::{Seat, State};
use crate::mtg::{game, model};
use crate::store;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Start a game from two decks, or from a position (--setup POSITION.json)
    ///
    /// A deck is a built-in deck name (`bob mtg decks`) or a decklist file: JSON
    /// ({name?, cards:[{count, name}]}) or text lines `4 Grizzly Bears`. A position is
    /// {active, turn, step, seed?, players:{p1:{life, library, hand, graveyard,
    /// battlefield:[{card, tapped?, sick?, damage?}], lands_played?}, p2:{…}}}; libraries are
    /// drawn from the front. Prints {game_id, state_hash, events, decision}. An existing game id
    /// is a conflict (exit 5); bad decks or positions are invalid.request and write nothing.
    New(NewArgs),
    /// Print the visible state for one viewer (hidden zones as counts)
    State(StateArgs),
    /// Print the ActionSurface {decision_id, player, kind, options} for whoever must decide
    ///
    /// With --as SEAT the options are shown only when SEAT decides (else `waiting_for`); the
    /// options of a hidden-information decision (cards to bottom or discard) are shown only
    /// --as the seat that decides.
    Actions(ActionsArgs),
    /// Apply one action {decision_id, type, …} read from stdin (or --input FILE)
    ///
    /// The action is checked against the current ActionSurface: an illegal, stale (wrong
    /// decision_id) or malformed action is invalid.request (exit 2) and changes nothing. A
    /// game another process is changing at that moment is a conflict (exit 5). Prints
    /// {accepted, events, state_hash, decision}; the decision's options are shown only when
    /// the same player decides again (the other player reads them with `bob mtg actions`).
    Act(ActArgs),
    /// Print the JSON Schema of an action (get_action_schema)
    Schema,
    /// Print a game's journal (JSON Lines)
    Journal(GameArg),
    /// Re-run a game's journal from its start and compare every state hash
    Replay(GameArg),
    /// List the card pool, or import Scryfall card objects (`cards import FILE`)
    Cards(CardsArgs),
    /// List the built-in decks
    Decks,
    /// Play many games in this process and report games/s, wins, turns and invariant checks
    Selfplay(SelfplayArgs),
    /// Ask a tutoring question about a game; the chat model answers from the asker's visible
    /// state only, and question and answer go into the journal
    Ask(AskArgs),
    /// Propose MTGLessons for one seat of a game as pending memory candidates
    ///
    /// 1-3 `mtg_lesson` and 1-2 `mtg_profile` candidates, tagged by deck, archetype and skill
    /// area, drawn from the journal (habits, never hand contents). They go through the normal
    /// approval path (`bob memory candidates`, `bob memory approve`); nothing is written to
    /// long-term memory. A finished game proposes both seats' lessons by itself.
    Lessons(LessonsArgs),
    /// Let agents (random, heuristic, human) play a game to its end, journaling each decision
    ///
    /// A `human` agent gets {state, decision} as one JSON line on stdout and answers with one
    /// action JSON line on stdin; an illegal answer is reported on stderr and asked again.
    Play(PlayArgs),
}

#[derive(Debug, clap::Args)]
pub struct GameArg {
    /// Game id (letters, digits, . _ - : @)
    #[arg(long, value_name = "ID")]
    pub game: String,
}

#[derive(Debug, clap::Args)]
pub struct NewArgs {
    /// A deck for p1, then one for p2 (built-in name or decklist file)
    #[arg(long, value_name = "DECK", num_args = 1, conflicts_with = "setup")]
    pub deck: Vec<String>,
    /// Start from this position file instead of decks
    #[arg(long, value_name = "POSITION.json")]
    pub setup: Option<PathBuf>,
    /// Seed of the game's random stream (shuffles, starting player)
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Game id [default: a new random id]
    #[arg(long, value_name = "ID")]
    pub game: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct StateArgs {
    /// Game id
    #[arg(long, value_name = "ID")]
    pub game: String,
    /// Viewer: p1, p2 or all (the engine's full view) [default: the player who must decide]
    #[arg(long = "as", value_name = "VIEWER", value_parser = ["p1", "p2", "all"])]
    pub viewer: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct ActionsArgs {
    /// Game id
    #[arg(long, value_name = "ID")]
    pub game: String,
    /// The seat asking: options are shown only for its own decision
    #[arg(long = "as", value_name = "SEAT", value_parser = ["p1", "p2"])]
    pub seat: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct ActArgs {
    /// Game id
    #[arg(long, value_name = "ID")]
    pub game: String,
    /// Read the action from FILE instead of stdin
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct CardsArgs {
    #[command(subcommand)]
    pub command: Option<CardsCommand>,
}

#[derive(Debug, clap::Subcommand)]
pub enum CardsCommand {
    /// Add the playable cards of a Scryfall file (bulk oracle_cards list or a search result
    /// {data:[…]}) to this home's pool; lists the refused ones with the reason
    Import {
        /// The Scryfall JSON file
        file: PathBuf,
    },
}

#[derive(Debug, clap::Args)]
pub struct AskArgs {
    /// Game id
    #[arg(long, value_name = "ID")]
    pub game: String,
    /// The asker's seat [default: the player who must decide]
    #[arg(long = "as", value_name = "SEAT", value_parser = ["p1", "p2"])]
    pub seat: Option<String>,
    /// The question
    pub question: String,
    #[command(flatten)]
    pub backend: super::chat::BackendArgs,
}

#[derive(Debug, clap::Args)]
pub struct LessonsArgs {
    /// Game id
    #[arg(long, value_name = "ID")]
    pub game: String,
    /// The seat whose play the lessons are about
    #[arg(long, default_value = "p1", value_parser = ["p1", "p2"])]
    pub player: String,
    /// Memory user the candidates are for [default: default]
    #[arg(long, value_name = "USER")]
    pub user: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct SelfplayArgs {
    /// Number of games
    #[arg(long, default_value_t = 100)]
    pub games: u64,
    /// Seed of the first game (game i uses seed + i)
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A deck for p1, then one for p2 (built-in name or decklist file)
    #[arg(long, value_name = "DECK", num_args = 1, required = true)]
    pub deck: Vec<String>,
    /// p1's agent
    #[arg(long, default_value = "random", value_parser = ["random", "heuristic"])]
    pub p1: String,
    /// p2's agent
    #[arg(long, default_value = "random", value_parser = ["random", "heuristic"])]
    pub p2: String,
}

#[derive(Debug, clap::Args)]
pub struct PlayArgs {
    /// Game id (an existing game, from `bob mtg new`)
    #[arg(long, value_name = "ID")]
    pub game: String,
    /// p1's agent
    #[arg(long, value_parser = ["random", "heuristic", "human", "model"])]
    pub p1: String,
    /// p2's agent
    #[arg(long, value_parser = ["random", "heuristic", "human", "model"])]
    pub p2: String,
    /// Stop after this many decisions (the game can be continued later)
    #[arg(long, value_name = "N")]
    pub max_decisions: Option<u64>,
    /// How often an illegal model reply is fed back before the safe default (pass, no
    /// attack, no blocks, keep) is taken and an `illegal_action` line is journaled
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub model_retries: u32,
    /// The model's backend (route mtg: BOB_MTG_* when BOB_ROUTE_MTG_REMOTE=true)
    #[command(flatten)]
    pub backend: super::chat::BackendArgs,
}

fn imported_path(ctx: &Ctx) -> PathBuf {
    game::imported_path(&ctx.home)
}

fn load_pool(ctx: &Ctx) -> Result<Pool> {
    game::load_pool(&ctx.home)
}

fn resolve_deck(spec: &str, pool: &Pool) -> Result<Deck> {
    let deck = match decks::builtin().into_iter().find(|d| d.name == spec) {
        Some(d) => d,
        None => {
            let p = Path::new(spec);
            if !p.is_file() {
                return Err(Error::invalid(format!(
                    "deck {spec:?} is neither a built-in deck (see `bob mtg decks`) nor a file"
                ))
                .with("deck", spec));
            }
            let text = read_input(Some(p))?;
            let name = p.file_stem().and_then(|s| s.to_str()).unwrap_or(spec);
            decks::parse(name, &text).map_err(|e| Error::invalid(e).with("deck", spec))?
        }
    };
    deck.validate(pool)
        .map_err(|e| Error::invalid(e).with("deck", spec))?;
    Ok(deck)
}

fn two_decks(specs: &[String], pool: &Pool) -> Result<[Deck; 2]> {
    if specs.len() != 2 {
        return Err(Error::invalid(format!(
            "give exactly two --deck options (p1's, then p2's), got {}",
            specs.len()
        )));
    }
    Ok([
        resolve_deck(&specs[0], pool)?,
        resolve_deck(&specs[1], pool)?,
    ])
}

fn files(ctx: &Ctx, game: &str) -> Result<GameFiles> {
    game::files(&ctx.home, game)
}

fn existing(ctx: &Ctx, game: &str) -> Result<GameFiles> {
    game::existing(&ctx.home, game)
}

/// What the subcommand reads when it reads stdin, for the note a person at a terminal sees.
pub fn stdin_expectation(args: &Args) -> &'static str {
    match args {
        Args::Play(_) => "one action JSON line {decision_id, type, …} per decision printed above",
        Args::Cards(_) => "a Scryfall card file JSON (oracle_cards list or {data:[…]})",
        Args::New(_) => "a position JSON",
        _ => "an action JSON {decision_id, type, …}",
    }
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::New(a) => new(a, ctx),
        Args::State(a) => {
            let viewer = match a.viewer.as_deref() {
                Some("all") => Some(Viewer::All),
                Some(p) => Some(Viewer::Seat(Seat::parse(p).expect("clap checked"))),
                None => None,
            };
            ctx.out.doc(&game::view(&ctx.home, &a.game, viewer)?)
        }
        Args::Actions(a) => {
            let seat = a.seat.as_deref().and_then(Seat::parse);
            ctx.out.doc(&game::actions(&ctx.home, &a.game, seat)?)
        }
        Args::Act(a) => act(a, ctx),
        Args::Schema => ctx.out.doc(&schemars::schema_for!(ActionRequest)),
        Args::Journal(a) => {
            let f = existing(ctx, &a.game)?;
            let log = store::read_jsonl(&f.journal())?;
            if let Some(bad) = log.bad.first() {
                return Err(Error::conflict(format!(
                    "journal line {} is {}: {}",
                    bad.line, bad.kind, bad.reason
                )));
            }
            let lines: Vec<&Value> = log.records.iter().map(|(_, v)| v).collect();
            ctx.out.rows(&lines)
        }
        Args::Replay(a) => {
            let f = existing(ctx, &a.game)?;
            let pool = load_pool(ctx)?;
            let log = store::read_jsonl(&f.journal())?;
            let stored = f.load(|| Ok(pool.clone()))?;
            let lines: Vec<Value> = log.records.into_iter().map(|(_, v)| v).collect();
            let (_, report) = journal::replay(&lines, &pool, Some(&stored))?;
            if !report.matches {
                return Err(
                    Error::conflict("replay ends in a different state than state.json")
                        .with("final_state_hash", report.final_state_hash.clone()),
                );
            }
            ctx.out.doc(&report)
        }
        Args::Cards(a) => match a.command {
            None => {
                let pool = load_pool(ctx)?;
                let builtin = Pool::builtin();
                let rows: Vec<Value> = pool
                    .cards()
                    .map(|c| {
                        let mut v = serde_json::to_value(&c.data).unwrap_or_default();
                        v["keywords"] = json!(kw::names(c.keywords));
                        v["source"] = json!(if builtin.get(&c.data.name).is_some() {
                            "builtin"
                        } else {
                            "imported"
                        });
                        v
                    })
                    .collect();
                ctx.out.rows(&rows)
            }
            Some(CardsCommand::Import { file }) => import(&file, ctx),
        },
        Args::Decks => {
            let rows: Vec<Value> = decks::builtin()
                .iter()
                .map(|d| json!({"name": d.name, "size": d.size(), "cards": d.cards}))
                .collect();
            ctx.out.rows(&rows)
        }
        Args::Selfplay(a) => {
            let pool = load_pool(ctx)?;
            let [d1, d2] = two_decks(&a.deck, &pool)?;
            let names = [d1.names(), d2.names()];
            let kinds = [
                AgentKind::parse(&a.p1).expect("clap checked"),
                AgentKind::parse(&a.p2).expect("clap checked"),
            ];
            let bar = ctx.out.progress(Some(a.games), "games");
            let r = selfplay_with(
                a.games,
                a.seed,
                [&names[0], &names[1]],
                &pool,
                kinds,
                &mut |done| bar.set(done),
            );
            drop(bar);
            let mut v = serde_json::to_value(&r).map_err(|e| Error::internal(e.to_string()))?;
            v["decks"] = json!([d1.name, d2.name]);
            v["agents"] = json!([a.p1, a.p2]);
            ctx.out.doc(&v)
        }
        Args::Play(a) => play(a, ctx),
        Args::Ask(a) => ask(a, ctx),
        Args::Lessons(a) => {
            let f = existing(ctx, &a.game)?;
            let seat = Seat::parse(&a.player).expect("clap checked");
            let rows = mtg_lessons::propose_lessons(&ctx.home, &f, &a.game, seat, a.user)?;
            ctx.out
                .doc(&json!({"game_id": a.game, "player": seat, "candidates": rows}))
        }
    }
}

fn new(a: NewArgs, ctx: &Ctx) -> Result<()> {
    let pool = load_pool(ctx)?;
    let start = match &a.setup {
        Some(p) => {
            let text = read_input(Some(p))?;
            let position: Value = parse_json("position", &text)?;
            Start::Setup { position }
        }
        None => Start::Decks {
            seed: a.seed,
            decks: two_decks(&a.deck, &pool)?,
        },
    };
    let game_id = a
        .game
        .clone()
        .unwrap_or_else(|| format!("g-{}", &uuid::Uuid::new_v4().simple().to_string()[..12]));
    let f = files(ctx, &game_id)?;
    let (s, events) = game::create(&f, &game_id, &start, &pool)?;
    ctx.out.doc(&game::decision_out(&s, &events, None))
}

fn act(a: ActArgs, ctx: &Ctx) -> Result<()> {
    existing(ctx, &a.game)?;
    let text = read_input(a.input.as_deref())?;
    let req: ActionRequest = parse_json("action", &text)?;
    ctx.out.doc(&mtg_lessons::act(&ctx.home, &a.game, &req)?)
}

fn import(file: &Path, ctx: &Ctx) -> Result<()> {
    let text = read_input(Some(file))?;
    let value: Value = parse_json("card file", &text)?;
    let (ok, refused) =
        cards::import(&value).map_err(|e| Error::invalid(format!("card file: {e}")))?;
    let path = imported_path(ctx);
    let _lock = store::Lock::exclusive(&store::lock_path(&path))?;
    let mut list: Vec<CardData> = store::read_json(&path)?.unwrap_or_default();
    let builtin = Pool::builtin();
    let mut added = Vec::new();
    let mut known = Vec::new();
    for c in ok {
        if builtin.get(&c.data.name).is_some() || list.iter().any(|d| d.name == c.data.name) {
            known.push(c.data.name.clone());
        } else {
            added.push(c.data.name.clone());
            list.push(c.data);
        }
    }
    if !added.is_empty() {
        store::write_json_atomic(&path, &list)?;
    }
    ctx.out.doc(&json!({
        "added": added,
        "already_in_pool": known,
        "refused": refused,
        "pool_size": builtin.len() + list.len(),
    }))
}

fn ask(a: AskArgs, ctx: &Ctx) -> Result<()> {
    use crate::backend::{Backend, CallOpts, Cancel, ChatRequest, Route};
    use crate::contracts::{ChatMessage, Role};
    if a.question.trim().is_empty() {
        return Err(Error::invalid("the question is empty"));
    }
    let f = existing(ctx, &a.game)?;
    let backend = Backend::resolve(
        &ctx.home,
        &ctx.settings,
        a.backend.backend.as_deref(),
        Route::Chat,
        &a.backend.overrides(),
    )?;
    let s = f.load(|| load_pool(ctx))?;
    let seat = match a.seat.as_deref() {
        Some(p) => Seat::parse(p).expect("clap checked"),
        None => s.decider().unwrap_or(Seat::P1),
    };
    let mut context = format!("STATE:\n{}", visible(&s, Viewer::Seat(seat)));
    if s.decider() == Some(seat) {
        context.push_str(&format!("\n\nACTIONS:\n{}", surface(&s)));
    }
    let msgs = vec![
        ChatMessage::new(Role::System, model::TUTOR),
        ChatMessage::new(
            Role::User,
            format!("{context}\n\nQUESTION:\n{}", a.question),
        ),
    ];
    let rt = crate::backend::runtime()?;
    let opts = CallOpts {
        role: Some("mtg_tutor".into()),
        stream: false,
        cancel: Cancel::on_ctrl_c(),
    };
    let reply = rt.block_on(backend.chat(&ChatRequest::new(msgs), &opts, None))?;
    let answer = reply.message.content.trim().to_string();
    let line = json!({
        "type": "question", "decision_id": s.decision_id(), "player": seat,
        "question": a.question, "answer": answer, "model": reply.model,
    });
    game::record_question(&f, &line, || load_pool(ctx))?;
    ctx.out.doc(&line)
}

enum Player {
    Bot(Box<Agent>),
    Human,
    Model,
}

/// Asks the model for an action until one is legal, at most `retries` times after the first;
/// then the safe default. Returns the action and the journal lines that go before it.
fn model_decide(
    backend: &crate::backend::Backend,
    rt: &tokio::runtime::Runtime,
    s: &State,
    retries: u32,
) -> Result<(ActionRequest, crate::mtg::Move, Vec<Value>)> {
    use crate::backend::{CallOpts, Cancel, ChatRequest};
    use crate::contracts::{ChatMessage, Role};
    let mut msgs = model::messages(s);
    let mut reasons = Vec::new();
    let opts = CallOpts {
        role: Some("mtg".into()),
        stream: false,
        cancel: Cancel::on_ctrl_c(),
    };
    for _ in 0..=retries {
        let reply = rt.block_on(backend.chat(&ChatRequest::new(msgs.clone()), &opts, None))?;
        let m = reply.message;
        let parsed = model::parse_reply(s, &m.content, m.tool_call_list()).and_then(|r| {
            if r.decision_id != s.decision_id() {
                return Err(format!(
                    "stale decision_id {:?}: the current decision is {:?}",
                    r.decision_id,
                    s.decision_id()
                ));
            }
            let mv = r.action.resolve(s)?;
            apply(s, &mv).map_err(|e| e.to_string())?;
            Ok((r, mv))
        });
        match parsed {
            Ok((r, mv)) => return Ok((r, mv, Vec::new())),
            Err(reason) => {
                msgs.push(m);
                msgs.push(ChatMessage::new(
                    Role::User,
                    format!("ILLEGAL: {reason}. Reply with one legal action from ACTIONS."),
                ));
                reasons.push(reason);
            }
        }
    }
    let mv = model::safe_default(s).ok_or_else(|| Error::internal("no decision pending"))?;
    let action = crate::mtg::Action::from_move(&mv, s);
    let line = json!({
        "type": "illegal_action", "decision_id": s.decision_id(), "player": s.decider(),
        "reasons": reasons, "default_action": action,
    });
    Ok((
        ActionRequest {
            decision_id: s.decision_id(),
            action,
        },
        mv,
        vec![line],
    ))
}

fn play(a: PlayArgs, ctx: &Ctx) -> Result<()> {
    let f = existing(ctx, &a.game)?;
    let _lock = game::lock_game(&f)?;
    let mut s = f.load(|| load_pool(ctx))?;
    let mk = |name: &str, salt: u64| match AgentKind::parse(name) {
        Some(k) => Player::Bot(Box::new(Agent::new(k, s.seed ^ salt ^ s.decisions))),
        None if name == "model" => Player::Model,
        None => Player::Human,
    };
    let mut players = [mk(&a.p1, 1), mk(&a.p2, 2)];
    let model_backend = if players.iter().any(|p| matches!(p, Player::Model)) {
        Some((
            crate::backend::Backend::resolve(
                &ctx.home,
                &ctx.settings,
                a.backend.backend.as_deref(),
                crate::backend::Route::Mtg,
                &a.backend.overrides(),
            )?,
            crate::backend::runtime()?,
        ))
    } else {
        None
    };
    let mut before_lines: Vec<Value> = Vec::new();
    let mut taken = 0u64;
    let mut stdin = std::io::stdin().lines();
    let mut noted = false;
    while let Some(p) = s.decider() {
        if a.max_decisions.is_some_and(|m| taken >= m) {
            break;
        }
        let (req, mv) = match &mut players[p.i()] {
            Player::Bot(agent) => {
                let mv = agent.decide(&s).expect("a decision is pending");
                let action = crate::mtg::Action::from_move(&mv, &s);
                (
                    ActionRequest {
                        decision_id: s.decision_id(),
                        action,
                    },
                    mv,
                )
            }
            Player::Model => {
                let (backend, rt) = model_backend.as_ref().expect("built for model seats");
                let (r, mv, lines) = model_decide(backend, rt, &s, a.model_retries)?;
                before_lines = lines;
                (r, mv)
            }
            Player::Human => {
                ctx.out.line(
                    &json!({"state": visible(&s, Viewer::Seat(p)), "decision": surface(&s)}),
                )?;
                if !noted {
                    // A person at a terminal sees what the loop waits for, once.
                    super::progress::note_waiting_on_stdin();
                    noted = true;
                }
                let Some(Ok(line)) = stdin.next() else { break };
                let parsed = serde_json::from_str::<ActionRequest>(&line)
                    .map_err(|e| e.to_string())
                    .and_then(|r| {
                        if r.decision_id != s.decision_id() {
                            return Err(format!("stale decision_id {:?}", r.decision_id));
                        }
                        r.action.resolve(&s).map(|m| (r, m))
                    });
                match parsed {
                    Ok(x) => x,
                    Err(e) => {
                        super::output::report(&Error::invalid(e));
                        continue;
                    }
                }
            }
        };
        match apply(&s, &mv) {
            Ok((after, events)) => {
                let mut lines = std::mem::take(&mut before_lines);
                lines.push(journal::decision_line(&s, &req, &after, &events));
                game::commit(&f, lines, &after)?;
                s = after;
                taken += 1;
            }
            Err(e) => {
                if matches!(players[p.i()], Player::Bot(_)) {
                    return Err(Error::internal(format!("agent move refused: {e}")));
                }
                super::output::report(&Error::invalid(format!("illegal action: {e}")));
            }
        }
    }
    let mut out = journal::summary(&s, None);
    if let Some(sum) = store::read_json::<Value>(&f.summary())?
        && s.outcome.is_some()
    {
        out = sum;
    }
    out["decisions_taken"] = json!(taken);
    if taken > 0 {
        mtg_lessons::lessons_at_end(&ctx.home, &f, &s, &mut out);
    }
    ctx.out.doc(&out)
}
