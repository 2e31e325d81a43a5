//! A Magic: The Gathering rules engine ("core rules v1", docs/design.md#module-map): cards and decks as
//! data (rules text compiled into typed abilities, card files read and their coverage
//! reported), the game state, the action contract, the ActionSurface, a pure reducer, agents,
//! selfplay, the GameJournal, the stored games (`game`), the play loop (`play`) and the tutor
//! (`tutor`). Knows nothing of the CLI.
//!
//! Rule numbers in comments are the Comprehensive Rules'.

pub mod action;
pub mod agents;
pub mod cards;
pub mod catalog;
pub mod compile;
pub mod decks;
pub mod engine;
pub mod facts;
#[cfg(test)]
mod fdn_tests;
pub mod game;
pub mod journal;
pub mod lessons;
pub mod lower;
pub mod model;
pub mod play;
#[cfg(test)]
mod spell_tests;
pub mod state;
#[cfg(test)]
mod tests;
pub mod tutor;

pub use action::{Action, ActionRequest, Viewer, surface, visible};
pub use engine::{Event, Illegal, Move, RULES_VERSION, apply};
pub use state::{Seat, State};
