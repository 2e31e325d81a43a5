//! Creature types (CR 205.3m) the templates name: a word of rules text is a creature type
//! only if it is on this list, so "target vampire you control" or "another angel you control"
//! compile exactly and an unknown word is refused rather than read as a type. The list holds
//! the creature types of the shipped cards and of the tokens they make; a type missing here
//! refuses its card, it never changes what a compiled card means.

/// The creature types known here, as printed.
const CREATURE_TYPES: [&str; 86] = [
    "Angel",
    "Archer",
    "Avatar",
    "Bat",
    "Bear",
    "Beast",
    "Berserker",
    "Bird",
    "Boar",
    "Cat",
    "Centaur",
    "Citizen",
    "Cleric",
    "Construct",
    "Cyclops",
    "Demon",
    "Devil",
    "Dinosaur",
    "Dog",
    "Dragon",
    "Drake",
    "Druid",
    "Dwarf",
    "Elder",
    "Eldrazi",
    "Elemental",
    "Elephant",
    "Elf",
    "Elk",
    "Faerie",
    "Fish",
    "Giant",
    "Goblin",
    "Golem",
    "Gremlin",
    "Homunculus",
    "Horror",
    "Human",
    "Hydra",
    "Hyena",
    "Insect",
    "Juggernaut",
    "Knight",
    "Kraken",
    "Lizard",
    "Merfolk",
    "Minotaur",
    "Nightmare",
    "Noble",
    "Octopus",
    "Ooze",
    "Orc",
    "Otter",
    "Phoenix",
    "Phyrexian",
    "Pirate",
    "Rabbit",
    "Ranger",
    "Rat",
    "Rogue",
    "Saproling",
    "Scout",
    "Serpent",
    "Shaman",
    "Shark",
    "Skeleton",
    "Snake",
    "Soldier",
    "Sphinx",
    "Spider",
    "Spirit",
    "Thopter",
    "Treefolk",
    "Turtle",
    "Unicorn",
    "Vampire",
    "Wall",
    "Warlock",
    "Warrior",
    "Werewolf",
    "Wizard",
    "Wolf",
    "Wurm",
    "Zombie",
    "Squirrel",
    "Wraith",
];

/// The creature type a lower-case word names ("vampire" → "Vampire"), if it is one.
pub fn creature_type(word: &str) -> Option<&'static str> {
    CREATURE_TYPES
        .iter()
        .copied()
        .find(|t| t.eq_ignore_ascii_case(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cr_205_3m_only_listed_words_are_creature_types() {
        assert_eq!(creature_type("vampire"), Some("Vampire"));
        assert_eq!(creature_type("creature"), None);
        assert_eq!(creature_type("nontoken"), None);
    }
}
