//! Integration tests: every test drives the real `bob` binary in a temporary home.
//! One test binary (modules below) keeps link time down.

mod env;
mod spine;
pub mod support;
mod tools;

pub use env::TestEnv;
