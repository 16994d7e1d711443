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

use super::tokens::{tokens, Token, WordClass};
use super::{Level, Unit};
use ahash::AHashMap as HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// What the level says about one stem.
struct Stem<'t> {
    /// Rank of its first occurrence in the level.
    first: u32,
    /// Rank of its first nominal mention, if it has one (it is then an entity).
    nominal: Option<u32>,
    /// Units that use it.
    units: u32,
    /// The last unit counted in `units`.
    last_unit: usize,
    /// Whether some mention is a name or an acronym.
    name: bool,
    /// Surface form of its first nominal mention.
    surface: Option<&'t str>,
}

/// The fingerprint of every unit of a level (see the module documentation).
pub fn tier0_contexts(units: &[Unit<'_>], level: Level) -> Vec<u64> {
    let tokens: Vec<Vec<Arc<[Token]>>> = units
        .iter()
        .map(|u| u.iter().map(|s| tokens(s)).collect())
        .collect();
    let mut stems: HashMap<&str, Stem<'_>> = HashMap::default();
    let mut nominals = 0u32;
    for (k, unit) in tokens.iter().enumerate() {
        for t in unit.iter().flat_map(|s| s.iter()) {
            let first = stems.len() as u32;
            let stem = stems.entry(t.stem.as_str()).or_insert(Stem {
                first,
                nominal: None,
                units: 0,
                last_unit: usize::MAX,
                name: false,
                surface: None,
            });
            if stem.last_unit != k {
                stem.units += 1;
                stem.last_unit = k;
            }
            if t.class != WordClass::Other && stem.nominal.is_none() {
                stem.nominal = Some(nominals);
                nominals += 1;
                stem.surface = Some(t.surface.as_str());
            }
            if matches!(t.class, WordClass::Name | WordClass::Acronym) {
                stem.name = true;
            }
        }
    }
    tokens
        .iter()
        .map(|unit| {
            let mut own: Vec<(&str, &Stem<'_>)> = unit
                .iter()
                .flat_map(|s| s.iter())
                .filter_map(|t| stems.get_key_value(t.stem.as_str()))
                .map(|(k, v)| (*k, v))
                .collect();
            own.sort_by_key(|(_, s)| s.first);
            own.dedup_by_key(|(_, s)| s.first);
            let mut h = DefaultHasher::new();
            (level == Level::Sentence, units.len()).hash(&mut h);
            for (word, s) in &own {
                (word, s.units, s.nominal.is_some(), s.name, s.surface).hash(&mut h);
            }
            let mut entities: Vec<(u32, &str)> = own
                .iter()
                .filter_map(|(w, s)| s.nominal.map(|n| (n, *w)))
                .collect();
            entities.sort_unstable();
            for (_, w) in entities {
                w.hash(&mut h);
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
