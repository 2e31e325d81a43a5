//! The engine's card form that lowering produces: keyword bits ([`kw`]), targets, effects,
//! activated and static abilities, and the lowered card ([`Lowered`]). `lower` fills it and
//! `cards` re-exports it.

use super::super::compile::{
    AdditionalCost, CostReduction, Group, Per, StaticCondition, StaticCount, Trigger,
};
pub use super::super::compile::{Amount, Look, Restriction};
use super::super::facts::{CardData, ManaCost};

/// Keyword abilities of the rules subset (CR 702), as bits.
pub mod kw {
    pub const FLYING: u16 = 1 << 0; // 702.9
    pub const REACH: u16 = 1 << 1; // 702.17
    pub const FIRST_STRIKE: u16 = 1 << 2; // 702.7
    pub const DOUBLE_STRIKE: u16 = 1 << 3; // 702.4
    pub const DEATHTOUCH: u16 = 1 << 4; // 702.2
    pub const TRAMPLE: u16 = 1 << 5; // 702.19
    pub const VIGILANCE: u16 = 1 << 6; // 702.20
    pub const HASTE: u16 = 1 << 7; // 702.10
    pub const LIFELINK: u16 = 1 << 8; // 702.15
    pub const DEFENDER: u16 = 1 << 9; // 702.3
    pub const MENACE: u16 = 1 << 10; // 702.111
    pub const HEXPROOF: u16 = 1 << 11; // 702.11
    pub const INDESTRUCTIBLE: u16 = 1 << 12; // 702.12
    pub const FLASH: u16 = 1 << 13; // 702.8
    pub const NAMES: [(u16, &str); 14] = [
        (FLYING, "Flying"),
        (REACH, "Reach"),
        (FIRST_STRIKE, "First strike"),
        (DOUBLE_STRIKE, "Double strike"),
        (DEATHTOUCH, "Deathtouch"),
        (TRAMPLE, "Trample"),
        (VIGILANCE, "Vigilance"),
        (HASTE, "Haste"),
        (LIFELINK, "Lifelink"),
        (DEFENDER, "Defender"),
        (MENACE, "Menace"),
        (HEXPROOF, "Hexproof"),
        (INDESTRUCTIBLE, "Indestructible"),
        (FLASH, "Flash"),
    ];
    /// The keyword names of a bit set, in a fixed order.
    pub fn names(bits: u16) -> Vec<&'static str> {
        NAMES
            .iter()
            .filter(|(b, _)| bits & b != 0)
            .map(|(_, n)| *n)
            .collect()
    }
    pub fn from_name(name: &str) -> Option<u16> {
        NAMES
            .iter()
            .find(|(_, n)| n.eq_ignore_ascii_case(name))
            .map(|(b, _)| *b)
    }
}

/// What a spell may target (CR 115.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    /// "any target": a creature, a player or a planeswalker (CR 115.4).
    Any,
    Creature,
    TappedCreature,
    Player,
    /// "target opponent" (CR 102.2).
    Opponent,
    /// "target attacking or blocking creature" (CR 506.4).
    CombatCreature,
    /// "target creature you control".
    CreatureYouControl,
    /// "target creature an opponent controls" / "you don't control".
    CreatureOpponentControls,
    /// "target nonland permanent".
    NonlandPermanent,
    /// "target nonland permanent an opponent controls".
    NonlandPermanentOpponent,
    /// "target artifact or enchantment" (an artifact creature included).
    ArtifactOrEnchantment,
    /// Not a target: the ability's own source ("this creature").
    Source,
    /// Not a target: the creature the source Aura or Equipment is attached to ("equipped
    /// creature", CR 301.5, 303.4).
    Attached,
    /// "target spell": a spell on the stack (CR 115.1a, 701.5).
    Spell,
    /// "target creature or planeswalker" (CR 115.1).
    CreatureOrPlaneswalker,
    /// Not a target: the object the trigger's event names ("put a +1/+1 counter on that
    /// creature" of "whenever another creature you control enters", CR 603.2, 608.2c).
    Triggering,
    /// "target <creature type> you control" (CR 205.3m).
    CreatureTypeYouControl(&'static str),
    /// "target artifact" (an artifact creature included).
    Artifact,
    /// "target artifact, enchantment, or creature with flying".
    ArtifactEnchantmentOrFlyer,
    /// "target creature spell" (CR 701.5).
    CreatureSpell,
    /// "target noncreature spell" (CR 701.5).
    NoncreatureSpell,
    /// "target creature card from your graveyard" (CR 115.1, 400.7).
    CreatureCardInYourGraveyard,
    /// "target permanent card from your graveyard".
    PermanentCardInYourGraveyard,
    /// "target nonland permanent card with mana value N or less from your graveyard" (CR
    /// 202.3).
    SmallNonlandPermanentCardInYourGraveyard(u8),
    /// "target card from a graveyard": any card in any player's graveyard (CR 115.1, 404).
    CardInAGraveyard,
    /// "other target permanent you control": any of the controller's permanents but the
    /// ability's source (CR 109.1, 115.1).
    OtherPermanentYouControl,
    /// "target creature or planeswalker you don't control" (CR 115.1).
    CreatureOrPlaneswalkerOpponent,
}

