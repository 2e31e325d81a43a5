//! Integration tests: every test drives the real `bob` binary in a temporary home.
//! One test binary (modules below) keeps link time down.

mod architecture;
mod argv_policy;
mod canary;
mod chat;
mod condense;
mod contracts;
mod design_doc;
mod domain;
mod env;
mod eval;
mod ids;
mod integrity;
mod keys;
mod memory;
mod mtg;
mod netpolicy;
mod notes;
mod progress;
mod redaction;
mod redaction_at_rest;
mod sandbox;
mod sanitize;
mod schedule;
mod secrets;
mod serve;
mod serve_security;
mod settings;
mod shared_store;
mod spine;
mod state;
mod storage;
pub mod support;
mod surface;
mod tools;
mod trace;
mod turn;
mod turn_profiles;
mod turn_promises;
mod turn_seed001;

pub use env::TestEnv;
