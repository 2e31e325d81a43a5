//! The typed ability representation the compiler produces from rules text.
//!
//! Every node names the Comprehensive Rules section it stands for. A [`Compiled`] card holds
//! its abilities in printed order; nothing in it is a guess: the compiler either matched a
//! template exactly or refused the card.

use crate::mtg::facts::ManaCost;

/// Keyword abilities (CR 702) with their parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keyword {
    Flying,
    Reach,
    FirstStrike,
    DoubleStrike,
    Deathtouch,
    Trample,
    Vigilance,
    Haste,
    Lifelink,
    Defender,
    Menace,
    Hexproof,
    Indestructible,
    Flash,
    /// 702.21: "Ward {N}".
    Ward(u8),
    /// 702.108.
    Prowess,
    /// 702.5: "Enchant creature".
    EnchantCreature,
    /// 702.6: "Equip {N}".
    Equip(ManaCost),
    /// 702.33: "Kicker {cost}".
    Kicker(ManaCost),
    /// 702.34: "Flashback {cost}".
    Flashback(ManaCost),
}

impl Keyword {
    /// The keyword's printed name (the template name of coverage reports).
    pub fn name(&self) -> &'static str {
        match self {
            Keyword::Flying => "Flying",
            Keyword::Reach => "Reach",
            Keyword::FirstStrike => "First strike",
            Keyword::DoubleStrike => "Double strike",
            Keyword::Deathtouch => "Deathtouch",
            Keyword::Trample => "Trample",
            Keyword::Vigilance => "Vigilance",
            Keyword::Haste => "Haste",
            Keyword::Lifelink => "Lifelink",
            Keyword::Defender => "Defender",
            Keyword::Menace => "Menace",
            Keyword::Hexproof => "Hexproof",
            Keyword::Indestructible => "Indestructible",
            Keyword::Flash => "Flash",
            Keyword::Ward(_) => "Ward",
            Keyword::Prowess => "Prowess",
            Keyword::EnchantCreature => "Enchant",
            Keyword::Equip(_) => "Equip",
            Keyword::Kicker(_) => "Kicker",
            Keyword::Flashback(_) => "Flashback",
        }
    }
}

/// Which permanents a filter admits (CR 115.1 / 608.2b "target … that …").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    Creature,
    TappedCreature,
    /// "attacking or blocking creature" (CR 506.4).
    CombatCreature,
    /// "creature with flying".
    FlyingCreature,
    NonlandPermanent,
    ArtifactOrEnchantment,
    Enchantment,
    Artifact,
    Permanent,
    /// "artifact, enchantment, or creature with flying".
    ArtifactEnchantmentOrFlyer,
    /// "target vampire you control": a creature of one creature type (CR 205.3m).
    OfType(&'static str),
    /// "creature or planeswalker" with a controller ("… you don't control").
    CreatureOrPlaneswalker,
}

/// Whose objects a filter admits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    Anyone,
    You,
    Opponent,
}

/// What an effect acts on (CR 115 targets, 608.2c non-targeted references).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    /// "any target": a creature, player or planeswalker (CR 115.4).
    AnyTarget,
    /// "target player" (or "target player or planeswalker").
    TargetPlayer,
    TargetOpponent,
    /// "target creature or planeswalker".
    TargetCreatureOrPlaneswalker,
    /// A targeted permanent.
    Target(Filter, Control),
    /// Not targeted: the object the ability belongs to ("this creature", the card's name).
    This,
    /// "it" / "that creature": the object an earlier effect of the same ability named
    /// (CR 608.2c).
    That,
    /// Not targeted: the controller of the ability.
    You,
    /// Not targeted: every opponent (CR 102.2).
    EachOpponent,
    /// Not targeted: every creature a side controls ("creatures you control").
    EachCreature(Control),
    /// The permanent an Aura or Equipment is attached to (CR 303.4, 301.5).
    Attached,
    /// Not targeted: "each creature without flying" (CR 702.9b).
    EachCreatureWithoutFlying,
    /// Not targeted: "all attacking creatures" (CR 506.4).
    AllAttacking,
    /// "that player": the player an earlier effect of the same ability named (CR 608.2c).
    ThatPlayer,
    /// Not targeted: "those creatures": the creatures an earlier "for each" effect of the
    /// same spell counted (CR 608.2c), counted again as this effect happens.
    Counted(Per),
    /// "other target <filter> [you control]": a targeted permanent other than the ability's
    /// source (CR 115.1, 109.1).
    OtherTarget(Filter, Control),
}

