//! Novelty: how much of a unit's vocabulary the rest of its document never uses.
//!
//! A sentence or paragraph that belongs to a document shares most of its content words with the
//! other units of that document — terms recur, names come back. A unit pasted in from elsewhere
//! brings words nobody else in the document uses. The novelty of a unit is the share of its
//! distinct content stems ([`super::tokens::tokenize`]) that occur in no other unit of the same
//! level; it is independent of any scorer, so findings weigh it alongside the scorer's own
//! verdict (a unit is out of place when it stands apart from its neighbours *and* its words are
//! new to the document).
//!
//! Novelty depends on every unit of a level, so a front end that caches transitions recomputes it
//! from the whole level whenever a unit changes (as it does intrusion scores).

use super::vocabulary::Vocabulary;
use super::Unit;

/// Fewest distinct content stems a unit needs for its novelty to mean anything.
pub const MIN_STEMS: usize = 4;

/// The novelty of every unit of a level, in order (`None` for units with fewer than
/// [`MIN_STEMS`] distinct content stems).
pub fn novelty(units: &[Unit<'_>]) -> Vec<Option<f64>> {
    let vocabulary = Vocabulary::of(units);
    (0..vocabulary.len())
        .map(|u| {
            let stems = vocabulary.distinct(u);
            if stems.len() < MIN_STEMS {
                return None;
            }
            // Stems no other unit uses.
            let new = stems
                .iter()
                .filter(|&&id| vocabulary.stem(id).map_or(0, |s| s.units) <= 1)
                .count();
            Some(new as f64 / stems.len() as f64)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pasted_unit_brings_new_words() {
        let units: Vec<Unit<'_>> = vec![
            vec!["The cache stores encoded vectors for every sentence."],
            vec!["Each vector in the cache is keyed by the sentence hash."],
            vec!["Penguins waddle across Antarctic ice in winter storms."],
            vec!["The cache evicts old vectors for each sentence."],
            vec!["Short one."],
        ];
        let n = novelty(&units);
        assert_eq!(n.len(), 5);
        assert_eq!(n[2], Some(1.0));
        assert!(n[0].unwrap() < 0.5 && n[3].unwrap() < 0.5, "{n:?}");
        assert_eq!(n[4], None);
    }
}
