//! Ids: the one rule every id that becomes a path or a log key follows, and where the ids a
//! run draws come from.
//!
//! **The rule.** A run, agent, request, session, job or confirmation id is 1-64 characters
//! matching [`PATTERN`] (`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`): it starts with a letter or a
//! digit, so it is never `.`, `..`, a hidden file or an option, and holds nothing a path or a
//! log line could misread (no `/`, `:`, `@`, space or control character). [`check`] is the one
//! checker; every entry point (the CLI, `bob serve`, tool requests) calls it, and so does every
//! place an id becomes a file name ([`crate::home::Home`]). An agent id may not be one of the
//! [`RESERVED_ACTORS`] (`human`, `system`): those name who acted in the audit log, and
//! `audit/human/` holds human acts only ([`check_agent`]). An id is also put through the home's
//! redactor before anything is written under it, and an id the redactor would change (it holds
//! a stored secret or looks like a credential) is refused rather than written, masked or not
//! ([`check_unredacted`], [`check_in_home`]).
//!
//! **User ids** (memory users, chat senders and rooms) name people in other systems
//! (`alice@example.com`, `@alice:example.org`), so they keep `:` and `@`: 1-128 characters
//! matching [`USER_PATTERN`] (`^[A-Za-z0-9@][A-Za-z0-9_.:@-]{0,127}$`, [`check_user`]). They are
//! database keys and log fields, never path components; they are redaction-checked the same way.
//!
//! In a turn, bob assigns the run, agent and request ids of every tool call: what a model's
//! call says about them is ignored (and named in the trace as ignored), never used.
//!
//! **Drawing ids.** Random (uuid v4) by default, or derived from a replay seed so a replay
//! turn is byte-identical across runs and homes. A seeded source is a ChaCha20 stream keyed by
//! SHA-256 of the seed and a context string (the session and the checkpoint revision a turn
//! starts from, so successive turns of one session, or turns of different sessions, never draw
//! the same ids from the same seed).

pub use crate::id_rule as rule;

use crate::error::{Error, Result};
use crate::redact::Redactor;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};

pub use rule::{
    MAX_LEN, MAX_USER_LEN, PATTERN, RESERVED_ACTORS, USER_PATTERN, check, check_agent, check_user,
    is_valid, is_valid_user,
};

/// Refuses an id (already checked against its rule) that `redactor` would change: an id is
/// redacted like any value before it is written, and one that holds a stored secret or looks
/// like a credential is refused rather than written masked.
pub fn check_unredacted<'a>(redactor: &Redactor, field: &str, s: &'a str) -> Result<&'a str> {
    if matches!(redactor.redact_str(s), std::borrow::Cow::Borrowed(_)) {
        return Ok(s);
    }
    Err(Error::invalid(format!(
        "{field} holds what the redactor masks (a stored secret or a credential): an id is \
         never written masked, so it is refused"
    ))
    .with("field", field)
    .with("redacted", true))
}

/// Which rule an id follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// [`check`]: runs, requests, sessions, jobs, confirmations.
    Id,
    /// [`check_agent`].
    Agent,
    /// [`check_user`].
    User,
}

/// Checks `s` by its rule ([`Kind`]) and against `redactor`.
pub fn check_kind<'a>(redactor: &Redactor, kind: Kind, field: &str, s: &'a str) -> Result<&'a str> {
    match kind {
        Kind::Id => check(field, s)?,
        Kind::Agent => check_agent(field, s)?,
        Kind::User => check_user(field, s)?,
    };
    check_unredacted(redactor, field, s)
}

/// Checks `s` by its rule ([`Kind`]) and against the home's redactor
/// ([`crate::redact::for_home`]): what an entry point calls for an id it was handed.
pub fn check_in_home<'a>(
    home: &crate::home::Home,
    kind: Kind,
    field: &str,
    s: &'a str,
) -> Result<&'a str> {
    check_kind(&*crate::redact::for_home(home)?, kind, field, s)
}

/// Where ids come from.
#[derive(Debug, Clone, Default)]
pub struct IdSource {
    seeded: Option<ChaCha20Rng>,
}

impl IdSource {
    /// Random ids (uuid v4).
    pub fn random() -> IdSource {
        IdSource::default()
    }

    /// Ids derived from `seed` and `context`; the same pair gives the same sequence.
    pub fn seeded(seed: u64, context: &str) -> IdSource {
        let mut h = Sha256::new();
        h.update(seed.to_le_bytes());
        h.update(context.as_bytes());
        IdSource {
            seeded: Some(ChaCha20Rng::from_seed(h.finalize().into())),
        }
    }

    /// Whether the ids are derived from a seed.
    pub fn is_seeded(&self) -> bool {
        self.seeded.is_some()
    }

    /// 32 lower-case hex digits (the form of a uuid's `simple()` rendering).
    pub fn hex32(&mut self) -> String {
        match &mut self.seeded {
            Some(rng) => {
                let mut b = [0u8; 16];
                rng.fill_bytes(&mut b);
                hex::encode(b)
            }
            None => uuid::Uuid::new_v4().simple().to_string(),
        }
    }

    /// A version 4 uuid: random, or built from 16 seeded bytes (still a well-formed v4 uuid,
    /// so whatever recognises bob's uuid-named files recognises it).
    pub fn uuid4(&mut self) -> uuid::Uuid {
        match &mut self.seeded {
            Some(rng) => {
                let mut b = [0u8; 16];
                rng.fill_bytes(&mut b);
                uuid::Builder::from_random_bytes(b).into_uuid()
            }
            None => uuid::Uuid::new_v4(),
        }
    }