impl TargetKind {
    /// A card in its controller's graveyard (CR 115.1, 400.7), not a permanent.
    pub fn in_graveyard(self) -> bool {
        matches!(
            self,
            TargetKind::CreatureCardInYourGraveyard
                | TargetKind::PermanentCardInYourGraveyard
                | TargetKind::SmallNonlandPermanentCardInYourGraveyard(_)
                | TargetKind::CardInAGraveyard
        )
    }

    /// A spell on the stack, not a permanent or a player (CR 115.1a).
    pub fn is_spell(self) -> bool {
        matches!(
            self,
            TargetKind::Spell | TargetKind::CreatureSpell | TargetKind::NoncreatureSpell
        )
    }
}

/// One effect of a spell in the engine's form, in the order the spell lists them (CR 608.2c).
/// A spell has at most one target; every targeted effect of it acts on that target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    Damage(u8, TargetKind),
    /// "deals N damage to each opponent" (CR 120.3).
    DamageOpponents(u8),
    Destroy(TargetKind),
    /// "return target … to its owner's hand" (CR 400.7).
    Bounce(TargetKind),
    /// "tap target …" (CR 701.26).
    Tap(TargetKind),
    Draw(u8),
    GainLife(u8),
    /// The controller loses life (CR 119.3).
    LoseLife(u8),
    /// Each (or the target) opponent loses life; with two players these are one player.
    OpponentLosesLife(u8),
    /// "target creature gets +P/+T [and gains K] until end of turn" (CR 611.2, layer 7c).
    Pump(i8, i8, u16, TargetKind),
    /// "creatures you control get +P/+T [and gain K] until end of turn": the creatures there
    /// as it resolves (CR 611.2c).
    PumpYours(i8, i8, u16),
    /// "put N +1/+1 (or -1/-1) counters on target creature" (CR 122.1).
    Counters(i8, TargetKind),
    /// "mill N cards" (CR 701.13).
    Mill(u8),
    /// "create N [tapped] … creature tokens" (CR 111.1): count, index into the card's
    /// [`Card::tokens`], tapped.
    Tokens(u8, u8, bool),
    /// An intervening-if clause (CR 603.4), first of a triggered ability's effects: the
    /// ability triggers only if it holds, and does nothing on resolution if it no longer does.
    If(Cond),
    /// "Attach to target creature you control" (equip, CR 702.6a): the source Equipment
    /// becomes attached to the target (CR 301.5c).
    Attach(TargetKind),
    /// "surveil N" (CR 701.25a): the controller's `surveil` decision; always an ability's last
    /// effect.
    Surveil(u8),
    /// "[you may] search your library for [up to] N [basic land] card(s), put them <where>,
    /// then shuffle" (CR 701.23): the controller chooses the cards as it resolves, a hidden
    /// decision; always the last effect of its spell or ability.
    Search(Search),
    /// "[you] discard N cards" (`false`) or "each opponent discards N cards" (`true`) (CR
    /// 701.9): the discarding player chooses as it resolves; always the last effect.
    Discard(u8, bool),
    /// "creatures your opponents control get +P/+T until end of turn" (CR 611.2c).
    PumpOpponents(i8, i8),
    /// "counter target spell" (CR 701.5): the spell goes to its owner's graveyard.
    Counter(TargetKind),
    /// The start of mode N of a modal spell or ability (CR 700.2): the effects after it up to
    /// the next marker are that mode's; effects before the first marker (an intervening-if)
    /// belong to every mode.
    Mode(u8),
    /// "~ deals N damage to each creature [without K]" (CR 120.3): every creature on the
    /// battlefield as it resolves that lacks the keywords of the mask (0: every creature).
    DamageCreatures(u8, u16),
    /// "return all attacking creatures to their owner's hand" (CR 400.7, 506.4).
    BounceAttackers,
    /// "return target … card from your graveyard to your hand" (`false`) or "to the
    /// battlefield" (`true`) (CR 400.7).
    ReturnFromGraveyard(TargetKind, bool),
    /// "exile target player's graveyard" (CR 406.3).
    ExileGraveyard(TargetKind),
    /// "create a number of … tokens equal to …" / "create … for each …" (CR 111.1, 608.2h):
    /// what is counted, the token's index into [`Card::tokens`], tapped.
    TokensPer(Per, u8, bool),
    /// "Its controller creates N … tokens" (CR 111.2): the controller of the spell's target
    /// as it resolves gets them; count, token index, tapped.
    TokensForTargetController(u8, u8, bool),
    /// "double the number of +1/+1 counters on this creature" (CR 122.1): it gets as many
    /// more as it has.
    DoubleCounters(TargetKind),
    /// "~ deals damage equal to its power to target …" (CR 120, 208.3): the source's power
    /// now, or as it last existed on the battlefield if it was sacrificed (CR 608.2h).
    DamageEqualToPower(TargetKind),
    /// "Return this card from your graveyard to the battlefield [tapped]" (CR 400.7): an
    /// activated ability activated only while its card is in its owner's graveyard (CR 113.6).
    ReturnThisFromGraveyard(bool),
    /// "target creature can't block / can't be blocked this turn" (CR 509.1a-b, 611.2a).
    Restrict(Restriction, TargetKind),
    /// "exile target … until ~ leaves the battlefield" (CR 610.3): the target is exiled only
    /// if the source is still on the battlefield, and returns when it leaves.
    ExileUntilLeaves(TargetKind),
    /// "When you do, …" (CR 603.12): the reflexive trigger, the card's triggered ability at
    /// this index, triggers as this effect is performed (after the effect before it).
    Reflexive(u8),
    /// "Target opponent reveals their hand. You choose a [nonland] card from it. That player
    /// discards that card." (CR 701.20a, 701.9b): the controller's `choose_discard` decision;
    /// always the last effect. With two players the target opponent is the opponent.
    ChooseDiscard {
        nonland: bool,
    },
    /// "double target creature's power until end of turn" (CR 701.10): +X/+0 until end of
    /// turn, X its power as it resolves.
    DoublePower(TargetKind),
    /// "if target player has exactly N life, ~ deals M damage to that player": life N,
    /// damage M, the target (CR 608.2c).
    DamageIfLife(u8, u8, TargetKind),
    /// "untap …" (CR 701.26); a permanent with a stun counter loses one instead (122.1d).
    Untap(TargetKind),
    /// "put N stun counters on …" (CR 122.1d).
    Stun(u8, TargetKind),
    /// "prevent all combat damage that would be dealt to … this turn" (CR 615.1).
    PreventCombatDamage(TargetKind),
    /// "you gain N life for each …" (CR 119.3, 608.2h): N per object counted as it resolves.
    GainLifePer(u8, Per),
    /// "draw a card for each …" (CR 121.1, 608.2h).
    DrawPer(Per),
    /// "those creatures get +P/+T [and gain K] until end of turn": each creature the
    /// earlier "for each" counted, counted again (CR 608.2c, 611.2).
    PumpPer(Per, i8, i8, u16),
    /// "<target> gets +P/+T until end of turn. If <condition>, that creature gets +P'/+T'
    /// instead" (CR 608.2c): the second change when the condition holds as it resolves.
    PumpInsteadIf(Cond, [i8; 2], [i8; 2], TargetKind),
    /// "target opponent loses X life, where X is …" (CR 119.3, 608.2h): the opponent (one
    /// of two players, always a legal target) loses the amount as it resolves.
    OpponentLosesLifeEqual(Amount),
    /// The ability's one target is optional ("up to one target …", CR 115.1, 601.2c): its
    /// controller may choose none, and then its targeted effects do nothing. A marker before
    /// the targeted effect; it does nothing itself.
    UpToOne,
    /// "exile target card from a graveyard" (CR 406.3): the card leaves its owner's graveyard
    /// for its owner's exile.
    ExileCard(TargetKind),
    /// A spell's two targets (CR 601.2c): the first ("target creature you control", or
    /// "that creature" of an earlier effect on it) deals damage equal to its power to the
    /// second; with `true` each deals damage equal to its power to the other (fight, CR
    /// 701.12a). No damage is dealt unless both are still legal (CR 701.12b, 608.2b).
    Fight(TargetKind, TargetKind, bool),
    /// "Choose two target creatures controlled by different players. Return those creatures
    /// to their owners' hands." (CR 400.7): the first target and the second, each returned if
    /// it is still legal.
    BounceBoth(TargetKind, TargetKind),
    /// "Each opponent loses X life. You gain life equal to the life lost this way." (CR
    /// 107.3a, 119.3): X is the value chosen as the spell was cast.
    DrainX,
    /// "exile target …" (CR 406.3, 701.13): the permanent goes to its owner's exile (a token
    /// ceases to exist, CR 704.5d).
    Exile(TargetKind),
    /// "you may …[. If you do, …]" (CR 603.5, 608.2d): the controller's `may` decision as it
    /// resolves; the effects after this marker happen only if they accept (and pay the cost).
    /// At most one per list.
    May(MayCost),
    /// "look at the top N cards of your library …" (CR 401.5, 608.2d): the controller's
    /// `look` decision over those cards; always the last effect.
    Look(Look),
}