impl Subject {
    pub fn is_targeted(&self) -> bool {
        matches!(
            self,
            Subject::AnyTarget
                | Subject::TargetPlayer
                | Subject::TargetOpponent
                | Subject::TargetCreatureOrPlaneswalker
                | Subject::Target(..)
                | Subject::OtherTarget(..)
        )
    }
}

/// A one-shot effect (CR 609) of a spell or ability.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// 120: "deals N damage to …".
    Damage {
        amount: u8,
        to: Subject,
    },
    /// 701.8.
    Destroy(Subject),
    /// 701.13 / 406: "exile …".
    Exile(Subject),
    /// 400.7: "return … to its owner's hand".
    Bounce(Subject),
    /// 701.26: "tap …".
    Tap(Subject),
    /// 121: "draw N cards" (the subject draws).
    Draw {
        who: Subject,
        count: u8,
    },
    /// 701.9: "discards N cards".
    Discard {
        who: Subject,
        count: u8,
    },
    /// 119.3 / 119.4: life gain and loss.
    GainLife {
        who: Subject,
        amount: u8,
    },
    LoseLife {
        who: Subject,
        amount: u8,
    },
    /// 611.2 / 613.4c (layer 7c): "gets +P/+T [and gains K] until end of turn"; with
    /// keywords only, layer 6 "gains K until end of turn".
    Pump {
        who: Subject,
        power: i8,
        toughness: i8,
        keywords: Vec<Keyword>,
    },
    /// 122.1: "+1/+1 counters" (negative for -1/-1).
    Counters {
        on: Subject,
        count: u8,
        plus: bool,
    },
    /// 111: "create N P/T colour Type creature token(s) [with K]".
    Tokens {
        count: u8,
        power: i8,
        toughness: i8,
        colors: Vec<char>,
        subtypes: Vec<String>,
        keywords: Vec<Keyword>,
        tapped: bool,
    },
    /// 701.22.
    Scry(u8),
    /// 701.25.
    Surveil(u8),
    /// 701.13 (mill).
    Mill(u8),
    /// 701.5: "counter target spell".
    CounterSpell,
    /// 111.10b: "create N Food tokens" (colorless Food artifacts with "{2}, {T}, Sacrifice
    /// this token: You gain 3 life.").
    Food(u8),
    /// 701.23: "[you may] search your library for <what>, [reveal it,] put it <where>, then
    /// shuffle"; `optional` is "you may", `up_to` is "up to N" (fewer may be found, 701.23b).
    Search {
        what: SearchFor,
        count: u8,
        up_to: bool,
        to: SearchTo,
        optional: bool,
    },
    /// 406 / 701.13: "exile up to N target cards from a graveyard".
    ExileFromGraveyard(u8),
    /// 700.2: "Choose one —" followed by bulleted modes; the controller picks `choose` of
    /// them as the spell is cast or the ability is put on the stack (700.2a/b).
    Modal {
        choose: u8,
        modes: Vec<Vec<Effect>>,
    },
    /// 701.5: "counter target creature spell" (`creature`) / "counter target noncreature
    /// spell".
    CounterSpellOf {
        creature: bool,
    },
    /// 400.7: "return target creature card (`creature`) / permanent card from your graveyard
    /// to your hand" or "… to the battlefield" (`battlefield`).
    ReturnFromGraveyard {
        creature: bool,
        battlefield: bool,
    },
    /// 406.3: "exile target player's graveyard" (every card in it).
    ExileGraveyard(Subject),
    /// 111.1: "create a number of <tokens> equal to <count>" / "create <a token> for each
    /// <count>": `tokens` is an [`Effect::Tokens`] of one token, made once per object counted
    /// as the effect happens (CR 608.2h).
    CountedTokens {
        per: Per,
        tokens: Box<Effect>,
    },
    /// 111.2: "Its controller creates <tokens>": the controller of the earlier effect's target
    /// gets them.
    TargetControllerCreates(Box<Effect>),
    /// 122.1 / 701.10e-like doubling: "double the number of +1/+1 counters on S": S gets as
    /// many more as it has.
    DoubleCounters(Subject),
    /// 111.10a: "create N Treasure tokens" (colorless Treasure artifacts with "{T}, Sacrifice
    /// this token: Add one mana of any color.").
    Treasure(u8),
    /// 702.33d / 608.2c: "<effects>. If this spell was kicked, <kicked> instead.": a kicked
    /// spell does `kicked` in place of `normal`.
    Kicked {
        normal: Vec<Effect>,
        kicked: Vec<Effect>,
    },
    /// 400.7: "return target nonland permanent card with mana value N or less from your
    /// graveyard to the battlefield" (`battlefield`) / "… to your hand".
    ReturnSmallPermanentFromGraveyard {
        max_mana_value: u8,
        battlefield: bool,
    },
    /// 120 / 208.3: "~ deals damage equal to its power to S" (a sacrificed source's power as
    /// it last existed on the battlefield, CR 608.2h).
    DamageEqualToPower(Subject),
    /// 400.7 / 113.6: "Return ~ from your graveyard to the battlefield [tapped]": an ability
    /// that works only while its card is in its owner's graveyard.
    ReturnThisFromGraveyard {
        tapped: bool,
    },
    /// 509.1a-b / 611.2a: "<S> can't block this turn" / "<S> can't be blocked this turn": a
    /// restriction on the permanent that ends in the cleanup step (514.2).
    Restrict {
        who: Subject,
        restriction: Restriction,
    },
    /// 610.3: "exile <S> until ~ leaves the battlefield": the exiled card returns to the
    /// battlefield under its owner's control as soon as the source leaves it.
    ExileUntilLeaves(Subject),
    /// 603.12: "<effect>. When you do, <effects>": a reflexive triggered ability created by
    /// the spell or ability, triggered by the effect just before it; its target is chosen as
    /// it is put on the stack.
    Reflexive(Vec<Effect>),
    /// 701.20a / 701.9b: "Target opponent reveals their hand. You choose a nonland card from
    /// it. That player discards that card."
    ChooseDiscard {
        who: Subject,
        nonland: bool,
    },
    /// 701.10: "double target creature's power until end of turn": it gets +X/+0 until end
    /// of turn, where X is its power as the effect happens.
    DoublePower(Subject),
    /// 608.2c: "if target player has exactly N life, <effect on that player>": the effect
    /// happens only if the player's life total is exactly N as the spell resolves.
    IfLifeExactly {
        who: Subject,
        life: u8,
        then: Box<Effect>,
    },
    /// 701.26: "untap …".
    Untap(Subject),
    /// 122.1d: "put N stun counters on S".
    Stun {
        on: Subject,
        count: u8,
    },
    /// 615.1: "prevent all combat damage that would be dealt to S this turn".
    PreventCombatDamageTo(Subject),
    /// 119.3 / 608.2h: "you gain N life for each <counted>".
    GainLifePer {
        amount: u8,
        per: Per,
    },
    /// 121.1 / 608.2h: "draw a card for each <counted>".
    DrawPer(Per),
    /// 608.2c / 614.1a-like "instead": "<effect>. If <condition>, <other effect> instead":
    /// the second effect replaces the first when the condition holds as it resolves.
    InsteadIf {
        condition: Condition,
        normal: Box<Effect>,
        instead: Box<Effect>,
    },
    /// 119.3: "<who> loses X life, where X is <amount>", the amount taken as it resolves.
    LoseLifeEqual {
        who: Subject,
        amount: Amount,
    },
    /// 115.1 / 601.2c: "<verb> up to one target …": the effect with its one target optional;
    /// zero targets may be chosen, and then it does nothing.
    UpToOne(Box<Effect>),
    /// 701.12 / 120.3: "<a> fights <b>" (`mutual`: each deals damage equal to its power to
    /// the other) or "<a> deals damage equal to its power to <b>" (one way). Two targets, or
    /// `a` is "that creature", an earlier effect's target (CR 608.2c).
    Fight {
        a: Subject,
        b: Subject,
        mutual: bool,
    },
    /// 400.7: "Choose two target creatures controlled by different players. Return those
    /// creatures to their owners' hands." With two players: one target creature its
    /// controller controls (`a`) and one an opponent controls (`b`).
    BounceBoth(Subject, Subject),
    /// 107.3a / 119.3: "Each opponent loses X life. You gain life equal to the life lost this
    /// way.": X is the value chosen as the spell was cast.
    DrainX,
    /// 603.5 / 608.2d: "you may <effect>" or "you may <cost>. If you do, <effects>": a marker;
    /// the effects after it in the list happen only if the controller chooses to (and pays
    /// the cost) as the spell or ability resolves.
    May(MayAction),
    /// 401.5 / 608.2d: "look at the top N cards of your library", then a choice of one of
    /// them and where the rest go.
    LookAt(Look),
}

