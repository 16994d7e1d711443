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
//! The document's code blocks are its words too ([`crate::text::Document::code`]): a
//! walk-through's prose names the identifiers of the code beside it ("If you are using
//! `cluster`, each of the workers …"), and a stem that the code uses is not new to the document.
//!
//! Novelty depends on every unit of a level, so a front end that caches transitions recomputes it
//! from the whole level whenever a unit changes (as it does intrusion scores).

use super::tokens::tokens;
use super::vocabulary::Vocabulary;
use super::Unit;
use std::collections::HashSet;

/// Fewest distinct content stems a unit needs for its novelty to mean anything.
pub const MIN_STEMS: usize = 4;

/// The novelty of every unit of a level, in order (`None` for units with fewer than
/// [`MIN_STEMS`] distinct content stems); a stem that `code` (the document's code blocks) uses is
/// not new.
pub fn novelty(units: &[Unit<'_>], code: &[String]) -> Vec<Option<f64>> {
    let vocabulary = Vocabulary::of(units);
    // Memoized per block: on the keystroke path the code is read again at every analysis.
    let in_code: HashSet<u32> = code
        .iter()
        .flat_map(|block| tokens(block).iter().map(|t| t.stem_id).collect::<Vec<_>>())
        .collect();
    (0..vocabulary.len())
        .map(|u| {
            let stems = vocabulary.distinct(u);
            if stems.len() < MIN_STEMS {
                return None;
            }
            // Stems no other unit uses.
            let new = stems
                .iter()
                .filter(|&&id| {
                    vocabulary
                        .stem(id)
                        .is_some_and(|s| s.units <= 1 && !in_code.contains(&s.id))
                })
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
        let n = novelty(&units, &[]);
        assert_eq!(n.len(), 5);
        assert_eq!(n[2], Some(1.0));
        assert!(n[0].unwrap() < 0.5 && n[3].unwrap() < 0.5, "{n:?}");
        assert_eq!(n[4], None);
    }

    #[test]
    fn the_code_beside_a_walk_through_is_the_document_s_words_too() {
        // nodemon's README: a paragraph between two code blocks names their identifiers.
        let units: Vec<Unit<'_>> = vec![
            vec!["Please note that nodemon will send this signal to every process in the process tree."],
            vec![
                "If you are using cluster, then each workers (as well as the master) will receive the signal.",
                "If you wish to terminate all workers on receiving a SIGHUP, a common pattern is to catch the SIGHUP in the master, and forward SIGTERM to all workers, while ensuring that all workers ignore SIGHUP.",
            ],
            vec!["nodemon sends a kill signal to your application when it sees a file update."],
        ];
        let code = [
            "if (cluster.isMaster) {\n  process.on(\"SIGHUP\", function () {\n    for (const worker of Object.values(cluster.workers)) {\n      worker.process.kill(\"SIGTERM\");\n    }\n  });\n}\n".to_string(),
        ];
        let alone = novelty(&units, &[]);
        let beside = novelty(&units, &code);
        let (Some(alone), Some(beside)) = (alone[1], beside[1]) else {
            panic!("{alone:?} {beside:?}");
        };
        // `cluster`, `workers`, `SIGHUP` and `SIGTERM` are the code's.
        assert!(alone > 0.9 && beside < alone - 0.15, "{alone} -> {beside}");
    }
}
