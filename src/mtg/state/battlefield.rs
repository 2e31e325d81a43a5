//! The battlefield's permanents, in the order they entered, and which of them have static
//! abilities.
//!
//! Static abilities (CR 604.2) are read on every power, toughness and keyword query; scanning
//! the whole battlefield for their sources each time was the engine's largest cost. The
//! sources are remembered here instead, and the memory cannot go stale: every change of the
//! list goes through a method of this type (it dereferences to a read-only slice, never to a
//! mutable one), and every such method forgets the sources, which are found again on the next
//! read. A card object's card never changes (the card table is fixed when a game starts), so
//! the list of ids alone decides which permanents are sources.

use super::Id;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::sync::OnceLock;

/// The permanents on the battlefield (serialized as the plain list of ids).
#[derive(Debug, Clone, Default)]
pub struct Battlefield {
    ids: Vec<Id>,
    /// The ids whose card has static abilities, in battlefield order; empty until read after
    /// a change.
    sources: OnceLock<Vec<Id>>,
}

impl Battlefield {
    pub fn push(&mut self, id: Id) {
        self.changed().push(id);
    }
    pub fn insert(&mut self, index: usize, id: Id) {
        self.changed().insert(index, id);
    }
    pub fn remove(&mut self, index: usize) -> Id {
        self.changed().remove(index)
    }
    pub fn retain(&mut self, keep: impl FnMut(&Id) -> bool) {
        self.changed().retain(keep);
    }
    pub fn clear(&mut self) {
        self.changed().clear();
    }

    /// The ids, for a change: the remembered sources are forgotten first.
    fn changed(&mut self) -> &mut Vec<Id> {
        self.sources.take();
        &mut self.ids
    }

    /// The permanents whose card has static abilities (`has_statics` says which), found once
    /// per change of the list.
    pub(super) fn sources(&self, has_statics: impl Fn(Id) -> bool) -> &[Id] {
        let sources = self.sources.get_or_init(|| {
            self.ids
                .iter()
                .copied()
                .filter(|&id| has_statics(id))
                .collect()
        });
        debug_assert!(
            sources
                .iter()
                .copied()
                .eq(self.ids.iter().copied().filter(|&id| has_statics(id))),
            "remembered static sources {sources:?} differ from the battlefield {:?}",
            self.ids
        );
        sources
    }
}

impl std::ops::Deref for Battlefield {
    type Target = [Id];
    fn deref(&self) -> &[Id] {
        &self.ids
    }
}

impl<'a> IntoIterator for &'a Battlefield {
    type Item = &'a Id;
    type IntoIter = std::slice::Iter<'a, Id>;
    fn into_iter(self) -> Self::IntoIter {
        self.ids.iter()
    }
}

impl From<Vec<Id>> for Battlefield {
    fn from(ids: Vec<Id>) -> Battlefield {
        Battlefield {
            ids,
            sources: OnceLock::new(),
        }
    }
}

impl PartialEq for Battlefield {
    fn eq(&self, other: &Battlefield) -> bool {
        self.ids == other.ids
    }
}

impl Serialize for Battlefield {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.ids.serialize(s)
    }
}
impl<'de> Deserialize<'de> for Battlefield {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Battlefield, D::Error> {
        Vec::<Id>::deserialize(d).map(Battlefield::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_change_forgets_the_remembered_sources() {
        let even = |id: Id| id.0.is_multiple_of(2);
        let mut b = Battlefield::from(vec![Id(0), Id(1)]);
        assert_eq!(b.sources(even), [Id(0)]);
        b.push(Id(2));
        assert_eq!(b.sources(even), [Id(0), Id(2)]);
        b.remove(0);
        assert_eq!(b.sources(even), [Id(2)]);
        b.insert(0, Id(4));
        assert_eq!(b.sources(even), [Id(4), Id(2)]);
        b.retain(|&id| id != Id(2));
        assert_eq!(b.sources(even), [Id(4)]);
        b.clear();
        assert!(b.sources(even).is_empty());
        assert_eq!(serde_json::to_string(&b).unwrap(), "[]");
        let b: Battlefield = serde_json::from_str(r#"["c1","c2","c3"]"#).unwrap();
        assert_eq!(b.sources(even), [Id(0), Id(2)]);
    }
}