/// What accepting a "you may" costs, paid as the spell or ability resolves (CR 608.2d).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", tag = "cost")]
pub enum MayCost {
    /// "you may <effect>": nothing.
    Nothing,
    /// "you may pay <mana>" (CR 117.1): mana sources tapped as for a cast.
    Pay { generic: u8, colored: [u8; 5] },
    /// "you may sacrifice another creature" (CR 701.17a): one the controller controls.
    SacrificeAnotherCreature,
    /// "you may discard a card" (CR 701.9a).
    DiscardCard,
}

/// The second target kind of `mode` of an effect list, if it has two targets (CR 601.2c).
pub fn mode_second_target(es: &[Effect], mode: Option<u8>) -> Option<TargetKind> {
    mode_effects(es, mode).find_map(Effect::second_target)
}

/// The effects of `mode` of an effect list (every effect of a list without modes).
pub fn mode_effects(es: &[Effect], mode: Option<u8>) -> impl Iterator<Item = &Effect> {
    let mut current: Option<u8> = None;
    es.iter().filter(move |e| match e {
        Effect::Mode(k) => {
            current = Some(*k);
            false
        }
        _ => current.is_none() || current == mode,
    })
}

/// How many modes an effect list has (0: not modal).
pub fn mode_count(es: &[Effect]) -> u8 {
    es.iter().filter(|e| matches!(e, Effect::Mode(_))).count() as u8
}

