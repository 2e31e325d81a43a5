//! The examples of every subcommand, in one table: each `--help` ends with its subcommand's
//! examples and each man page has them as its EXAMPLES section, both built from [`EXAMPLES`].
//!
//! Every example is a shell line a person can paste. The integration tests run each example
//! marked [`Example::offline`] in a temporary home prepared with a replay script (`replies.jsonl`:
//! scripted model replies, so no model and no network), a session `s1` that has had one turn, an
//! approved memory, a pending candidate, a scheduled job `daily`, a game `g1` and a few input
//! files (`reply.txt`, `history.json`, `notes.md`, `sandbox/`); the others need something a test
//! cannot hold (a live model, a daemon, an id drawn at random) and are parsed by clap instead.

/// One example: what it does, and the shell line that does it.
#[derive(Debug, Clone, Copy)]
pub struct Example {
    pub about: &'static str,
    pub line: &'static str,
    /// Whether the line runs as written in the prepared temporary home (see the module docs).
    pub offline: bool,
}

const fn run(about: &'static str, line: &'static str) -> Example {
    Example {
        about,
        line,
        offline: true,
    }
}

const fn parse(about: &'static str, line: &'static str) -> Example {
    Example {
        about,
        line,
        offline: false,
    }
}

/// Every subcommand path (`"memory stm list"`; `""` is `bob` itself) and its examples.
#[rustfmt::skip]
pub static EXAMPLES: &[(&str, &[Example])] = &[
    ("", &[
        run("A whole turn, offline, on scripted replies", "echo 'What is 6x7?' | bob turn --backend replay:replies.jsonl --session s1"),
        parse("A whole turn against a real OpenAI-compatible server", "BOB_CHAT_BASE_URL=http://127.0.0.1:8080/v1 BOB_CHAT_MODEL=qwen2.5-7b-instruct bob turn --session s1 --input question.txt"),
        run("What a session's checkpoint holds now", "bob state show --session s1"),
        run("The effective settings and where each came from", "bob config show"),
    ]),
    ("init", &[
        run("Create the home (the directory named by --home or $BOB_HOME)", "bob init"),
        run("Create a home somewhere else", "bob --home ./other-home init"),
    ]),
    ("completion", &[
        run("Completions for bash, installed for the current user", "bob completion bash > bob.bash"),
        run("Completions for zsh and fish", "bob completion zsh > _bob && bob completion fish > bob.fish"),
    ]),
    ("state", &[
        run("Show a session's checkpoint", "bob state show --session s1"),
    ]),
    ("state show", &[
        run("Show a session's checkpoint", "bob state show --session s1"),
        run("A session that has none yet shows an empty state instead of failing", "bob state show --session new --or-empty"),
    ]),
    ("state set", &[
        run("Change goals by hand (merged into the current state)", "echo '{\"goals\":[\"ship the docs\"]}' | bob state set --session s1"),
        run("Only if nobody changed it since revision 2 (else a conflict, exit 5)", "echo '{\"goals\":[\"ship the docs\"]}' | bob state set --session s1 --expect-revision 2"),
    ]),
    ("caps", &[
        run("A session's granted and pending capabilities", "bob caps list --session s1"),
    ]),
    ("caps list", &[
        run("A session's granted and pending capabilities", "bob caps list --session s1"),
    ]),
    ("caps request", &[
        run("Ask for network access to one host (a human still has to grant it)", "bob caps request --session s1 net:api.example.com"),
    ]),
    ("caps grant", &[
        run("Grant network access to one host (a human act, audited)", "bob caps grant --session s1 net:api.example.com"),
    ]),
    ("caps revoke", &[
        run("Take a capability back", "bob caps grant --session s1 net:api.example.com && bob caps revoke --session s1 net:api.example.com"),
    ]),
    ("notes", &[
        run("The NOTES patch out of a model's reply", "bob notes extract --input reply.txt"),
    ]),
    ("notes extract", &[
        run("The NOTES patch out of a model's reply", "bob notes extract --input reply.txt"),
        run("Straight from stdin", "cat reply.txt | bob notes extract"),
    ]),
    ("notes apply", &[
        run("Apply a patch to a session's checkpoint, as a human", "echo '{\"set_goals\":[\"water the plants\"]}' | bob notes apply --session s1"),
        run("Extract and apply as the model would (it may request capabilities, never grant)", "bob notes extract --input reply.txt | bob notes apply --session s1 --actor model"),
    ]),
    ("condense", &[
        run("Cut a message list to the context caps", "bob condense --input history.json"),
        run("With a tighter total budget", "bob condense --input history.json --total 2000"),
    ]),
    ("sanitize", &[
        run("What the user may see of a model's reply", "bob sanitize --input reply.txt"),
        run("From a pipe", "printf 'Hello <think>private</think>world' | bob sanitize"),
    ]),
    ("trace", &[
        run("The events of a session's turns", "bob trace query --session s1"),
    ]),
    ("trace emit", &[
        run("Append one event to a session's trace", "bob trace emit --session s1 --kind note --data '{\"text\":\"hello\"}'"),
        run("Append events read as JSON Lines", "echo '{\"kind\":\"note\",\"data\":{\"n\":1}}' | bob trace emit --session s1"),
    ]),
    ("trace query", &[
        run("Every event of one session", "bob trace query --session s1"),
        run("One kind of event (finished model calls) across all sessions, newest 5", "bob trace query --all --kind llm_done --limit 5"),
    ]),
    ("trace tail", &[
        run("The last 3 events of a session", "bob trace tail --session s1 -n 3"),
        parse("Follow a session's trace as it grows (Ctrl-C to stop)", "bob trace tail --session s1 --follow"),
    ]),
    ("trace stats", &[
        run("Counts per event kind of one session", "bob trace stats --session s1"),
    ]),
    ("ledger", &[
        run("Check every hash-chained log of the home", "bob ledger verify --all"),
    ]),
    ("ledger show", &[
        run("The approval ledger's records", "bob ledger show"),
        run("The newest 5 approvals", "bob ledger show --kind approve --limit 5"),
    ]),
    ("ledger verify", &[
        run("Check every hash-chained log of the home", "bob ledger verify --all"),
        run("Check against a head statement kept elsewhere", "bob ledger anchor > head.json && bob ledger verify --all --anchor head.json"),
    ]),
    ("ledger anchor", &[
        run("A signed statement of every log's head, to keep outside the home", "bob ledger anchor > head.json"),
    ]),
    ("ledger rekey", &[
        run("Start a new key epoch (older records stay verifiable)", "bob ledger rekey"),
    ]),
    ("ledger repair", &[
        parse("Move a torn last line of a log aside so appends can go on", "bob ledger repair ./runtime/memory_approvals.jsonl"),
    ]),
    ("schema", &[
        run("The names of every contract", "bob schema --list"),
        run("The JSON Schema of the turn record", "bob schema turn-record"),
    ]),
    ("search", &[
        parse("Fetch and stage pages for a query through a search API", "echo '{\"queries\":[\"oat milk\"],\"fetch_mode\":\"search_api\"}' | bob search --session s1"),
        parse("Render a page whose text a script writes (headless Chromium) and stage it", "echo '{\"queries\":[\"https://example.com/app\"],\"fetch_mode\":\"playwright\"}' | bob search --grant net:example.com"),
        run("Remove staged fetches older than the default age", "bob search --gc"),
    ]),
    ("tool", &[
        run("Every tool bob has", "bob tool list"),
        run("Enable one tool for one session (tools are off by default)", "bob tool enable --session s1 fs.read_text"),
    ]),
    ("tool list", &[
        run("Every tool bob has", "bob tool list"),
        run("With what one session may use", "bob tool list --session s1"),
    ]),
    ("tool schema", &[
        run("The input schema of one tool", "bob tool schema fs.read_text"),
    ]),
    ("tool run", &[
        run("Run a call for a session, in the sandbox root", "echo '[{\"id\":\"c1\",\"tool\":\"fs.read_text\",\"args\":{\"path\":\"shopping.txt\"}}]' | bob tool run --session s1 --root sandbox"),
        run("Enable a tool for this run only", "echo '[{\"id\":\"c1\",\"tool\":\"bom.normalize\",\"args\":{\"content\":\"4x Motor Mounts\",\"source\":\"text\"}}]' | bob tool run --enable bom.normalize"),
    ]),
    ("tool enable", &[
        run("Enable tools for one session (a human act, audited)", "bob tool enable --session s1 fs.read_text fs.list_dir"),
    ]),
    ("tool disable", &[
        run("Disable a tool again", "bob tool disable --session s1 fs.read_text"),
    ]),
    ("tool loop", &[
        run("A session's failure loop: recent failures and whether it escalates", "bob tool loop --session s1"),
    ]),
    ("tool turbotime", &[
        run("Turn on TURBOTIME (the domain tools and the planning path) for a session", "bob tool turbotime --session s1 on"),
        run("Turn it off", "bob tool turbotime --session s1 off"),
    ]),
    ("tool confirm", &[
        parse("Confirm a mutating call the model asked for (the id is in the call's envelope)", "bob tool confirm --session s1 conf_6f1c2a9e0b7d4e21"),
    ]),
    ("memory", &[
        run("What the model wants remembered, waiting for a human", "bob memory candidates --status pending"),
        run("Long-term memory, ranked", "bob memory query 'oat milk'"),
    ]),
    ("memory propose", &[
        run("Propose a memory (it waits as a pending candidate)", "echo '{\"text\":\"The user prefers oat milk.\",\"type\":\"preference\"}' | bob memory propose"),
    ]),
    ("memory candidates", &[
        run("Candidates waiting for a decision", "bob memory candidates --status pending"),
        run("Every candidate", "bob memory candidates"),
    ]),
    ("memory approve", &[
        parse("Approve a candidate: a ledger record, then a long-term record", "bob memory approve cand_301dfb923a314c87"),
        parse("Approve with a correction", "bob memory approve cand_301dfb923a314c87 --edit '{\"text\":\"The user prefers oat milk in coffee.\"}'"),
    ]),
    ("memory reject", &[
        parse("Reject a candidate, with the reason on the ledger", "bob memory reject cand_301dfb923a314c87 --reason 'not true'"),
    ]),
    ("memory reindex", &[
        parse("Embed the records that have no vector yet (embeddings configured)", "BOB_MEMORY_EMBEDDINGS=local BOB_MEMORY_EMBEDDING_MODEL=minilm bob memory reindex --missing"),
    ]),
    ("memory convert", &[
        run("The record a markdown file would become, without storing it", "bob memory convert notes.md"),
    ]),
    ("memory query", &[
        run("The best long-term matches for a text", "bob memory query 'oat milk'"),
        run("The top 3 as the block a turn's prompt gets", "bob memory query 'oat milk' -k 3 --format block"),
    ]),
    ("memory list", &[
        run("Long-term records", "bob memory list --scope long_term"),
        run("Short-term entries", "bob memory list --scope short_term"),
    ]),
    ("memory stm", &[
        run("Short-term memory entries (what recent turns left)", "bob memory stm list"),
    ]),
    ("memory stm list", &[
        run("Short-term memory entries (what recent turns left)", "bob memory stm list"),
    ]),
    ("memory stm add", &[
        run("Add a short-term entry by hand", "echo '{\"intent\":\"plan the week\",\"resolution\":\"made a list\"}' | bob memory stm add --session s1"),
    ]),
    ("memory stm touch", &[
        parse("Count one more use of an entry in a session", "bob memory stm touch stm_5b0c1e2d3f4a5b6c --session s2"),
    ]),
    ("memory stm gc", &[
        run("Remove expired short-term entries", "bob memory stm gc"),
    ]),
    ("memory promote", &[
        run("Which short-term entries would become candidates", "bob memory promote --dry-run"),
    ]),
    ("memory practice", &[
        run("Propose candidates from recurring tool failures and finished games", "bob memory practice"),
    ]),
    ("memory gc", &[
        run("Remove expired long-term records (recorded on the ledger)", "bob memory gc"),
    ]),
    ("memory import", &[
        run("Import notes written in Markdown", "bob memory import notes.md --markdown"),
        run("Move memory between homes", "bob memory export > memory.jsonl && bob --home ./other-home memory import memory.jsonl"),
    ]),
    ("memory export", &[
        run("Every long-term record as JSON Lines", "bob memory export > memory.jsonl"),
    ]),
    ("memory bench", &[
        parse("Retrieval quality on a LongMemEval-format dataset", "bob memory bench --dataset longmemeval_s.json"),
    ]),
    ("chat", &[
        run("A one-line prompt (on a terminal: the answer itself)", "bob chat --backend replay:replies.jsonl \"What is 6x7?\""),
        run("Plain text on stdin is one user message", "echo 'What is 6x7?' | bob chat --backend replay:replies.jsonl"),
        run("Talk in a session: its conversation goes first, the exchange is kept", "bob chat --backend replay:replies.jsonl -s s1 \"And 7x8?\""),
        run("Go on with the last session, with a system message", "bob chat --backend replay:replies.jsonl -c --system \"Answer in one line.\" \"Why?\""),
        run("One call, offline, on scripted replies", "echo '[{\"role\":\"user\",\"content\":\"6x7?\"}]' | bob chat --backend replay:replies.jsonl"),
        parse("One call to a real server, answer text only", "echo '[{\"role\":\"user\",\"content\":\"6x7?\"}]' | bob chat --base-url http://127.0.0.1:8080/v1 --model qwen2.5-7b-instruct | jq -r .message.content"),
        run("Streamed: JSON Lines deltas as they arrive", "echo '[{\"role\":\"user\",\"content\":\"hi\"}]' | bob chat --backend replay:replies.jsonl --stream"),
    ]),
    ("turn", &[
        run("A turn with the message as an argument", "bob turn --backend replay:replies.jsonl -s s1 \"What is 6x7?\""),
        run("The next turn of the last session", "bob turn --backend replay:replies.jsonl -c \"And 7x8?\""),
        run("Your own instructions for every role of the turn", "bob turn --backend replay:replies.jsonl -s s1 --system \"Answer in French.\" \"What is 6x7?\""),
        run("A whole turn on scripted replies (plain text in)", "echo 'What is 6x7?' | bob turn --backend replay:replies.jsonl --session s1"),
        run("The same as a TurnInput JSON", "echo '{\"session_id\":\"s1\",\"message\":\"What is 6x7?\"}' | bob turn --backend replay:replies.jsonl"),
        parse("Another pipeline profile, against the configured server", "echo 'Plan my week' | bob turn --session s1 --profile spectator"),
    ]),
    ("turn commit", &[
        parse("Commit a turn whose roles ran stage by stage (see docs/turn.md)", "bob turn commit --session s1 --input stages.json"),
    ]),
    ("context", &[
        run("The exact messages the respond role would get", "echo 'What is on my list?' | bob context --session s1 --role respond"),
    ]),
    ("schedule", &[
        run("Every job and when it runs next", "bob schedule list"),
    ]),
    ("schedule add", &[
        run("A job that runs a turn every hour", "bob schedule add --id hourly --schedule '@every 1h' --message 'Any news?' --session s1"),
        run("A one-shot job, created paused", "bob schedule add --id once --schedule 2026-03-01T09:00:00Z --message 'Remind me' --disabled"),
    ]),
    ("schedule list", &[
        run("Every job and when it runs next", "bob schedule list"),
    ]),
    ("schedule show", &[
        run("One job", "bob schedule show daily"),
    ]),
    ("schedule update", &[
        run("Change a job's message", "bob schedule update daily --message 'Summarise my day'"),
    ]),
    ("schedule pause", &[
        run("Stop a job from running until resumed", "bob schedule pause daily"),
    ]),
    ("schedule resume", &[
        run("Let a paused job run again", "bob schedule pause daily && bob schedule resume daily"),
    ]),
    ("schedule rm", &[
        run("Remove a job", "bob schedule rm daily"),
    ]),
    ("schedule run", &[
        run("Run a job now, whatever its schedule", "BOB_BACKEND=replay:replies.jsonl bob schedule run daily"),
    ]),
    ("schedule tick", &[
        run("Run the jobs that are due (what cron calls every minute)", "BOB_BACKEND=replay:replies.jsonl bob schedule tick"),
    ]),
    ("schedule daemon", &[
        parse("Tick every 30 seconds until stopped", "bob schedule daemon --interval 30s"),
    ]),
    ("schedule history", &[
        run("The runs of every job", "bob schedule history"),
        run("The last 5 runs of one job", "bob schedule history daily --limit 5"),
    ]),
    ("schedule status", &[
        run("Whether ticks happen and what ran last", "bob schedule status"),
    ]),
    ("schedule install", &[
        run("The crontab line that ticks every minute", "bob schedule install --cron"),
        run("A systemd timer and service instead", "bob schedule install --systemd"),
    ]),
    ("mtg", &[
        run("The built-in decks", "bob mtg decks"),
        run("A game between two built-in decks", "bob mtg new --deck gruul-40 --deck orzhov-40 --game g2"),
    ]),
    ("mtg new", &[
        run("A game between two built-in decks", "bob mtg new --deck gruul-40 --deck orzhov-40 --game g2"),
        run("With another shuffle", "bob mtg new --deck gruul-40 --deck orzhov-40 --seed 7"),
    ]),
    ("mtg state", &[
        run("What player 1 can see of a game", "bob mtg state --game g1 --as p1"),
    ]),
    ("mtg actions", &[
        run("The decision due now and every legal option", "bob mtg actions --game g1"),
    ]),
    ("mtg act", &[
        parse("Take one of the options `bob mtg actions` listed", "echo '{\"decision_id\":\"d1\",\"type\":\"pass\"}' | bob mtg act --game g1"),
    ]),
    ("mtg journal", &[
        run("Every action and event of a game", "bob mtg journal --game g1"),
    ]),
    ("mtg replay", &[
        run("Rebuild a game from its journal and check it", "bob mtg replay --game g1"),
    ]),
    ("mtg play", &[
        run("Play a whole game between two built-in agents", "bob mtg play --game g1 --p1 heuristic --p2 random"),
        parse("Play against the model as p2", "bob mtg play --game g1 --p1 human --p2 model"),
    ]),
    ("mtg selfplay", &[
        run("100 games between two built-in decks", "bob mtg selfplay --deck gruul-40 --deck orzhov-40 --games 100"),
    ]),
    ("mtg ask", &[
        parse("Ask the model about a game (it sees what p1 sees)", "bob mtg ask --game g1 --as p1 'What should I attack with?'"),
    ]),
    ("mtg lessons", &[
        run("What each seat can learn from a game", "bob mtg lessons --game g1"),
    ]),
    ("mtg cards", &[
        run("Every card of the card pool", "bob mtg cards"),
    ]),
    ("mtg cards import", &[
        parse("Add cards from a Scryfall JSON export", "bob mtg cards import cards.json"),
        parse("Add cards from MTGJSON's AtomicCards", "bob mtg cards import AtomicCards.json"),
    ]),
    ("mtg cards coverage", &[
        run("How many Foundations cards compile and play, and what the rest miss", "bob mtg cards coverage --set fdn"),
    ]),
    ("mtg decks", &[
        run("The built-in decks", "bob mtg decks"),
    ]),
    ("mtg schema", &[
        run("The JSON Schema of an action", "bob mtg schema"),
    ]),
    ("secrets", &[
        run("The names of the stored secrets (never their values)", "bob secrets list"),
    ]),
    ("secrets set", &[
        run("Store an API key from stdin", "printf 'sk-example' | bob secrets set openai"),
    ]),
    ("secrets list", &[
        run("The names of the stored secrets (never their values)", "bob secrets list"),
    ]),
    ("secrets rm", &[
        run("Remove a secret", "printf 'sk-example' | bob secrets set old && bob secrets rm old"),
    ]),
    ("serve", &[
        parse("The HTTP API and dashboard on 127.0.0.1:8080", "bob serve"),
        parse("On another port with more workers", "bob serve --bind 127.0.0.1:9000 --workers 8"),
    ]),
    ("serve token", &[
        run("A token for the API (shown once, stored hashed)", "bob serve token create --name laptop"),
    ]),
    ("serve token create", &[
        run("A token for the API (shown once, stored hashed)", "bob serve token create --name laptop"),
        run("A read-only token", "bob serve token create --name dashboard --scope read"),
    ]),
    ("serve token list", &[
        run("Every token (ids and names, never the secret)", "bob serve token list"),
    ]),
    ("serve token revoke", &[
        parse("Revoke a token by id", "bob serve token revoke tok_3c1d2e4f5a6b7c8d"),
    ]),
    ("eval", &[
        run("The suites and their cases", "bob eval list"),
    ]),
    ("eval run", &[
        run("One suite on each case's reference answers (offline)", "bob eval run --backend replay --suite scaffold"),
        parse("Every suite against the configured model, failing under 90%", "bob eval run --backend openai --fail-under 0.9 --junit eval.xml"),
    ]),
    ("eval list", &[
        run("The suites and their cases", "bob eval list"),
        run("One suite", "bob eval list --suite injection"),
    ]),
    ("runs", &[
        run("Recent runs", "bob runs list"),
    ]),
    ("runs list", &[
        run("The newest 10 runs", "bob runs list --limit 10"),
    ]),
    ("runs show", &[
        parse("One run's bundle: request, turn record, events, tool results", "bob runs show run_4f4bed2c19ee4fb8a646c633fd767e89"),
    ]),
    ("config", &[
        run("The effective settings and where each came from", "bob config show"),
    ]),
    ("db", &[
        parse("Where the shared store is and whether it answers", "BOB_DATABASE_URL=postgresql://bob@db.lan/bob bob db status"),
    ]),
    ("db status", &[
        parse("The URL (password blanked), schema version and reachability", "BOB_DATABASE_URL=postgresql://bob:secret:pg@db.lan/bob bob db status"),
    ]),
    ("db migrate", &[
        parse("Apply the schema migrations (also done on first use)", "BOB_DATABASE_URL=postgresql://bob@db.lan/bob bob db migrate"),
    ]),
    ("keys", &[
        parse("Hand this node's keys to a second node over ssh", "bob keys export - | ssh node2 bob keys import -"),
    ]),
    ("keys export", &[
        parse("Write the chain and secrets keys to a new owner-only file", "bob keys export /root/bob-keys.json"),
    ]),
    ("keys import", &[
        parse("Install the keys on a fresh node, then delete the file", "bob keys import /root/bob-keys.json && rm /root/bob-keys.json"),
    ]),
    ("db import", &[
        parse("Copy a laptop's embedded home into the shared store (run twice: copies nothing)", "BOB_DATABASE_URL=postgresql://bob@db.lan/bob BOB_KEY_FILE=~/old-home/keys/chain.key bob db import --from ~/old-home"),
    ]),
    ("config path", &[
        run("The home and the config files bob reads", "bob config path"),
    ]),
    ("config set", &[
        run("Set the model in the home's config.toml (checked like the file)", "bob config set chat.model qwen2.5-7b-instruct"),
    ]),
    ("config unset", &[
        run("Remove a setting from the home's config.toml", "bob config set chat.model m1 && bob config unset chat.model"),
    ]),
    ("config show", &[
        run("Every setting", "bob config show"),
        run("Two settings, with the model set from the environment", "BOB_CHAT_MODEL=qwen2.5-7b-instruct bob config show chat.model chat.base_url"),
    ]),
];

/// The examples of one subcommand path (`"tool run"`; `""` for `bob` itself).
pub fn of(path: &str) -> &'static [Example] {
    EXAMPLES
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, e)| *e)
        .unwrap_or(&[])
}

/// The text `--help` ends with.
pub fn help_text(examples: &[Example]) -> String {
    let mut out = String::from("Examples:\n");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("  # {}\n  {}\n", e.about, e.line));
    }
    out.truncate(out.trim_end().len());
    out
}

/// `cmd` with every subcommand's examples after its help.
pub fn attach(cmd: clap::Command) -> clap::Command {
    attach_at(cmd, "")
}

fn attach_at(mut cmd: clap::Command, path: &str) -> clap::Command {
    let examples = of(path);
    if !examples.is_empty() {
        cmd = cmd.after_help(help_text(examples));
    }
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in names {
        let sub = if path.is_empty() {
            name.clone()
        } else {
            format!("{path} {name}")
        };
        cmd = cmd.mut_subcommand(&name, |s| attach_at(s, &sub));
    }
    cmd
}
