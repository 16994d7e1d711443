//! The discrimination test: does a scorer prefer the original order over degraded copies?

use super::data::CorpusDoc;
use super::degrade::Degradation;
use crate::score::{order_score, Level, Scorer, Unit};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// Settings of a discrimination run.
#[derive(Debug, Clone)]
pub struct DiscriminationSpec {
    /// Degradations to test.
    pub degradations: Vec<Degradation>,
    /// Levels to test.
    pub levels: Vec<Level>,
    /// Degraded copies per document and degradation.
    pub copies: usize,
    /// Seed for the degradations.
    pub seed: u64,
}

/// One row of results.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiscriminationRow {
    /// Scorer name.
    pub scorer: String,
    /// Level.
    pub level: Level,
    /// Degradation name (`R1`, `R2`, `R`, `D1`, …).
    pub degradation: String,
    /// Fraction of (original, degraded) pairs where the original scored higher; ties count half.
    pub accuracy: f64,
    /// Number of pairs compared.
    pub pairs: usize,
}

/// The units of a document at a level.
pub fn units(doc: &CorpusDoc, level: Level) -> Vec<Unit<'_>> {
    match level {
        Level::Sentence => doc.sentences().into_iter().map(|s| vec![s]).collect(),
        Level::Paragraph => doc
            .paragraphs
            .iter()
            .map(|p| p.iter().map(String::as_str).collect())
            .collect(),
    }
}

/// A per-document, per-level, per-degradation RNG, so results do not depend on which scorers or
/// degradations run alongside.
fn rng_for(seed: u64, doc: usize, level: Level, d: Degradation) -> ChaCha8Rng {
    let tag = match d {
        Degradation::Shift(n) => 1000 + n as u64,
        Degradation::Shuffle => 2000,
        Degradation::Blocks(b) => 3000 + b as u64,
    };
    let mix = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add((doc as u64) << 20)
        .wrapping_add(tag)
        .wrapping_add(level as u64 * 7);
    ChaCha8Rng::seed_from_u64(mix)
}

/// One comparison of the test: the scores of a document's original order and of one degraded
/// copy, as `segue eval --comparisons` writes them (for significance tests and for fitting
/// combinations of scorers).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Scorer name.
    pub scorer: String,
    /// Level.
    pub level: Level,
    /// Degradation name.
    pub degradation: String,
    /// Index of the document in the corpus.
    pub doc: usize,
    /// Index of the copy (0-based) for this document, level and degradation.
    pub copy: usize,
    /// Score of the original order.
    pub original: f64,
    /// Score of the degraded copy.
    pub degraded: f64,
}

impl Comparison {
    /// 1 when the original scored higher, 0 when lower, ½ for a tie.
    pub fn win(&self) -> f64 {
        if (self.original - self.degraded).abs() < 1e-12 {
            0.5
        } else if self.original > self.degraded {
            1.0
        } else {
            0.0
        }
    }
}

/// Every comparison of the discrimination test of `scorer` over `docs`, level by level, document
/// by document, degradation by degradation.
pub fn comparisons(
    scorer: &dyn Scorer,
    docs: &[CorpusDoc],
    spec: &DiscriminationSpec,
) -> Vec<Comparison> {
    let mut out = Vec::new();
    for &level in &spec.levels {
        for (di, doc) in docs.iter().enumerate() {
            let units = units(doc, level);
            if units.len() < 2 {
                continue;
            }
            let table = scorer.prepare(&units, level);
            let identity: Vec<usize> = (0..units.len()).collect();
            let original = order_score(table.as_ref(), &identity);
            for &d in &spec.degradations {
                let mut rng = rng_for(spec.seed, di, level, d);
                for copy in 0..spec.copies {
                    let Some(order) = d.apply(units.len(), &mut rng) else {
                        break;
                    };
                    out.push(Comparison {
                        scorer: scorer.name().to_string(),
                        level,
                        degradation: d.to_string(),
                        doc: di,
                        copy,
                        original,
                        degraded: order_score(table.as_ref(), &order),
                    });
                }
            }
        }
    }
    out
}

/// The accuracy rows of `comparisons` (all of one scorer), one per level and degradation of
/// `spec`, in its order.
pub fn tally(
    scorer: &str,
    comparisons: &[Comparison],
    spec: &DiscriminationSpec,
) -> Vec<DiscriminationRow> {
    let mut rows = Vec::new();
    for &level in &spec.levels {
        for d in &spec.degradations {
            let name = d.to_string();
            let (wins, pairs) = comparisons
                .iter()
                .filter(|c| c.level == level && c.degradation == name)
                .fold((0.0, 0usize), |(w, n), c| (w + c.win(), n + 1));
            rows.push(DiscriminationRow {
                scorer: scorer.to_string(),
                level,
                degradation: name,
                accuracy: if pairs == 0 { 0.0 } else { wins / pairs as f64 },
                pairs,
            });
        }
    }
    rows
}

/// Runs the discrimination test of `scorer` over `docs`.
pub fn discriminate(
    scorer: &dyn Scorer,
    docs: &[CorpusDoc],
    spec: &DiscriminationSpec,
) -> Vec<DiscriminationRow> {
    tally(scorer.name(), &comparisons(scorer, docs, spec), spec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::lexical::Lexical;

    #[test]
    fn lexical_prefers_a_chained_original() {
        // Each sentence shares a word with the next only: the original order is the only chain.
        let words = [
            "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
        ];
        let sentences: Vec<String> = words
            .windows(2)
            .map(|w| format!("The {} meets the {}.", w[0], w[1]))
            .collect();
        let doc = CorpusDoc {
            id: "chain".into(),
            paragraphs: vec![sentences],
        };
        let spec = DiscriminationSpec {
            degradations: Degradation::ALL.to_vec(),
            levels: vec![Level::Sentence],
            copies: 5,
            seed: 1,
        };
        let rows = discriminate(&Lexical::plain(), &[doc], &spec);
        assert_eq!(rows.len(), 7);
        for row in &rows {
            if row.pairs > 0 {
                assert_eq!(row.accuracy, 1.0, "{row:?}");
            }
        }
        // D10 needs at least 11 units; this document has 8.
        assert_eq!(rows[6].pairs, 0);
    }
}
