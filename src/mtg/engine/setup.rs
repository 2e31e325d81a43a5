//! Setting a game up: the card table built from deck lists, the game template, the start
//! (shuffles and opening hands) and the mulligan procedure (CR 103).

use super::*;

pub(super) fn new_player(life: i32) -> Player {
    Player {
        life,
        library: Vec::new(),
        hand: Vec::new(),
        graveyard: Vec::new(),
        lands_played: 0,
        drew_from_empty: false,
        mulligans: 0,
        opening: Opening::Undecided,
        lost: false,
        untapped: [0; 5],
        exile: Vec::new(),
    }
}

/// Builds the game's card table and objects from per-player name lists.
pub(super) struct Builder {
    pub(super) names: Vec<String>,
    pub(super) cards: Vec<Card>,
    pub(super) objs: Vec<Obj>,
}

impl Builder {
    pub(super) fn new() -> Builder {
        Builder {
            names: Vec::new(),
            cards: Vec::new(),
            objs: Vec::new(),
        }
    }
    pub(super) fn add(
        &mut self,
        pool: &Pool,
        name: &str,
        owner: Seat,
        zone: Zone,
    ) -> Result<Id, String> {
        let card = match self.names.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                let c = pool
                    .get(name)
                    .ok_or_else(|| format!("card {name:?} is not in the card pool"))?;
                self.names.push(name.to_string());
                self.cards.push(c.clone());
                let i = self.cards.len() - 1;
                // The tokens its effects create join the card table with it (CR 111.4).
                for t in &c.tokens {
                    if !self.cards.iter().any(|k| k.data == *t) {
                        let token = crate::mtg::cards::parse(t)?;
                        self.names.push(format!("\u{0}token:{}", t.name));
                        self.cards.push(token);
                    }
                }
                i
            }
        };
        if self.objs.len() >= u16::MAX as usize / 2 {
            return Err("too many cards in one game".into());
        }
        self.objs.push(Obj {
            card: card as u16,
            owner,
            zone,
            tapped: false,
            sick: false,
            damage: 0,
            deathtouched: false,
            pump_p: 0,
            pump_t: 0,
            counters: 0,
            gained: 0,
            moves: 0,
            attached: None,
            loyalty: 0,
            loyalty_turn: 0,
            restricted: 0,
            exiled_until: None,
            stun: 0,
            shielded: false,
        });
        Ok(Id((self.objs.len() - 1) as u16))
    }
}

pub(super) fn blank_state(game_id: &str, seed: u64, b: Builder, players: [Player; 2]) -> State {
    State {
        game_id: game_id.to_string(),
        rules_version: RULES_VERSION.to_string(),
        seed,
        rng_pos: 0,
        cards: Arc::new(b.cards),
        objs: b.objs,
        players,
        battlefield: Battlefield::default(),
        stack: Vec::new(),
        turn: 0,
        step: Step::Untap,
        active: Seat::P1,
        priority: Seat::P1,
        starting_player: Seat::P1,
        passes: 0,
        combat: Combat::default(),
        pending: Pending::GameOver,
        decisions: 0,
        outcome: None,
        sba_check: true,
        this_turn: ThisTurn::default(),
        kicked: Vec::new(),
        last_power: Vec::new(),
        x_paid: Vec::new(),
    }
}

/// A new game: libraries shuffled (CR 103.2a), a starting player chosen at random (103.1),
/// seven cards each (103.5), then the London mulligan decisions.
pub fn new_game(
    game_id: &str,
    seed: u64,
    decks: [&[String]; 2],
    pool: &Pool,
) -> Result<(State, Vec<Event>), String> {
    Ok(start_game(&game_template(game_id, decks, pool)?, seed))
}

/// The cards of a game before any shuffle: build once, start many games from it.
pub fn game_template(game_id: &str, decks: [&[String]; 2], pool: &Pool) -> Result<State, String> {
    let mut b = Builder::new();
    let mut players = [new_player(20), new_player(20)];
    for (i, deck) in decks.iter().enumerate() {
        if deck.is_empty() {
            return Err(format!("the deck of {} has no cards", Seat(i as u8).name()));
        }
        for name in deck.iter() {
            let id = b.add(pool, name, Seat(i as u8), Zone::Library)?;
            players[i].library.push(id);
        }
    }
    Ok(blank_state(game_id, 0, b, players))
}

