//! Secret redaction: the one step in front of every durable write bob makes (docs/design.md#security-model).
//!
//! # Where it runs
//!
//! The storage layer calls it: [`crate::store::write_json_atomic`],
//! [`crate::store::write_text_atomic`], [`crate::store::append_jsonl`] and
//! [`crate::store::jsonl_line`] redact what they serialize with the process-wide redactor of the
//! home ([`for_storage`]), so traces, turn records, checkpoints, failure-loop state and schedule
//! files are masked whoever writes them. The audit log and the approval ledger redact before
//! hashing (their chain hashes cover the redacted record), and memory redacts every row it
//! writes to SQLite (STM, LTM, candidates). Other subsystems with their own stores (the HTTP
//! cache) call [`Redactor::redact_str`] / [`Redactor::redact_value`].
//!
//! # What is replaced by `[REDACTED]`
//!
//! * **Known values**, by exact match: the values of this process's environment variables whose
//!   name says secret (`*_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`, `*_PASSWD`, `*_PWD`,
//!   `*_PASS`, `*_CREDENTIALS`; at least 8 characters, or [`MIN_LITERAL_CHARS`] when not a
//!   plain word), plus any value added
//!   with [`Redactor::add_literal`] (the secrets store's values).
//! * **The gitleaks default rule set** (`policy/secrets/gitleaks.toml`, MIT, shipped as data
//!   with its licence and version note in `policy/secrets/`): about two hundred provider token
//!   formats, with their keywords, `secretGroup`, entropy thresholds and allowlists.
//! * **bob's own rules** (`policy/secrets/bob.toml`, same format): `password=…`/`passwd: …`/
//!   `pwd=` and any `name=value` / `"name": "value"` whose name says secret (`DB_PASSWORD`,
//!   `aws_secret_access_key`, `secretKey`, `apiKey`, `accessToken`, `clientSecret`,
//!   `x-api-key`; short values too), `Authorization: Basic …` and `basic <base64 of user:pass>`,
//!   bearer tokens, URL passwords (`scheme://user:<password>@host`), secret URL query parameters
//!   (`?api_key=…&token=…&sig=…`), JWTs, PEM private keys and looser forms of the common
//!   provider keys.
//! * In JSON: the whole string value of a field whose name says secret (`api_key`, `token`,
//!   `secret`, `password`, `authorization`, and camelCase/kebab forms such as `secretKey`,
//!   `accessToken`, `x-api-key`); and a string value that is itself a JSON document is parsed
//!   and redacted recursively (then re-serialized compactly).
//! * Every match of a regex in the home's rule file: `<home>/redact.rules`, or the file named
//!   by the `redact.rules` setting (`BOB_REDACT_RULES`; one regex per line, `#` comments).
//! * Secrets in escaped or encoded text: a string holding `\` or `%` is also matched decoded
//!   ([`unescape`], [`percent_decode`]); when only a decoded form holds a secret, that form is
//!   what is returned, masked. A string holding JSON is redacted inside and then whole; object
//!   keys are redacted like values.
//! * Bare private-key bodies (three or more base64 lines of key length, `mask_key_bodies`),
//!   prose passwords (bob.toml's `bob-prose-password`), and everything after a PEM private-key
//!   header whose END line is missing.
//!
//! A caller that cuts text before a durable write redacts first ([`before_cut`]): a cut secret
//! is no longer recognisable.
//!
//! # How the rule set runs
//!
//! Rules are data: `build.rs` turns the two TOML files into static tables compiled into the
//! binary (no process parses them). Each rule's `keywords` go into one case-insensitive
//! keyword index (`Keywords`, built on the first redaction); a text is scanned once, and only the
//! rules whose keyword occurs run their regex (compiled the first time it is needed, then kept
//! for the process). The common case, a string with no candidate keyword, costs one linear scan
//! and allocates nothing. The shipped regexes run as RE2 reads them (ASCII `\w`/`\s`/`\b`, see
//! `compile`); every regex is Rust `regex` (finite automata, linear in the text), so redacting
//! a large value is linear too. Only the secret (the rule's `secretGroup`, else its first non-empty group, else
//! the whole match) is masked; the context stays readable. A rule with an `entropy` threshold
//! masks only secrets whose Shannon entropy is above it; allowlist `regexes` (`regexTarget`
//! `secret`, `match` or `line`) and `stopwords` let a finding through as gitleaks does, and the
//! global gitleaks allowlist applies to the gitleaks rules.
//!
//! What gitleaks features are not used: `path` constraints (bob redacts values, not files: the
//! rules that need a path are skipped) and allowlist `paths`/`commits`. Rules whose regex Rust
//! cannot compile are skipped and listed by [`skipped_rules`] (none in the shipped version; a
//! unit test pins that).
//!
//! [`Redactor::redact_value`] returns the JSON paths it replaced (`payload.input.token`), which
//! become an audit event's `redactions`.

mod decode;
mod home;
mod installed;
mod key_bodies;
mod names;
mod redactor;
mod rules;
#[cfg(test)]
mod tests;
mod watch;

pub use decode::{percent_decode, unescape};
pub use home::{before_cut, builtin, for_home, for_storage, set_process_home, watch_sources};
pub use installed::{MIN_LITERAL_CHARS, install};
pub use names::{is_secret_env_name, is_secret_field};
pub use redactor::{MAX_DECODE_DEPTH, Redactor};
pub use rules::{MASK, rule_count, shannon_entropy, skipped_rules};