/// A look at the top of the controller's library with a choice of at most one card
/// (CR 401.5, 608.2d).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Look {
    /// How many cards are looked at (fewer if the library is smaller).
    pub count: u8,
    /// Only a creature card with power at most this may be chosen; None: any card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creature_power_at_most: Option<u8>,
    /// The chosen card is revealed and put into the hand (else put back on top).
    pub to_hand: bool,
    /// The rest go to the bottom in a random order (else into the graveyard).
    pub rest_to_bottom: bool,
}

/// What a "you may" offers the controller as the spell or ability resolves (CR 608.2d).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MayAction {
    /// "you may <effect>": nothing to pay; the optional effect follows the marker.
    Nothing,
    /// "you may pay <mana>. If you do, …" (CR 117.1, paid as it resolves).
    Pay(ManaCost),
    /// "you may sacrifice another creature. If you do, …" (CR 701.17).
    SacrificeAnotherCreature,
    /// "you may discard a card. If you do, …" (CR 701.9).
    DiscardCard,
}

/// An amount an effect reads as it happens (CR 608.2h).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Amount {
    /// "the amount of life you gained this turn" (CR 119.9).
    LifeYouGainedThisTurn,
}

/// A combat restriction an effect puts on a creature for the rest of the turn (CR 509.1a-b).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restriction {
    /// "can't block this turn".
    CantBlock,
    /// "can't be blocked this turn".
    CantBeBlocked,
}