/// The one target kind of `mode` of an effect list, if it targets.
pub fn mode_target(es: &[Effect], mode: Option<u8>) -> Option<TargetKind> {
    mode_effects(es, mode).find_map(Effect::target)
}

/// A library search in the engine's form (CR 701.23).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Search {
    /// Only basic land cards (CR 205.4c); else any card.
    pub basic: bool,
    /// At most this many cards are found.
    pub count: u8,
    pub to: Found,
    /// "You may search": finding no card declines the search (no shuffle).
    pub optional: bool,
    /// "a card" (no stated quality, not "up to"): as many as asked must be found while the
    /// library has them (CR 701.23b frees only searches for cards with a stated quality).
    pub must: bool,
    /// Only instant and sorcery cards of this mana value (CR 202.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spell_mana_value: Option<u8>,
}

/// Where a search puts the cards it finds.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Found {
    Hand,
    Battlefield,
    BattlefieldTapped,
    /// "then shuffle and put that card on top".
    Top,
}

/// The engine's form of an intervening-if condition ([`Condition`]); "you" is the ability's
/// controller, "this turn" the current turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cond {
    YouAttacked,
    CreatureDied,
    OpponentLostLife,
    YouGainedLife,
    GraveyardAtLeast(u8),
    ControlPower {
        another: bool,
        power: u8,
    },
    /// "if you control another <creature type>" (CR 205.3m).
    ControlAnother(&'static str),
    /// "if it was kicked" (CR 702.33d): the source was cast with its kicker paid.
    Kicked,
}

