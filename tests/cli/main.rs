//! Integration tests: every test drives the real `bob` binary in a temporary home.
//! One test binary (modules below) keeps link time down.

mod contracts;
mod env;
mod notes;
mod spine;
pub mod support;
mod state;

pub use env::TestEnv;