/// What a counted effect counts, as it happens (CR 608.2h).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Per {
    /// "the number of other creatures you control named ~".
    OtherCreaturesNamedThis,
    /// "each creature card in your graveyard".
    CreatureCardsInYourGraveyard,
    /// "the number of <creature type>s you control" (the source included).
    OfTypeYouControl(&'static str),
    /// "each attacking <creature type> you control" (CR 506.4).
    AttackingOfTypeYouControl(&'static str),
    /// "each creature you control with a +1/+1 counter on it" (CR 122.1).
    CreaturesYouControlWithCounter,
}

/// What a library search looks for (CR 701.23a).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchFor {
    /// "a basic land card" (CR 205.4c).
    BasicLand,
    /// "a card".
    AnyCard,
    /// "an instant or sorcery card with mana value N" (CR 202.3).
    InstantOrSorceryWithManaValue(u8),
}

/// Where the found cards go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchTo {
    Hand,
    Battlefield {
        tapped: bool,
    },
    /// "then shuffle and put that card on top".
    TopOfLibrary,
}

/// A trigger condition (CR 603.1 "when/whenever/at").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// 603.6a: "When this enters".
    Enters,
    /// 603.6c / 700.4: "When this dies".
    Dies,
    /// 508.3a: "Whenever this attacks".
    Attacks,
    /// 509.3c: "Whenever this blocks".
    Blocks,
    /// 510.3a: "Whenever this deals combat damage to a player".
    CombatDamageToPlayer,
    /// 603.6a: "Whenever another creature you control enters".
    AnotherCreatureEnters,
    /// 207.2c landfall: "Whenever a land you control enters".
    Landfall,
    /// 503.1a: "At the beginning of your upkeep".
    YourUpkeep,
    /// 513.1a: "At the beginning of your end step".
    YourEndStep,
    /// 601.2i: "Whenever you cast a noncreature spell".
    CastNoncreature,
    /// 119.9: "Whenever you gain life".
    GainLife,
    /// 507.1: "At the beginning of combat on your turn".
    YourCombat,
    /// 513.1a: "At the beginning of each end step" (either player's).
    EachEndStep,
    /// 121.2: "Whenever you draw your second card each turn".
    SecondDrawEachTurn,
    /// 700.4: "Whenever a creature you control dies".
    CreatureYouControlDies,
    /// 603.6a: "Whenever a creature you control with power N or greater enters".
    CreatureWithPowerEnters(u8),
    /// 508.3a / 603.2: "Whenever this attacks while you control a creature with power N or
    /// greater": triggers only if you control one as the attack is declared.
    AttacksWhileControlPower(u8),
    /// 508.3a: "Whenever you attack" (1) / "Whenever you attack with N or more creatures":
    /// you declared at least N attackers.
    YouAttackWith(u8),
    /// 121.2: "Whenever you draw a card".
    YouDraw,
    /// 119.9: "Whenever you gain life for the first time each turn" (`your_turn`: "during each
    /// of your turns").
    GainLifeFirstTime { your_turn: bool },
    /// 700.4 / 603.10a: "Whenever this creature or another creature you control dies".
    ThisOrAnotherCreatureYouControlDies,
    /// 603.6a: "Whenever another <creature type> you control enters".
    AnotherOfTypeEnters(&'static str),
    /// 601.2i: "Whenever you cast a spell during an opponent's turn".
    CastSpellOpponentsTurn,
    /// 601.2i: "Whenever you cast a noncreature or <creature type> spell".
    CastNoncreatureOrType(&'static str),
    /// 601.2i: "Whenever you cast an instant or sorcery spell".
    CastInstantOrSorcery,
    /// 510.3a: "Whenever equipped creature deals combat damage to a player" (of an Equipment).
    EquippedCombatDamageToPlayer,
    /// 603.12: a reflexive trigger ("When you do, …") of a spell or ability: it triggers when
    /// the effect before it in the same spell or ability is performed.
    Reflexive,
}

/// The condition of an intervening-if clause (CR 603.4): "When …, if <condition>, …". The
/// ability triggers only if it holds as the event happens, and does nothing on resolution if it
/// no longer holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    /// Raid: "if you attacked this turn" (CR 508.1: you declared at least one attacker).
    YouAttacked,
    /// Morbid: "if a creature died this turn" (CR 700.4).
    CreatureDied,
    /// "if an opponent lost life this turn" (CR 119.3; damage to a player included).
    OpponentLostLife,
    /// "if you gained life this turn" (CR 119.9).
    YouGainedLife,
    /// Threshold: "if there are N or more cards in your graveyard".
    GraveyardAtLeast(u8),
    /// "if you control another <subtype>" (CR 205.3; not the source itself).
    ControlAnother(String),
    /// "if you control [another] creature with power N or greater".
    ControlPower { another: bool, power: u8 },
    /// "if it was kicked" (CR 702.33d).
    Kicked,
}

