//! Cost-change templates (CR 601.2f): a spell's own reduction ("This spell costs {1} less to
//! cast if …", "Affinity for Cats", CR 702.41a) and a permanent's reduction of the spells its
//! controller casts. Only the generic part of a cost is ever reduced.

use super::ast::*;
use super::effects::capitalize;

/// One creature or artifact type word, singular ("wizard", "cats" → "Cat").
fn subtype(word: &str, plural: bool) -> Option<String> {
    let w = if plural {
        word.strip_suffix('s')?
    } else {
        word
    };
    (!w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase())).then(|| capitalize(w))
}

/// "{N}" as N.
fn generic(s: &str) -> Option<u8> {
    s.strip_prefix('{')?.strip_suffix('}')?.parse().ok()
}

/// A cost-change line, or None.
pub(super) fn cost_static(line: &str) -> Option<Static> {
    let line = line.trim_end_matches('.');
    if let Some(t) = line.strip_prefix("affinity for ") {
        return Some(Static::CostsLess {
            amount: 1,
            when: CostReduction::PerControlled(subtype(t, true)?),
        });
    }
    if let Some(r) = line.strip_prefix("instant and sorcery spells you cast cost ") {
        return Some(Static::InstantSorceryCostLess(generic(
            r.strip_suffix(" less to cast")?,
        )?));
    }
    let r = line.strip_prefix("~ costs ")?;
    let (n, when) = r.split_once(" less to cast ")?;
    let when = match when {
        "if it targets a tapped creature" => CostReduction::IfTargetsTapped,
        "for each instant and sorcery card in your graveyard" => {
            CostReduction::PerInstantSorceryInYourGraveyard
        }
        w => {
            let t = w
                .strip_prefix("if you control a ")
                .or_else(|| w.strip_prefix("if you control an "))?;
            CostReduction::IfControl(subtype(t, false)?)
        }
    };
    Some(Static::CostsLess {
        amount: generic(n)?,
        when,
    })
}
