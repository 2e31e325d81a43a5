//! MTGLessons (the Bob v0 runtime): at game end, 1–3 `mtg_lesson` and 1–2 `mtg_profile` memory
//! candidates drawn from one seat's journal, tagged by deck/archetype and skill area. They are
//! proposals only: they go through bob's approval path as pending candidates. They describe
//! habits, never game truth (no hand contents, no library order).

use super::cards::{Kind, Pool};
use super::decks::Deck;
use super::state::Seat;
use crate::contracts::MemoryCandidate;
use serde_json::Value;

/// What one seat did in one game, counted from the journal.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Habits {
    /// Main-2 passes with a land still playable.
    pub missed_land_drops: u32,
    /// Main-2 passes with a spell still castable.
    pub unused_mana_turns: u32,
    /// Attack declarations with no attacker although some could attack.
    pub declined_attacks: u32,
    /// Own spells that fizzled (their target was gone on resolution).
    pub fizzles: u32,
    pub mulligans: u32,
    pub won: Option<bool>,
    pub turns: u64,
}

pub fn habits(lines: &[Value], seat: Seat) -> Habits {
    let me = seat.name();
    let mut h = Habits::default();
    let mut my_casts: Vec<String> = Vec::new();
    for l in lines {
        match l["type"].as_str() {
            Some("decision") if l["player"] == me => {
                let step = &l["visible_state"]["step"];
                let kind = &l["surface"]["kind"];
                let opts = l["surface"]["options"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                let action = &l["action"]["type"];
                if kind == "priority" && action == "pass" && step == "main2" {
                    if opts.iter().any(|o| o["type"] == "play_land") {
                        h.missed_land_drops += 1;
                    }
                    if opts.iter().any(|o| o["type"] == "cast") {
                        h.unused_mana_turns += 1;
                    }
                }
                if kind == "declare_attackers"
                    && l["action"]["attackers"]
                        .as_array()
                        .is_some_and(|a| a.is_empty())
                    && opts
                        .first()
                        .and_then(|o| o["choose_from"].as_array())
                        .is_some_and(|c| !c.is_empty())
                {
                    h.declined_attacks += 1;
                }
                if action == "mulligan" {
                    h.mulligans += 1;
                }
            }
            Some("game_end") => {
                h.turns = l["turns"].as_u64().unwrap_or(0);
                h.won = l["winner"].as_str().map(|w| w == me);
            }
            _ => {}
        }
        for e in l["events"].as_array().into_iter().flatten() {
            if e["type"] == "cast" && e["player"] == me {
                my_casts.push(e["card"].as_str().unwrap_or_default().to_string());
            }
            if e["type"] == "fizzled"
                && e["card"]
                    .as_str()
                    .is_some_and(|c| my_casts.iter().any(|m| m == c))
            {
                h.fizzles += 1;
            }
        }
    }
    h
}

/// A rough archetype from the deck list: `spells`, `aggro` or `midrange`.
pub fn archetype(deck: &Deck, pool: &Pool) -> &'static str {
    let (mut spells, mut creatures, mut cost) = (0u32, 0u32, 0u32);
    for e in &deck.cards {
        let Some(c) = pool.get(&e.name) else { continue };
        match c.kind {
            Kind::Land(_) => continue,
            Kind::Creature => creatures += e.count,
            _ => spells += e.count,
        }
        cost += c.cost.total() * e.count;
    }
    let nonland = spells + creatures;
    if nonland == 0 {
        "lands"
    } else if spells * 10 >= nonland * 4 {
        "spells"
    } else if cost * 4 <= nonland * 11 {
        "aggro"
    } else {
        "midrange"
    }
}

fn candidate(
    kind: &str,
    title: String,
    text: String,
    tags: Vec<String>,
    why: &str,
) -> MemoryCandidate {
    let mut c = MemoryCandidate::new(text);
    c.kind = kind.into();
    c.title = Some(title);
    c.tags = tags;
    c.source = "mtg_journal".into();
    c.why_store = Some(why.into());
    c.importance = Some(4);
    c
}