/// A cost of an activated ability (CR 602.1a, 118).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cost {
    pub mana: ManaCost,
    /// {T} (CR 107.5).
    pub tap: bool,
    /// "Sacrifice this" (CR 701.17).
    pub sacrifice_self: bool,
    /// "Pay N life" (CR 119.4).
    pub life: u8,
    /// "Sacrifice a creature" (`Some(false)`) or "Sacrifice another creature" (`Some(true)`)
    /// (CR 701.17): the activator chooses the creature as the cost is paid (CR 602.2b).
    pub sacrifice_creature: Option<bool>,
}

/// A static ability (CR 604).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Static {
    /// 614.1c: "This enters tapped."
    EntersTapped,
    /// 509.1a: "This creature can't block."
    CantBlock,
    /// 613.4c (layer 7c) / 613.1f (layer 6): "Enchanted/Equipped creature gets +P/+T [and
    /// has K]" and "Creatures you control get +P/+T".
    Anthem {
        who: Subject,
        power: i8,
        toughness: i8,
        keywords: Vec<Keyword>,
    },
    /// 613.4c / 613.1f: "Other Elf creatures you control get +1/+1", "Each creature you
    /// control with a +1/+1 counter on it has trample": the creatures of the controller that
    /// [`Group`] admits, as the static applies (CR 611.3a), not a fixed set.
    Lord {
        group: Group,
        power: i8,
        toughness: i8,
        keywords: Vec<Keyword>,
    },
    /// 509.1b: "This creature can't be blocked."
    CantBeBlocked,
    /// 604.2 / 611.3b: a static that applies only while its condition holds ("… as long as
    /// there are seven or more cards in your graveyard", "During your turn, …").
    While {
        condition: StaticCondition,
        then: Box<Static>,
    },
    /// 614.1c: "This creature enters with N +1/+1 counters on it [if <condition>]": a
    /// replacement effect on how it enters, the condition checked as it does.
    EntersWithCounters {
        count: u8,
        condition: Option<Condition>,
    },
    /// "This spell can't be countered" (CR 101.2: a spell or ability that would counter it
    /// does nothing to it).
    CantBeCountered,
    /// 100.2a: "A deck can have any number of cards named ~": a deck-construction rule that
    /// changes nothing in a game.
    DeckAnyNumber,
    /// 601.2f: "This spell costs {N} less to cast <when>" and "Affinity for <type>"
    /// (702.41a): a reduction of the generic part of its own cost.
    CostsLess { amount: u8, when: CostReduction },
    /// 601.2f: "Instant and sorcery spells you cast cost {N} less to cast."
    InstantSorceryCostLess(u8),
    /// 502.3: "This creature doesn't untap during your untap step."
    DoesntUntap,
    /// 508.1d: "This creature attacks each combat if able" (a requirement on declaring
    /// attackers).
    AttacksEachCombat,
    /// 509.1b: "This creature can't be blocked by <creature type>s".
    CantBeBlockedBy(&'static str),
    /// 613.4c (layer 7c): "Enchanted creature gets +P/+T for each <land type> you control":
    /// the change times the number counted as the static applies (CR 611.3a).
    AnthemPer {
        who: Subject,
        power: i8,
        toughness: i8,
        per: StaticCount,
    },
}

