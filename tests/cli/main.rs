//! Integration tests: every test drives the real `bob` binary in a temporary home.
//! One test binary (modules below) keeps link time down.

mod chat;
mod env;
mod spine;
pub mod support;

pub use env::TestEnv;