impl Effect {
    /// The kind of an effect's second target (CR 601.2c), if it has two.
    pub fn second_target(&self) -> Option<TargetKind> {
        match *self {
            Effect::Fight(_, t, _) | Effect::BounceBoth(_, t) => Some(t),
            _ => None,
        }
    }

    pub fn target(&self) -> Option<TargetKind> {
        match *self {
            Effect::Damage(_, t)
            | Effect::Destroy(t)
            | Effect::Bounce(t)
            | Effect::Tap(t)
            | Effect::Pump(_, _, _, t)
            | Effect::Counters(_, t)
            | Effect::Attach(t)
            | Effect::Counter(t)
            | Effect::ReturnFromGraveyard(t, _)
            | Effect::DamageEqualToPower(t)
            | Effect::ExileGraveyard(t)
            | Effect::Restrict(_, t)
            | Effect::ExileUntilLeaves(t)
            | Effect::DoublePower(t)
            | Effect::DamageIfLife(_, _, t)
            | Effect::Untap(t)
            | Effect::Stun(_, t)
            | Effect::PreventCombatDamage(t)
            | Effect::PumpInsteadIf(_, _, _, t)
            | Effect::Exile(t)
            | Effect::ExileCard(t)
            | Effect::Fight(t, _, _)
            | Effect::BounceBoth(t, _) => Some(t).filter(|t| {
                !matches!(
                    t,
                    TargetKind::Source | TargetKind::Attached | TargetKind::Triggering
                )
            }),
            Effect::DamageOpponents(_)
            | Effect::Draw(_)
            | Effect::GainLife(_)
            | Effect::LoseLife(_)
            | Effect::OpponentLosesLife(_)
            | Effect::PumpYours(..)
            | Effect::Mill(_)
            | Effect::Tokens(..)
            | Effect::If(_)
            | Effect::Surveil(_)
            | Effect::Search(_)
            | Effect::Discard(..)
            | Effect::PumpOpponents(..)
            | Effect::Mode(_)
            | Effect::DamageCreatures(..)
            | Effect::BounceAttackers
            | Effect::TokensPer(..)
            | Effect::TokensForTargetController(..)
            | Effect::DoubleCounters(_)
            | Effect::ReturnThisFromGraveyard(_)
            | Effect::Reflexive(_)
            | Effect::ChooseDiscard { .. }
            | Effect::GainLifePer(..)
            | Effect::DrawPer(_)
            | Effect::PumpPer(..)
            | Effect::OpponentLosesLifeEqual(_)
            | Effect::DrainX
            | Effect::UpToOne
            | Effect::May(_)
            | Effect::Look(_) => None,
        }
    }
}

/// An activated ability in the engine's form (CR 602): its cost, its effects (one target at
/// most, as for spells; "this creature" is the source) and whether it is activated only as a
/// sorcery (CR 602.5d).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Activated {
    pub mana: ManaCost,
    /// {T} in the cost (CR 107.5, 602.5a).
    pub tap: bool,
    /// "Pay N life" (CR 119.4).
    pub life: u8,
    /// "Sacrifice this …" (CR 701.17): the source goes to its owner's graveyard as the cost
    /// is paid.
    pub sacrifice: bool,
    pub effects: Vec<Effect>,
    pub sorcery: bool,
    /// A loyalty ability (CR 606): its cost is this loyalty change ("+N", "-N", "0"); it is
    /// activated as a sorcery, once per turn per permanent (CR 606.3).
    pub loyalty: Option<i8>,
    /// "Sacrifice a creature" (`Some(false)`) / "Sacrifice another creature" (`Some(true)`)
    /// in its cost (CR 701.17): the activation names the creature.
    pub sacrifice_creature: Option<bool>,
}

