//! Per-unit fingerprints of the whole-level statistics that `tier0`'s transitions read
//! ([`super::Scorer::unit_contexts`]), so that the language server re-scores after an edit only
//! the transitions those statistics changed for.
//!
//! A `tier0` transition `a → b` reads the two units' own texts and, from the rest of the level:
//! - the number of units (the idf weights and the entity grid's rarity weights);
//! - for each stem of `a` or `b`, the number of units that use it (idf, salience, rarity);
//! - for each entity stem of `a` or `b` (a stem seen as a noun, name or acronym anywhere in the
//!   level, [`super::entity_grid`]): that it is one, whether it is ever a name, and the surface
//!   form of its first nominal mention (shown in reasons);
//! - the order of first occurrence of its stems, and of first nominal mention of its entities,
//!   which orders the sums of the weighted cosines and breaks ties among shared entities in
//!   reasons.
//!
//! A unit's fingerprint hashes exactly these for its own stems, so a pair whose two fingerprints
//! and texts are unchanged scores and reads the same. An edit that changes no stem's unit count
//! (a typo fixed inside a word that keeps its stem elsewhere) changes one unit's transitions only;
//! one that removes a word's last use changes the fingerprints of the units that share it.

use super::vocabulary::Vocabulary;
use super::{Level, Unit};
use ahash::AHasher;
use std::hash::{Hash, Hasher};

/// The fingerprint of every unit of a level (see the module documentation).
pub fn tier0_contexts(units: &[Unit<'_>], level: Level) -> Vec<u64> {
    let vocabulary = Vocabulary::of(units);
    // What the level says about each stem, hashed once per stem rather than once per unit
    // that uses it.
    let stems: Vec<u64> = (0..vocabulary.stems() as u32)
        .map(|id| {
            let mut h = AHasher::default();
            if let Some(s) = vocabulary.stem(id) {
                (s.id, s.units, s.nominal.is_some(), s.name).hash(&mut h);
                vocabulary.surface(id).hash(&mut h);
            }
            h.finish()
        })
        .collect();
    let mut entities: Vec<(u32, u32)> = Vec::new();
    (0..vocabulary.len())
        .map(|u| {
            let mut h = AHasher::default();
            (level == Level::Sentence, units.len()).hash(&mut h);
            // Local ids ascend in order of first occurrence; process-wide ids stand for words.
            entities.clear();
            for &id in vocabulary.distinct(u) {
                let (Some(s), Some(stem)) = (vocabulary.stem(id), stems.get(id as usize)) else {
                    continue;
                };
                stem.hash(&mut h);
                if let Some(n) = s.nominal {
                    entities.push((n, s.id));
                }
            }
            entities.sort_unstable();
            for (_, id) in &entities {
                id.hash(&mut h);
            }
            h.finish()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_changes_the_fingerprints_of_the_units_that_share_its_words_only() {
        let units: Vec<Unit> = vec![
            vec!["The parser reads Markdown files."],
            vec!["The parser skips code blocks."],
            vec!["Penguins waddle across the ice."],
            vec!["Krill feed the penguins."],
        ];
        let before = tier0_contexts(&units, Level::Sentence);
        // "parser" loses a unit: the other unit that uses it changes, the penguins do not.
        let mut edited = units.clone();
        edited[1] = vec!["The reader skips code blocks."];
        let after = tier0_contexts(&edited, Level::Sentence);
        assert_ne!(before[0], after[0]);
        assert_ne!(before[1], after[1]);
        assert_eq!(before[2..], after[2..]);
        // The level and the number of units are part of every fingerprint.
        assert_ne!(before, tier0_contexts(&units, Level::Paragraph));
        assert_ne!(
            before[..3],
            tier0_contexts(&units[..3], Level::Sentence)[..]
        );
    }
}
