//! The ids a run draws (run ids, audit nonces, short-term entry and candidate ids): random
//! (uuid v4) by default, or derived from a replay seed so a replay turn is byte-identical across
//! runs and homes.
//!
//! A seeded source is a ChaCha20 stream keyed by SHA-256 of the seed and a context string
//! (the session and the checkpoint revision a turn starts from, so successive turns of one
//! session, or turns of different sessions, never draw the same ids from the same seed).

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};

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