impl Activated {
    /// The ability's one target kind, if it targets (CR 602.2b, 601.2c).
    pub fn target(&self) -> Option<TargetKind> {
        self.effects.iter().find_map(Effect::target)
    }
}

/// A static ability in the engine's form (CR 604): what it changes of the creatures it
/// applies to, in layer 6 (keywords, CR 613.1f) and layer 7c (P/T, CR 613.4c), and the
/// blocking rules it sets (CR 509.1a-b). It applies while its source is on the battlefield
/// and its condition holds (CR 604.2, 611.3a), to the creatures that qualify at that moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaticEffect {
    pub affects: Affects,
    pub power: i8,
    pub toughness: i8,
    pub keywords: u16,
    /// "can't be blocked" (CR 509.1b).
    pub unblockable: bool,
    /// "can't block" (CR 509.1a).
    pub cant_block: bool,
    pub condition: Option<StaticCondition>,
    /// "attacks each combat if able" (CR 508.1d).
    pub must_attack: bool,
    /// "can't be blocked by <creature type>s" (CR 509.1b).
    pub unblockable_by: Option<&'static str>,
    /// The P/T change is multiplied by this count, taken as the static applies (CR 611.3a).
    pub per: Option<StaticCount>,
}

/// Which creatures a static ability changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Affects {
    /// The source itself ("this creature gets …").
    Source,
    /// Every creature its controller controls ("creatures you control get …").
    Yours,
    /// A lord's group of its controller's creatures.
    Group(Group),
    /// The creature the source Aura or Equipment is attached to.
    Attached,
}

/// The engine's form of a card's abilities.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lowered {
    pub keywords: u16,
    pub effects: Vec<Effect>,
    pub enters_tapped: bool,
    pub triggers: Vec<(Trigger, Vec<Effect>)>,
    pub tokens: Vec<CardData>,
    /// "This creature enters with N +1/+1 counters on it [if …]" (CR 614.1c).
    pub enters_with: Option<(u8, Option<Cond>)>,
    /// The colours (WUBRG bit mask) of a "{T}: Add {X} [or {Y}]" mana ability (CR 605.1a).
    pub mana: u8,
    /// Activated abilities other than mana abilities, in printed order (CR 602).
    pub activated: Vec<Activated>,
    /// Static abilities that change creatures (CR 604, 613).
    pub statics: Vec<StaticEffect>,
    /// "Enchant creature" (CR 702.5a): an Aura spell targets a creature and enters attached.
    pub enchant: bool,
    /// Keyword abilities the engine plays as other abilities (prowess as a trigger, equip as
    /// an activated ability, enchant as a target), by printed name.
    pub ability_keywords: Vec<&'static str>,
    /// "This spell costs {N} less to cast …" / affinity (CR 601.2f, 702.41a).
    pub costs_less: Option<(u8, CostReduction)>,
    /// "Instant and sorcery spells you cast cost {N} less to cast" (CR 601.2f).
    pub instant_sorcery_discount: u8,
    /// "Flashback {cost}" (CR 702.34a): cast from its owner's graveyard for this cost.
    pub flashback: Option<ManaCost>,
    /// Its mana ability also sacrifices it ("{T}, Sacrifice ~: Add one mana of any color",
    /// CR 111.10a).
    pub mana_sacrifice: bool,
    /// "Ward {N}" (CR 702.21a): a trigger the engine puts on the stack itself; N generic.
    pub ward: u8,
    /// "This spell can't be countered" (CR 101.2).
    pub uncounterable: bool,
    /// "Kicker {cost}" (CR 702.33a): an optional additional cost paid as it is cast.
    pub kicker: Option<ManaCost>,
    /// What a kicked instant or sorcery does instead of [`Lowered::effects`] (CR 702.33d);
    /// empty if kicking changes nothing it does.
    pub kicked_effects: Vec<Effect>,
    /// "This creature doesn't untap during your untap step" (CR 502.3).
    pub doesnt_untap: bool,
    /// "As an additional cost to cast this spell, …" (CR 601.2b): chosen in the cast.
    pub additional: Option<AdditionalCost>,
}
