//! Lexical cohesion after Ermakova et al. (seed 002): cosine similarity of adjacent units over
//! stemmed content words, and a variant that weights guessed nouns and names.

use super::memo::Memo;
use super::tokens::{tokens, WordClass};
use super::{ContextPolicy, Level, Pairwise, Reason, Scorer, Unit};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// Cosine of stemmed content-word vectors.
#[derive(Debug, Clone)]
pub struct Lexical {
    name: &'static str,
    nouns: bool,
}

impl Lexical {
    /// All content words weigh the same (Ermakova's *Sim*).
    pub fn plain() -> Self {
        Lexical {
            name: "lexical",
            nouns: false,
        }
    }

    /// Names, acronyms and guessed nouns weigh most (Ermakova's *NounSim*, without a tagger).
    pub fn nouns() -> Self {
        Lexical {
            name: "lexical-noun",
            nouns: true,
        }
    }

    fn weight(&self, class: WordClass) -> f64 {
        if !self.nouns {
            return 1.0;
        }
        match class {
            WordClass::Name | WordClass::Acronym => 1.5,
            WordClass::Noun => 1.0,
            WordClass::Other => 0.25,
        }
    }
}

/// A sparse term vector with the surface form of each stem, for reasons.
#[derive(Debug, Clone, Default)]
pub(crate) struct TermVector {
    pub(crate) weights: HashMap<String, f64>,
    pub(crate) surface: HashMap<String, String>,
    /// The same weights by the stems' process-wide ids ([`super::stems`]), ascending: what
    /// [`TermVector::cosine`] merges (no string is hashed, and the dot product and the norm are
    /// summed in one fixed order, so equal texts give equal scores bit for bit).
    terms: Vec<(u32, f64)>,
    pub(crate) norm: f64,
}

impl TermVector {
    pub(crate) fn cosine(&self, other: &TermVector) -> f64 {
        if self.norm == 0.0 || other.norm == 0.0 {
            return 0.0;
        }
        let (a, b) = (&self.terms, &other.terms);
        let (mut i, mut j, mut dot) = (0, 0, 0.0);
        while let (Some(&(x, w)), Some(&(y, v))) = (a.get(i), b.get(j)) {
            match x.cmp(&y) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    dot += w * v;
                    i += 1;
                    j += 1;
                }
            }
        }
        if dot <= 0.0 {
            return 0.0;
        }
        (dot / (self.norm * other.norm)).min(1.0)
    }

    /// Shared terms, heaviest first.
    pub(crate) fn shared(&self, other: &TermVector) -> Vec<String> {
        let mut common: Vec<(&String, f64)> = self
            .weights
            .iter()
            .filter_map(|(k, w)| other.weights.get(k).map(|v| (k, w * v)))
            .collect();
        common.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        common
            .into_iter()
            .map(|(k, _)| other.surface.get(k).cloned().unwrap_or_else(|| k.clone()))
            .collect()
    }
}

struct LexicalPairs {
    vectors: Vec<Arc<TermVector>>,
}

/// Units whose vectors [`Lexical::vector`] keeps (per generation and weighting; see [`Memo`]).
const MEMO_UNITS: usize = 16_384;

/// A unit's text as one memo key: its sentences joined by a separator no clean text contains.
pub(crate) fn unit_key(unit: &Unit<'_>) -> String {
    unit.join("\u{1e}")
}

impl Pairwise for LexicalPairs {
    fn len(&self) -> usize {
        self.vectors.len()
    }

    fn transition(&self, from: usize, to: usize) -> f64 {
        match (self.vectors.get(from), self.vectors.get(to)) {
            (Some(a), Some(b)) => a.cosine(b),
            _ => 0.0,
        }
    }

    fn reason(&self, from: usize, to: usize) -> Reason {
        match (self.vectors.get(from), self.vectors.get(to)) {
            (Some(a), Some(b)) => Reason {
                shared: a.shared(b),
                note: None,
            },
            _ => Reason::default(),
        }
    }
}

impl Scorer for Lexical {
    fn name(&self) -> &'static str {
        self.name
    }

    fn context_policy(&self) -> ContextPolicy {
        ContextPolicy::Pairwise
    }

    fn description(&self) -> &'static str {
        if self.nouns {
            "cosine of stemmed content words, weighting names and guessed nouns (Ermakova NounSim)"
        } else {
            "cosine of stemmed content words of adjacent units (Ermakova Sim)"
        }
    }

    fn tier(&self) -> u8 {
        0
    }

    fn prepare<'a>(&'a self, units: &[Unit<'_>], _level: Level) -> Box<dyn Pairwise + 'a> {
        let vectors = units.iter().map(|unit| self.vector(unit)).collect();
        Box::new(LexicalPairs { vectors })
    }
}

impl Lexical {
    /// The term vector of one unit, memoized per unit text for the whole process (a pure
    /// function of the text and the weighting).
    pub(crate) fn vector(&self, unit: &Unit<'_>) -> Arc<TermVector> {
        static PLAIN: OnceLock<Memo<Arc<TermVector>>> = OnceLock::new();
        static NOUNS: OnceLock<Memo<Arc<TermVector>>> = OnceLock::new();
        let memo = if self.nouns { &NOUNS } else { &PLAIN };
        memo.get_or_init(|| Memo::new(MEMO_UNITS))
            .get_or(&unit_key(unit), |_| Arc::new(self.compute(unit)))
    }

    fn compute(&self, unit: &Unit<'_>) -> TermVector {
        let mut v = TermVector::default();
        // Per stem id: its index in `terms` (a stem's id and its text go together).
        let mut at: ahash::AHashMap<u32, usize> = ahash::AHashMap::new();
        for sentence in unit {
            for tok in tokens(sentence).iter() {
                let weight = self.weight(tok.class);
                match v.weights.get_mut(&tok.stem) {
                    Some(w) => *w += weight,
                    None => {
                        v.weights.insert(tok.stem.clone(), weight);
                        v.surface.insert(tok.stem.clone(), tok.surface.clone());
                    }
                }
                match at.get(&tok.stem_id).and_then(|&k| v.terms.get_mut(k)) {
                    Some(t) => t.1 += weight,
                    None => {
                        at.insert(tok.stem_id, v.terms.len());
                        v.terms.push((tok.stem_id, weight));
                    }
                }
            }
        }
        v.terms.sort_unstable_by_key(|t| t.0);
        v.norm = v.terms.iter().map(|t| t.1 * t.1).sum::<f64>().sqrt();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_rewards_shared_stems_and_names_the_reason() {
        let units = vec![
            vec!["The parser reads Markdown files."],
            vec!["Parsing Markdown is the parser's job."],
            vec!["Bananas grow in warm climates."],
        ];
        let s = Lexical::plain();
        let p = s.prepare(&units, Level::Sentence);
        assert!(p.transition(0, 1) > 0.3);
        assert_eq!(p.transition(1, 2), 0.0);
        assert!((p.transition(0, 1) - p.transition(1, 0)).abs() < 1e-12);
        let reason = p.reason(0, 1);
        assert!(reason
            .shared
            .iter()
            .any(|w| w.to_lowercase().starts_with("pars")));
        assert!(p
            .reason(1, 2)
            .describe("the previous sentence")
            .contains("no content words"));
    }
}