/// Starts a game from a template with `seed`.
pub fn start_game(template: &State, seed: u64) -> (State, Vec<Event>) {
    let mut s = template.clone();
    s.seed = seed;
    s.rng_pos = 0;
    let mut ev = Vec::new();
    s.shuffle(Seat::P1);
    s.shuffle(Seat::P2);
    let mut r = rng_for(s.seed, s.rng_pos);
    let first = Seat(below(&mut r, 2) as u8);
    s.rng_pos = r.get_word_pos() as u64;
    s.starting_player = first;
    s.active = first;
    s.priority = first;
    ev.push(Event::GameStarted {
        starting_player: first,
    });
    for p in [first, first.other()] {
        for _ in 0..7 {
            s.draw(p, &mut ev);
        }
    }
    // A deck shorter than seven cards just starts with fewer cards: opening-hand draws are
    // not draws in the SBA sense.
    s.players[0].drew_from_empty = false;
    s.players[1].drew_from_empty = false;
    s.sba_check = false;
    s.pending = Pending::Mulligan { player: first };
    (s, ev)
}

impl State {
    pub(super) fn shuffle(&mut self, seat: Seat) {
        let mut r = rng_for(self.seed, self.rng_pos);
        let lib = &mut self.players[seat.i()].library;
        for i in (1..lib.len()).rev() {
            let j = below(&mut r, i + 1);
            lib.swap(i, j);
        }
        self.rng_pos = r.get_word_pos() as u64;
    }

    /// The next step of the mulligan procedure (CR 103.5), in turn order from the starting
    /// player: a kept player's bottom choice first, then the next undecided player's
    /// declaration; once every player still deciding has declared, the declarations are
    /// revealed together and carried out at once (mulligans shuffle and draw seven; a keep
    /// after N mulligans then puts N cards on the bottom). The first turn begins when
    /// every opening hand is final.
    pub(super) fn next_opening_decision(&mut self, ev: &mut Vec<Event>) {
        let order = [self.starting_player, self.starting_player.other()];
        loop {
            if let Some(&p) = order
                .iter()
                .find(|p| self.players[p.i()].opening == Opening::MustBottom)
            {
                let count = self.players[p.i()]
                    .mulligans
                    .min(self.players[p.i()].hand.len() as u8);
                if count > 0 {
                    self.pending = Pending::Bottom { player: p, count };
                    return;
                }
                self.players[p.i()].opening = Opening::Kept;
                ev.push(Event::Kept {
                    player: p,
                    bottomed: 0,
                });
                continue;
            }
            if let Some(&p) = order
                .iter()
                .find(|p| self.players[p.i()].opening == Opening::Undecided)
            {
                self.pending = Pending::Mulligan { player: p };
                return;
            }
            if order
                .iter()
                .all(|p| self.players[p.i()].opening == Opening::Kept)
            {
                self.turn = 0;
                self.begin_turn(self.starting_player, ev);
                return;
            }
            // Every player still deciding has declared: reveal and carry out together.
            let (mut keep, mut mulligan) = (Vec::new(), Vec::new());
            for &p in &order {
                match self.players[p.i()].opening {
                    Opening::Declared { mulligan: true } => mulligan.push(p),
                    Opening::Declared { mulligan: false } => keep.push(p),
                    _ => {}
                }
            }
            ev.push(Event::MulliganDeclarations {
                keep: keep.clone(),
                mulligan: mulligan.clone(),
            });
            for p in keep {
                let n = self.players[p.i()].mulligans;
                self.players[p.i()].opening = if n > 0 {
                    Opening::MustBottom
                } else {
                    Opening::Kept
                };
                if n == 0 {
                    ev.push(Event::Kept {
                        player: p,
                        bottomed: 0,
                    });
                }
            }
            for p in mulligan {
                self.take_mulligan(p, ev);
                self.players[p.i()].opening = Opening::Undecided;
            }
        }
    }

    /// CR 103.5 (London): shuffle the hand away and draw seven; the bottom comes on keeping.
    pub(super) fn take_mulligan(&mut self, player: Seat, ev: &mut Vec<Event>) {
        let p = &mut self.players[player.i()];
        p.mulligans += 1;
        let hand = std::mem::take(&mut p.hand);
        for id in hand {
            self.objs[id.i()].zone = Zone::Library;
            self.players[player.i()].library.push(id);
        }
        self.shuffle(player);
        for _ in 0..7 {
            self.draw(player, ev);
        }
        self.players[player.i()].drew_from_empty = false;
        ev.push(Event::Mulligan { player });
    }
}
