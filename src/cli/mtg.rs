//! `bob mtg …`: the Magic: The Gathering engine (`crate::mtg`) driven from the command line.
//! Games live under `<home>/mtg/<game_id>/` (state.json, journal.jsonl, summary.json).

use super::Ctx;
use super::output::{parse_json, read_input};
use crate::error::{Error, Result};
use crate::memory::mtg_lessons;
use crate::mtg::action::{ActionRequest, Viewer};
use crate::mtg::agents::{AgentKind, selfplay_with};
use crate::mtg::cards::{Pool, kw};
use crate::mtg::catalog;
use crate::mtg::decks;
use crate::mtg::journal::Start;
use crate::mtg::state::Seat;
use crate::mtg::{game, play, tutor};
use serde_json::{Value, json};
use std::io::BufRead;
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
    /// {data:[…]}) or an MTGJSON AtomicCards file to this home's pool; lists the refused ones
    /// with the reason
    Import {
        /// The Scryfall or MTGJSON JSON file
        file: PathBuf,
    },
    /// How many cards of a file or a shipped set compile and how many the engine plays, by
    /// rarity; the rest grouped by the template they miss
    Coverage {
        /// A Scryfall or MTGJSON card file
        #[arg(required_unless_present = "set", conflicts_with = "set")]
        file: Option<PathBuf>,
        /// A set shipped with bob instead of a file (fdn)
        #[arg(long, value_name = "CODE")]
        set: Option<String>,
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

/// One row of `bob mtg decks`.
#[derive(serde::Serialize)]
struct DeckListed<'a> {
    name: &'a str,
    size: u32,
    cards: &'a [decks::Entry],
}

/// `bob mtg lessons`: the candidates proposed for one seat of a game.
#[derive(serde::Serialize)]
struct LessonsProposed<'a> {
    game_id: &'a str,
    player: Seat,
    candidates: Vec<Value>,
}

fn load_pool(ctx: &Ctx) -> Result<Pool> {
    game::load_pool(&ctx.home)
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
        Args::Journal(a) => ctx.out.rows(&game::journal_lines(&ctx.home, &a.game)?),
        Args::Replay(a) => ctx.out.doc(&game::replay(&ctx.home, &a.game)?),
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
            Some(CardsCommand::Coverage { file, set }) => coverage(file.as_deref(), set, ctx),
        },
        Args::Decks => {
            let builtin = decks::builtin();
            let rows: Vec<DeckListed> = builtin
                .iter()
                .map(|d| DeckListed {
                    name: &d.name,
                    size: d.size(),
                    cards: &d.cards,
                })
                .collect();
            ctx.out.rows(&rows)
        }
        Args::Selfplay(a) => {
            let pool = load_pool(ctx)?;
            let [d1, d2] = game::two_decks(&a.deck, &pool)?;
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
            let f = game::existing(&ctx.home, &a.game)?;
            let seat = Seat::parse(&a.player).expect("clap checked");
            let rows = mtg_lessons::propose_lessons(&ctx.home, &f, &a.game, seat, a.user)?;
            ctx.out.doc(&LessonsProposed {
                game_id: &a.game,
                player: seat,
                candidates: rows,
            })
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
            decks: game::two_decks(&a.deck, &pool)?,
        },
    };
    let game_id = a
        .game
        .clone()
        .unwrap_or_else(|| format!("g-{}", &uuid::Uuid::new_v4().simple().to_string()[..12]));
    let f = game::files(&ctx.home, &game_id)?;
    let (s, events) = game::create(&f, &game_id, &start, &pool)?;
    ctx.out.doc(&game::decision_out(&s, &events, None))
}

fn act(a: ActArgs, ctx: &Ctx) -> Result<()> {
    game::existing(&ctx.home, &a.game)?;
    let text = read_input(a.input.as_deref())?;
    let req: ActionRequest = parse_json("action", &text)?;
    ctx.out.doc(&mtg_lessons::act(&ctx.home, &a.game, &req)?)
}

fn coverage(file: Option<&Path>, set: Option<String>, ctx: &Ctx) -> Result<()> {
    let value: Value = match (file, set) {
        (Some(f), _) => parse_json("card file", &read_input(Some(f))?)?,
        (None, Some(code)) => {
            let text = catalog::set_file(&code).ok_or_else(|| {
                Error::invalid(format!("no card set {code:?} is shipped (known: fdn)"))
            })?;
            parse_json("card file", text)?
        }
        (None, None) => return Err(Error::invalid("give a card FILE or --set CODE")),
    };
    let report =
        catalog::coverage(&value).map_err(|e| Error::invalid(format!("card file: {e}")))?;
    ctx.out.doc(&report)
}

fn import(file: &Path, ctx: &Ctx) -> Result<()> {
    let text = read_input(Some(file))?;
    let value: Value = parse_json("card file", &text)?;
    ctx.out.doc(&game::import_cards(&ctx.home, &value)?)
}

fn ask(a: AskArgs, ctx: &Ctx) -> Result<()> {
    let backend = crate::backend::Backend::resolve(
        &ctx.home,
        &ctx.settings,
        a.backend.backend.as_deref(),
        crate::backend::Route::Chat,
        &a.backend.overrides(),
    )?;
    let seat = a.seat.as_deref().and_then(Seat::parse);
    ctx.out.doc(&tutor::ask(
        &ctx.home,
        &a.game,
        seat,
        &a.question,
        &backend,
    )?)
}

/// A person at the terminal: each decision as one JSON line on stdout, each answer one line
/// on stdin, a refused answer reported on stderr.
struct Terminal<'a> {
    ctx: &'a Ctx,
    stdin: std::io::Lines<std::io::StdinLock<'static>>,
    noted: bool,
}

impl play::Person for Terminal<'_> {
    fn answer(&mut self, prompt: &Value) -> Result<Option<String>> {
        self.ctx.out.line(prompt)?;
        if !self.noted {
            // A person at a terminal sees what the loop waits for, once.
            super::progress::note_waiting_on_stdin();
            self.noted = true;
        }
        Ok(self.stdin.next().and_then(|l| l.ok()))
    }
    fn refused(&mut self, why: &Error) {
        super::output::report(why);
    }
}

fn play(a: PlayArgs, ctx: &Ctx) -> Result<()> {
    let players = [
        play::Player::parse(&a.p1).expect("clap checked"),
        play::Player::parse(&a.p2).expect("clap checked"),
    ];
    let model = if players.contains(&play::Player::Model) {
        Some(crate::backend::Backend::resolve(
            &ctx.home,
            &ctx.settings,
            a.backend.backend.as_deref(),
            crate::backend::Route::Mtg,
            &a.backend.overrides(),
        )?)
    } else {
        None
    };
    let table = play::Table {
        players,
        max_decisions: a.max_decisions,
        model_retries: a.model_retries,
        model: model.as_ref(),
    };
    let mut person = Terminal {
        ctx,
        stdin: std::io::stdin().lock().lines(),
        noted: false,
    };
    ctx.out
        .doc(&mtg_lessons::play(&ctx.home, &a.game, &table, &mut person)?)
}