/// What a static ability's change is multiplied by, counted continuously (CR 611.3a).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StaticCount {
    /// "for each <basic land type> you control" (CR 205.3i: lands with that subtype).
    LandsYouControl(&'static str),
}

/// When (or how often) a spell's own cost reduction applies (CR 601.2f).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CostReduction {
    /// "if you control a <type>" (a permanent of that subtype, CR 205.3).
    IfControl(String),
    /// "if it targets a tapped creature".
    IfTargetsTapped,
    /// "Affinity for <type>s" (702.41a): for each permanent of that subtype you control.
    PerControlled(String),
    /// "for each instant and sorcery card in your graveyard".
    PerInstantSorceryInYourGraveyard,
}

/// Which of its controller's creatures a lord's static changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// "Other …": not the source itself.
    pub other: bool,
    /// "Elf creatures", "Cats": one creature type (CR 205.3m), or any creature.
    pub subtype: Option<String>,
    /// "with a +1/+1 counter on it" / "with +1/+1 counters on them".
    pub with_counter: bool,
}

/// When a conditional static applies (CR 604.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StaticCondition {
    /// "During your turn" (CR 500.1: the controller is the active player).
    YourTurn,
    /// Threshold: "as long as there are N or more cards in your graveyard".
    GraveyardAtLeast(u8),
}

