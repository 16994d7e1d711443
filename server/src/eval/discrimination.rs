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

/// Runs the discrimination test of `scorer` over `docs`.
pub fn discriminate(
    scorer: &dyn Scorer,
    docs: &[CorpusDoc],
    spec: &DiscriminationSpec,
) -> Vec<DiscriminationRow> {
    let mut rows = Vec::new();
    for &level in &spec.levels {
        let mut tallies = vec![(0.0f64, 0usize); spec.degradations.len()];
        for (di, doc) in docs.iter().enumerate() {
            let units = units(doc, level);
            if units.len() < 2 {
                continue;
            }
            let table = scorer.prepare(&units, level);
            let identity: Vec<usize> = (0..units.len()).collect();
            let original = order_score(table.as_ref(), &identity);
            for (k, &d) in spec.degradations.iter().enumerate() {
                let mut rng = rng_for(spec.seed, di, level, d);
                for _ in 0..spec.copies {
                    let Some(order) = d.apply(units.len(), &mut rng) else {
                        break;
                    };
                    let degraded = order_score(table.as_ref(), &order);
                    let win = if (original - degraded).abs() < 1e-12 {
                        0.5
                    } else if original > degraded {
                        1.0
                    } else {
                        0.0
                    };
                    tallies[k].0 += win;
                    tallies[k].1 += 1;
                }
            }
        }
        for (k, d) in spec.degradations.iter().enumerate() {
            let (wins, pairs) = tallies[k];
            rows.push(DiscriminationRow {
                scorer: scorer.name().to_string(),
                level,
                degradation: d.to_string(),
                accuracy: if pairs == 0 { 0.0 } else { wins / pairs as f64 },
                pairs,
            });
        }
    }
    rows
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