/// 1–3 lessons and 1–2 profile candidates for `seat` from a finished (or running) game.
pub fn lessons(lines: &[Value], seat: Seat, pool: &Pool) -> Vec<MemoryCandidate> {
    let h = habits(lines, seat);
    let deck: Option<Deck> = lines
        .first()
        .and_then(|l| l["start"]["decks"].get(seat.i()))
        .and_then(|d| serde_json::from_value(d.clone()).ok());
    let (deck_name, arch) = match &deck {
        Some(d) => (d.name.clone(), archetype(d, pool)),
        None => ("position".to_string(), "puzzle"),
    };
    let tags = |skill: &str| {
        vec![
            "mtg".to_string(),
            format!("seat:{}", seat.name()),
            format!("deck:{deck_name}"),
            format!("archetype:{arch}"),
            format!("skill:{skill}"),
        ]
    };
    let mut found: Vec<(u32, MemoryCandidate)> = Vec::new();
    let why = "a recurring habit seen in a journaled game; approve only if it matches your play";
    let mut lesson = |score: u32, title: &str, text: String, skill: &str| {
        found.push((
            score,
            candidate("mtg_lesson", title.into(), text, tags(skill), why),
        ));
    };
    if h.missed_land_drops > 0 {
        lesson(
            h.missed_land_drops * 3,
            "Play a land every turn",
            format!(
                "With {deck_name} ({arch}) I ended {} turn(s) with a land still playable: play a land each turn before anything else.",
                h.missed_land_drops
            ),
            "mana_efficiency",
        );
    }
    if h.unused_mana_turns > 0 {
        lesson(
            h.unused_mana_turns * 2,
            "Spend mana every turn",
            format!(
                "With {deck_name} ({arch}) I ended {} turn(s) with a castable spell unused: spend the mana when a play is available.",
                h.unused_mana_turns
            ),
            "mana_efficiency",
        );
    }
    if h.declined_attacks > 1 {
        lesson(
            h.declined_attacks,
            "Attack when it is safe",
            format!(
                "With {deck_name} ({arch}) I declined {} attack(s) with creatures able to attack: check whether the opponent can block profitably, and attack when not.",
                h.declined_attacks
            ),
            "combat",
        );
    }
    if h.fizzles > 0 {
        lesson(
            h.fizzles * 4,
            "Targets can disappear",
            format!(
                "{} of my targeted spells fizzled because the target was gone on resolution: expect responses and keep a second target in mind.",
                h.fizzles
            ),
            "stack",
        );
    }
    found.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    let mut out: Vec<MemoryCandidate> = found.into_iter().take(3).map(|(_, c)| c).collect();
    if out.is_empty() {
        let result = match h.won {
            Some(true) => "won",
            Some(false) => "lost",
            None => "played",
        };
        out.push(candidate(
            "mtg_lesson",
            format!("{deck_name}: game plan"),
            format!("I {result} with {deck_name} ({arch}) in {} turns without missed land drops or unused mana: the {arch} plan of this deck worked as built.", h.turns),
            tags("game_plan"),
            why,
        ));
    }
    if deck.is_some() {
        out.push(candidate(
            "mtg_profile",
            format!("Plays {deck_name}"),
            format!("Plays the {arch} deck {deck_name}."),
            tags("deck_choice"),
            "a deck preference; approve if you want it remembered",
        ));
    }
    if h.mulligans >= 2 {
        out.push(candidate(
            "mtg_profile",
            "Mulligans aggressively".into(),
            format!(
                "Took {} mulligans in one game: prefers a strong opening hand over card count.",
                h.mulligans
            ),
            tags("mulligan"),
            "a play-style preference; approve if it describes you",
        ));
    }
    out.truncate(5);
    out
}