/// One ability of a card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ability {
    Keyword(Keyword),
    /// The effects of an instant or sorcery, in order (CR 608.2c).
    Spell(Vec<Effect>),
    /// CR 603: a triggered ability; `condition` is its intervening-if clause (CR 603.4).
    Triggered {
        when: Trigger,
        condition: Option<Condition>,
        effects: Vec<Effect>,
    },
    /// CR 602: an activated ability; `sorcery` is "Activate only as a sorcery" (602.5d).
    Activated {
        cost: Cost,
        effects: Vec<Effect>,
        sorcery: bool,
    },
    /// CR 605.1a: "{T}: Add {C}" on a nonbasic permanent (index into WUBRG; one of them).
    Mana {
        tap: bool,
        colors: Vec<u8>,
    },
    /// CR 606: a loyalty ability, "+N: …" / "−N: …".
    Loyalty {
        change: i8,
        effects: Vec<Effect>,
    },
    Static(Static),
    /// CR 605.1a / 111.10a: "{T}, Sacrifice ~: Add one mana of any color" (a Treasure's
    /// ability): a mana ability whose cost also sacrifices its source.
    SacrificeMana {
        colors: Vec<u8>,
    },
    /// CR 601.2b / 601.2f: "As an additional cost to cast this spell, <cost>."
    AdditionalCost(AdditionalCost),
}

/// An additional cost paid as a spell is cast (CR 601.2b, 601.2h), chosen in the cast.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdditionalCost {
    /// "discard a card" (CR 701.9).
    Discard,
    /// "sacrifice a creature" (CR 701.17).
    SacrificeCreature,
    /// "sacrifice a creature or pay <mana>": the caster chooses one as it is cast.
    SacrificeCreatureOrPay(ManaCost),
}

impl Ability {
    /// The template's name, as coverage reports count it.
    pub fn template(&self) -> String {
        match self {
            Ability::Keyword(k) => format!("keyword {}", k.name()),
            Ability::Spell(e) => format!("spell {}", effect_names(e)),
            Ability::Triggered {
                when,
                condition,
                effects,
            } => {
                let cond = condition
                    .as_ref()
                    .map_or(String::new(), |c| format!(" if {c:?}"));
                format!("trigger {when:?}{cond}: {}", effect_names(effects))
            }
            Ability::Activated { effects, .. } => format!("activated: {}", effect_names(effects)),
            Ability::Mana { .. } => "mana ability".into(),
            Ability::Loyalty { .. } => "loyalty ability".into(),
            Ability::Static(s) => format!("static {}", static_name(s)),
            Ability::SacrificeMana { .. } => "sacrifice mana ability".into(),
            Ability::AdditionalCost(c) => format!("additional cost {c:?}"),
        }
    }
}

fn static_name(s: &Static) -> &'static str {
    match s {
        Static::EntersTapped => "enters tapped",
        Static::CantBlock => "can't block",
        Static::Anthem { .. } => "P/T anthem",
        Static::Lord { .. } => "lord",
        Static::CantBeBlocked => "can't be blocked",
        Static::While { .. } => "conditional",
        Static::EntersWithCounters { .. } => "enters with counters",
        Static::CostsLess { .. } | Static::InstantSorceryCostLess(_) => "cost change",
        Static::DeckAnyNumber => "any number in a deck",
        Static::CantBeCountered => "can't be countered",
        Static::AttacksEachCombat => "attacks each combat",
        Static::CantBeBlockedBy(_) => "can't be blocked by a type",
        Static::AnthemPer { .. } => "P/T anthem for each",
        Static::DoesntUntap => "doesn't untap",
    }
}

