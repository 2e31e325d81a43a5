//! bob: a personal LLM agent runtime as composable, Unix-style subcommands.
//!
//! The library holds every subsystem; [`cli`] is the thin command-line layer on top. Subsystems
//! never print and never import clap: they take typed input and return [`error::Result`].

pub mod chain;
pub mod cli;
pub mod clock;
pub mod config_file;
pub mod contracts;
pub mod db;
pub mod error;
pub mod home;
pub mod id_rule;
pub mod ids;
pub mod sealed;
pub mod settings;
pub mod signals;
pub mod sqlite;
pub mod store;

// Spine stages.
pub mod checkpoint;
pub mod condense;
pub mod conversation;
pub mod cost;
pub mod notes;
pub mod sanitize;
pub mod trace;

// Subsystems.
pub mod audit;
pub mod backend;
pub mod eval;
pub mod human;
pub mod keys;
pub mod ledger;
pub mod memory;
pub mod mtg;
pub mod redact;
pub mod runs;
pub mod sandbox;
pub mod schedule;
pub mod secrets;
pub mod serve;
pub mod shared_import;
pub mod tools;
pub mod turn;
pub mod turn_records;