    /// A derived source for a part of the run (`label`), independent of how many ids the
    /// parent has drawn so far: random stays random.
    pub fn child(&self, seed: Option<u64>, context: &str, label: &str) -> IdSource {
        match (seed, self.is_seeded()) {
            (Some(s), true) => IdSource::seeded(s, &format!("{context}\0{label}")),
            _ => IdSource::random(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_rule_is_the_pattern() {
        let re = regex::Regex::new(PATTERN).unwrap();
        let user = regex::Regex::new(USER_PATTERN).unwrap();
        let max = "a".repeat(64);
        let over = "a".repeat(65);
        let umax = "u".repeat(128);
        let uover = "u".repeat(129);
        let samples = [
            "",
            ".",
            "..",
            ".a",
            "-a",
            "_a",
            "a",
            "A.b-c_9",
            "run_0f",
            "a/b",
            "a b",
            "a:b",
            "a@b",
            "@alice:example.org",
            "alice@example.com",
            "é",
            "a\n",
            "a\0",
            "%2e",
            max.as_str(),
            over.as_str(),
            umax.as_str(),
            uover.as_str(),
            "human",
            "9",
        ];
        for s in samples {
            assert_eq!(re.is_match(s), is_valid(s), "PATTERN on {s:?}");
            assert_eq!(re.is_match(s), check("id", s).is_ok(), "check on {s:?}");
            assert_eq!(user.is_match(s), is_valid_user(s), "USER_PATTERN on {s:?}");
            assert_eq!(user.is_match(s), check_user("user", s).is_ok(), "{s:?}");
        }
    }

    #[test]
    fn a_refusal_names_the_field_and_never_repeats_the_value() {
        let secret = "sk-live:0123456789abcdefSECRET";
        let e = check("run_id", secret).unwrap_err();
        assert_eq!(e.code, crate::error::Code::InvalidRequest);
        assert_eq!(e.details["field"], "run_id");
        assert!(!e.message.contains("SECRET"), "{}", e.message);
        assert!(e.message.contains("character 8 is ':'"), "{}", e.message);
        let e = check("agent_id", &"x".repeat(70)).unwrap_err();
        assert!(e.message.contains("70 bytes"), "{}", e.message);
        assert!(
            check("id", "../x")
                .unwrap_err()
                .message
                .contains("starts with '.'")
        );
    }

    #[test]
    fn human_and_system_are_never_agent_ids() {
        for r in RESERVED_ACTORS {
            assert!(check("id", r).is_ok());
            let e = check_agent("agent_id", r).unwrap_err();
            assert_eq!(e.code, crate::error::Code::InvalidRequest);
            assert_eq!(e.details["field"], "agent_id");
        }
        assert!(check_agent("agent_id", "agent_default").is_ok());
        assert!(check_agent("agent_id", "humans").is_ok());
    }

    #[test]
    fn an_id_the_redactor_would_change_is_refused() {
        let mut r = Redactor::default();
        r.add_literal("tok3nS3cretValue42");
        for id in [
            "tok3nS3cretValue42",
            "run_tok3nS3cretValue42_x",
            "AKIAZ7Q2WX3ERT4YUI5P",
        ] {
            assert!(check("run_id", id).is_ok());
            let e = check_unredacted(&r, "run_id", id).unwrap_err();
            assert_eq!(e.details["field"], "run_id");
            assert!(!e.message.contains(id));
        }
        // bob's own ids pass the shipped rules.
        let mut ids = IdSource::seeded(1, "x");
        let own = [
            format!("run_{}", ids.hex32()),
            format!("human_{}", IdSource::random().hex32()),
            "agent_default".to_string(),
            "call_1".to_string(),
            format!("search_0_{}", ids.hex32()),
            ids.uuid4().to_string(),
        ];
        for id in &own {
            assert!(
                check_unredacted(&r, "id", check("id", id).unwrap()).is_ok(),
                "{id}"
            );
        }
    }

    proptest::proptest! {
        /// The checkers accept exactly what the published patterns match, and a refusal never
        /// repeats the value.
        #[test]
        fn the_checkers_are_the_patterns(s in "[A-Za-z0-9_.:@/ -]{0,70}|\\PC{0,8}") {
            let re = regex::Regex::new(PATTERN).unwrap();
            let user = regex::Regex::new(USER_PATTERN).unwrap();
            proptest::prop_assert_eq!(re.is_match(&s), check("id", &s).is_ok());
            proptest::prop_assert_eq!(user.is_match(&s), check_user("user", &s).is_ok());
            if let Err(e) = check("id", &s)
                && s.len() > 3
            {
                let said = e.message.replace(PATTERN, "");
                proptest::prop_assert!(!said.contains(&s), "{}", e.message);
            }
        }
    }

    #[test]
    fn seeded_ids_repeat_and_differ_by_context() {
        let a: Vec<String> = {
            let mut s = IdSource::seeded(7, "s1\x003");
            (0..3).map(|_| s.hex32()).collect()
        };
        let mut b = IdSource::seeded(7, "s1\x003");
        assert_eq!(a, (0..3).map(|_| b.hex32()).collect::<Vec<_>>());
        assert_ne!(a[0], IdSource::seeded(7, "s1\x004").hex32());
        assert_ne!(a[0], IdSource::seeded(8, "s1\x003").hex32());
        assert_eq!(a[0].len(), 32);
        let mut r = IdSource::random();
        assert_ne!(r.hex32(), r.hex32());
        let u = IdSource::seeded(7, "x").uuid4();
        assert_eq!(u, IdSource::seeded(7, "x").uuid4());
        assert_eq!(u.get_version_num(), 4);
    }
}