/// The effect kinds of a sequence, joined with "+".
pub fn effect_names(effects: &[Effect]) -> String {
    effects
        .iter()
        .map(effect_name)
        .collect::<Vec<_>>()
        .join("+")
}

pub fn effect_name(e: &Effect) -> &'static str {
    match e {
        Effect::Damage { .. } => "damage",
        Effect::Destroy(_) => "destroy",
        Effect::Exile(_) => "exile",
        Effect::Bounce(_) => "bounce",
        Effect::Tap(_) => "tap",
        Effect::Draw { .. } => "draw",
        Effect::Discard { .. } => "discard",
        Effect::GainLife { .. } => "gain life",
        Effect::LoseLife { .. } => "lose life",
        Effect::Pump { .. } => "pump",
        Effect::Counters { .. } => "counters",
        Effect::Tokens { .. } => "tokens",
        Effect::Scry(_) => "scry",
        Effect::Surveil(_) => "surveil",
        Effect::Mill(_) => "mill",
        Effect::CounterSpell => "counter spell",
        Effect::Modal { .. } => "modal",
        Effect::Food(_) => "food",
        Effect::Search { .. } => "search library",
        Effect::ExileFromGraveyard(_) => "exile from graveyard",
        Effect::CounterSpellOf { .. } => "counter spell",
        Effect::ReturnFromGraveyard { .. } => "return from graveyard",
        Effect::ExileGraveyard(_) => "exile a graveyard",
        Effect::CountedTokens { .. } => "counted tokens",
        Effect::TargetControllerCreates(_) => "tokens for the target's controller",
        Effect::DoubleCounters(_) => "double counters",
        Effect::Treasure(_) => "treasure",
        Effect::Kicked { .. } => "kicked instead",
        Effect::ReturnSmallPermanentFromGraveyard { .. } => "return from graveyard",
        Effect::DamageEqualToPower(_) => "damage equal to power",
        Effect::ReturnThisFromGraveyard { .. } => "return this from graveyard",
        Effect::Restrict { .. } => "restriction",
        Effect::ExileUntilLeaves(_) => "exile until it leaves",
        Effect::Reflexive(_) => "reflexive trigger",
        Effect::ChooseDiscard { .. } => "discard of your choice",
        Effect::DoublePower(_) => "double power",
        Effect::IfLifeExactly { .. } => "if exactly N life",
        Effect::Untap(_) => "untap",
        Effect::Stun { .. } => "stun counters",
        Effect::PreventCombatDamageTo(_) => "prevent combat damage",
        Effect::GainLifePer { .. } => "gain life for each",
        Effect::DrawPer(_) => "draw for each",
        Effect::InsteadIf { .. } => "instead if",
        Effect::LoseLifeEqual { .. } => "lose life equal to",
        Effect::UpToOne(_) => "up to one target",
        Effect::Fight { mutual: true, .. } => "fight",
        Effect::Fight { .. } => "damage equal to its power to a second target",
        Effect::BounceBoth(..) => "bounce two targets",
        Effect::DrainX => "each opponent loses X, you gain the life lost",
        Effect::May(_) => "you may",
        Effect::LookAt(_) => "look at the top",
    }
}

/// A card's compiled rules text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Compiled {
    pub abilities: Vec<Ability>,
}

/// Why a card's rules text did not compile: the first fragment no template matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unparsed {
    /// The fragment, as written (reminder text removed, the card's name shown as `~`).
    pub fragment: String,
    /// The rules shape it looks like: the group of the missing template in coverage reports.
    pub shape: String,
}
