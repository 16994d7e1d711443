//! The ordering test: shuffle a document's units, let a scorer's decoder put them back, and
//! measure the result against the original order (PMR, Acc, τ, WLCS-l, Ordered BERTScore v2).

use super::data::CorpusDoc;
use super::discrimination::units;
use crate::order::decode::{best_order, greedy, Problem};
use crate::order::metrics::{OrderMetrics, OrderMetricsMean};
use crate::score::lexical::Lexical;
use crate::score::{Level, Scorer};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::time::Duration;

/// Settings of an ordering run.
#[derive(Debug, Clone)]
pub struct OrderingSpec {
    /// Levels to test: sentences of each paragraph, or paragraphs of each document.
    pub levels: Vec<Level>,
    /// Fewest units for an instance to count.
    pub min_units: usize,
    /// Most units for an instance to count (decoding cost grows fast).
    pub max_units: usize,
    /// Seed for the shuffles.
    pub seed: u64,
    /// How orders are decoded.
    pub decoder: Decoder,
}

/// How the ordering test decodes an order from a scorer's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Decoder {
    /// Greedy chains from every start unit.
    Greedy,
    /// Exact dynamic programme up to 16 units, beam search beyond.
    Exact,
}

impl Decoder {
    fn name(self) -> &'static str {
        match self {
            Decoder::Greedy => "greedy",
            Decoder::Exact => "exact",
        }
    }
}

/// Time budget of the beam search for inputs too large for the exact decoder.
const BEAM_BUDGET: Duration = Duration::from_millis(500);

/// One row of results: mean metrics of one scorer at one level.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OrderingRow {
    /// Scorer name.
    pub scorer: String,
    /// Level.
    pub level: Level,
    /// Decoder used.
    pub decoder: &'static str,
    /// Number of instances.
    pub instances: usize,
    /// Perfect match ratio.
    pub pmr: f64,
    /// Fraction of units put in their original position.
    pub acc: f64,
    /// Kendall's τ.
    pub tau: f64,
    /// WLCS-l (py-rouge ROUGE-W F, weight 1.2).
    pub wlcs_l: f64,
    /// Ordered BERTScore v2 (n = 4) with lexical cosine as the unit similarity.
    pub obs_v2: f64,
}

/// The instances of a corpus at a level: each paragraph's sentences, or each document's paragraphs.
fn instances(docs: &[CorpusDoc], level: Level, min: usize, max: usize) -> Vec<Vec<Vec<&str>>> {
    let mut out = Vec::new();
    for doc in docs {
        match level {
            Level::Sentence => {
                for p in &doc.paragraphs {
                    if (min..=max).contains(&p.len()) {
                        out.push(p.iter().map(|s| vec![s.as_str()]).collect());
                    }
                }
            }
            Level::Paragraph => {
                let u = units(doc, level);
                if (min..=max).contains(&u.len()) {
                    out.push(u);
                }
            }
        }
    }
    out
}

/// Runs the ordering test of `scorer` over `docs`.
pub fn order(scorer: &dyn Scorer, docs: &[CorpusDoc], spec: &OrderingSpec) -> Vec<OrderingRow> {
    let similarity = Lexical::plain();
    let mut rows = Vec::new();
    for &level in &spec.levels {
        let mut mean = OrderMetricsMean::new();
        for (k, gold_units) in instances(docs, level, spec.min_units.max(2), spec.max_units)
            .iter()
            .enumerate()
        {
            let n = gold_units.len();
            let mut rng = ChaCha8Rng::seed_from_u64(spec.seed ^ ((k as u64) << 16) ^ level as u64);
            let mut shuffled: Vec<usize> = (0..n).collect();
            shuffled.shuffle(&mut rng);
            let input: Vec<Vec<&str>> = shuffled.iter().map(|&i| gold_units[i].clone()).collect();
            let table = scorer.prepare(&input, level);
            let decoded = match spec.decoder {
                Decoder::Greedy => greedy(table.as_ref()),
                Decoder::Exact => best_order(&Problem::new(table.as_ref()), BEAM_BUDGET).order,
            };
            let predicted: Vec<usize> = decoded.into_iter().map(|i| shuffled[i]).collect();
            let gold: Vec<usize> = (0..n).collect();
            let sim_table = similarity.prepare(gold_units, level);
            let m = OrderMetrics::compute(&predicted, &gold, |a, b| {
                if a == b {
                    1.0
                } else {
                    sim_table.transition(a, b)
                }
            });
            mean.add(&m);
        }
        let m = mean.mean();
        rows.push(OrderingRow {
            scorer: scorer.name().to_string(),
            level,
            decoder: spec.decoder.name(),
            instances: mean.count(),
            pmr: m.pmr,
            acc: m.acc,
            tau: m.tau,
            wlcs_l: m.wlcs_l,
            obs_v2: m.obs_v2,
        });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_is_recovered_exactly() {
        let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"];
        let sentences: Vec<String> = words
            .windows(2)
            .map(|w| format!("The {} meets the {}.", w[0], w[1]))
            .collect();
        let doc = CorpusDoc {
            id: "chain".into(),
            paragraphs: vec![sentences],
        };
        let spec = OrderingSpec {
            levels: vec![Level::Sentence],
            min_units: 2,
            max_units: 10,
            seed: 3,
            decoder: Decoder::Exact,
        };
        let rows = order(&Lexical::plain(), &[doc], &spec);
        assert_eq!(rows[0].instances, 1);
        // A symmetric scorer can recover the chain only up to direction.
        assert!(rows[0].tau.abs() > 0.99, "{rows:?}");
    }
}
