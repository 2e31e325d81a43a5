//! What LLM calls cost: a price table per model, from `config.toml`.
//!
//! ```toml
//! # Prices per million tokens, in the currency you bill in (bob does not convert).
//! [prices]
//! "gpt-4o-mini" = { input = 0.15, output = 0.60 }
//! "qwen2.5-7b-instruct" = { input = 0, output = 0 }   # a local model: free, but known
//! ```
//!
//! A call's cost is `prompt_tokens × input / 10⁶ + completion_tokens × output / 10⁶`, priced by
//! the model the server says answered (`model` of the reply), else the model bob asked for. A
//! model is found by its exact name, else by the longest table key it starts with followed by
//! `-` (so `gpt-4o-mini` prices the dated `gpt-4o-mini-2024-07-18`). Unknown is never zero: a
//! call whose reply had no `usage`, or whose model is not in the table, costs `null`, and so
//! does every sum (a turn, a scheduled job's turn) that includes one.

use crate::contracts::Usage;
use crate::error::{Error, Result};
use crate::settings::Settings;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The `config.toml` table of prices.
pub use crate::settings::PRICES_TABLE as TABLE;

/// The price of one model, per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Per million prompt (input) tokens.
    pub input: f64,
    /// Per million completion (output) tokens.
    pub output: f64,
}

/// The `[prices]` table: model name → [`Price`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prices {
    table: BTreeMap<String, Price>,
}

impl Prices {
    /// Checks a table read from `config.toml`: every price finite and not negative.
    pub fn new(table: BTreeMap<String, Price>) -> Result<Prices> {
        for (model, p) in &table {
            for (what, v) in [("input", p.input), ("output", p.output)] {
                if !v.is_finite() || v < 0.0 {
                    return Err(Error::invalid(format!(
                        "config.toml [prices] {model:?}: {what} must be a price per million tokens (a number ≥ 0), not {v}"
                    ))
                    .with("model", model.as_str()));
                }
            }
        }
        Ok(Prices { table })
    }

    /// The `[prices]` table of `config.toml` (an open table of the settings, owned and
    /// checked here; empty without one).
    pub fn load(settings: &Settings) -> Result<Prices> {
        let Some(v) = settings.config_table(TABLE) else {
            return Ok(Prices::default());
        };
        let table: BTreeMap<String, Price> = v.clone().try_into().map_err(|e: toml::de::Error| {
            Error::invalid(format!(
                "config.toml [prices]: {} (expected \"model\" = {{ input = N, output = N }}, per million tokens)",
                e.message()
            ))
        })?;
        Prices::new(table)
    }

    /// The price of `model`: its exact name, else the longest key `K` with `model` starting
    /// with `K-`.
    pub fn price_of(&self, model: &str) -> Option<Price> {
        if let Some(p) = self.table.get(model) {
            return Some(*p);
        }
        self.table
            .iter()
            .filter(|(k, _)| {
                model
                    .strip_prefix(k.as_str())
                    .is_some_and(|rest| rest.starts_with('-'))
            })
            .max_by_key(|(k, _)| k.len())
            .map(|(_, p)| *p)
    }

    /// The cost of one call that used `usage` on `model` (the reply's), else on `asked` (the
    /// configured model); `None` when the usage is unknown or neither model is priced.
    pub fn cost(&self, model: &str, asked: &str, usage: Option<&Usage>) -> Option<f64> {
        let u = usage?;
        let p = self.price_of(model).or_else(|| self.price_of(asked))?;
        Some((u.prompt_tokens as f64 * p.input + u.completion_tokens as f64 * p.output) / 1e6)
    }
}

/// A sum of usages or costs that stays unknown once one part is: `None` as soon as one
/// call's value is missing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Total<T> {
    sum: Option<T>,
}

impl<T: Copy> Total<T> {
    /// The total of no calls.
    pub fn zero(zero: T) -> Total<T> {
        Total { sum: Some(zero) }
    }

    /// Adds one call's value (`None`: unknown, so the total becomes unknown).
    pub fn add(&mut self, v: Option<T>, plus: impl Fn(T, T) -> T) {
        self.sum = match (self.sum, v) {
            (Some(a), Some(b)) => Some(plus(a, b)),
            _ => None,
        };
    }

    pub fn get(&self) -> Option<T> {
        self.sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prices() -> Prices {
        let t: BTreeMap<String, Price> = toml::from_str(
            r#""gpt-4o-mini" = { input = 0.15, output = 0.6 }
               "gpt-4o" = { input = 2.5, output = 10 }"#,
        )
        .unwrap();
        Prices::new(t).unwrap()
    }

    #[test]
    fn calls_are_priced_by_exact_then_longest_dated_name() {
        let p = prices();
        let u = Usage {
            prompt_tokens: 1_000_000,
            completion_tokens: 500_000,
            total_tokens: 1_500_000,
        };
        assert_eq!(p.cost("gpt-4o-mini", "x", Some(&u)), Some(0.45));
        assert_eq!(p.cost("gpt-4o-mini-2024-07-18", "x", Some(&u)), Some(0.45));
        assert_eq!(p.cost("gpt-4o-2024-08-06", "x", Some(&u)), Some(7.5));
        assert_eq!(p.cost("served-name", "gpt-4o", Some(&u)), Some(7.5));
        assert_eq!(
            p.cost("gpt-4o-mini", "x", None),
            None,
            "no usage is unknown"
        );
        assert_eq!(
            p.cost("llama", "llama", Some(&u)),
            None,
            "unpriced is unknown"
        );
        assert!(
            Prices::new(BTreeMap::from([(
                "m".to_string(),
                Price {
                    input: -1.0,
                    output: 0.0
                }
            )]))
            .is_err()
        );
    }

    #[test]
    fn a_total_with_an_unknown_part_is_unknown() {
        let mut t = Total::zero(0.0);
        t.add(Some(1.5), |a, b| a + b);
        assert_eq!(t.get(), Some(1.5));
        t.add(None, |a, b| a + b);
        t.add(Some(1.0), |a, b| a + b);
        assert_eq!(t.get(), None);
    }
}
