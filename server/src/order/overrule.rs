//! Whether to overrule the author: the evidence a judge's table gives against the current order
//! of a container, and the small model that turns it into a confidence.
//!
//! A judge's raw gain (best order's score minus the current one's) is a poor test on its own: its
//! scale changes with the judge, the level and the number of units, and every judge finds *some*
//! order it likes better. The question a writer cares about is different: *does the judge think
//! the author's order is an accident?* So besides the gain, [`Evidence`] places the current order
//! among **all** orders of the same units under the judge (its rank and z-score: an author's order
//! sits near the top, a shuffled one near the middle) and reads the opening of the first unit (a
//! unit that opens with "However," or "This" rarely starts a paragraph or section as written). An
//! [`OverruleModel`] per judge and level — a logistic regression trained on untouched and shuffled
//! containers of the real-prose corpus, its threshold set so that the author's order stands at
//! least 95 % of the time — turns the evidence into a yes or no.

use crate::score::cues::{explicit_link, opening_cue, Cue};
use crate::score::logistic::Logistic;
use crate::score::{Pairwise, Unit};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Most units for which every order is enumerated; beyond, [`SAMPLED_ORDERS`] random ones.
pub const EXACT_UNITS: usize = 8;
/// Random orders drawn for containers of more than [`EXACT_UNITS`] units.
pub const SAMPLED_ORDERS: usize = 4096;

/// The names of [`Evidence::features`], in order (the model file's `features`).
pub const FEATURES: [&str; 10] = [
    "log_units",
    "gain",
    "rank",
    "z",
    "best_z",
    "first_linked",
    "linked_share",
    "first_leans",
    "misplaced_marker",
    "article_order",
];

/// The names of the flow judge's two inputs that a model may read after [`FEATURES`]
/// ([`Evidence::with_flow`]).
pub const FLOW_FEATURES: [&str; 2] = ["flow_before", "flow_gain"];

/// What a judge's table says about the current order of a container.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// Units in the container.
    pub units: usize,
    /// Gain of the judge's proposal over the current order (mean transition score).
    pub gain: f64,
    /// Share of all orders of the units that the judge scores above the current one (0: the
    /// current order is the judge's best; about 0.5: an order picked at random).
    pub rank: f64,
    /// The current order's score in standard deviations above the mean over all orders.
    pub z: f64,
    /// The proposed order's score in the same units.
    pub best_z: f64,
    /// Whether the first unit opens with an explicit link back ("However,", "This", "It").
    pub first_linked: bool,
    /// Share of the units that open with an explicit link.
    pub linked_share: f64,
    /// Whether the first unit opens with a connective, pronoun or demonstrative that needs
    /// something before it ("However,", "It", "This") rather than one that opens ("First").
    pub first_leans: bool,
    /// Whether an opener ("First", "To begin") stands elsewhere than first, or a closer
    /// ("Finally", "In conclusion") elsewhere than last.
    pub misplaced_marker: bool,
    /// Nouns met with "the" before "a"/"an" minus those met with "a"/"an" first, per unit: an
    /// entity is usually introduced before it is referred back to.
    pub article_order: f64,
    /// The flow judge's logit of the current order ([`crate::order::flow`]), where it was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow_before: Option<f64>,
    /// How much better the flow judge's best candidate reads than the current order (logits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow_gain: Option<f64>,
}

impl Evidence {
    /// The evidence against the current order of `units` (each a unit's sentences), from `table`
    /// (the judge's table of those units in their current order), the current order's score
    /// `before` and the proposal's `after`. `None` for fewer than two units or for judges whose
    /// order score is not the mean of adjacent transitions (the rank would need a model call per
    /// order).
    pub fn of(table: &dyn Pairwise, units: &[Unit<'_>], before: f64, after: f64) -> Option<Self> {
        let n = table.len();
        if n < 2 || units.len() != n {
            return None;
        }
        let identity: Vec<usize> = (0..n).collect();
        if table.order_score(&identity).is_some() {
            return None;
        }
        let matrix: Vec<Vec<f64>> = (0..n)
            .map(|i| (0..n).map(|j| table.transition(i, j)).collect())
            .collect();
        let stats = OrderStats::of(&matrix, before);
        let sd = stats.sd.max(1e-9);
        let linked: Vec<bool> = units
            .iter()
            .map(|u| u.first().is_some_and(|s| explicit_link(s).is_some()))
            .collect();
        let cues: Vec<Option<(Cue, String)>> = units
            .iter()
            .map(|u| u.first().and_then(|s| opening_cue(s)))
            .collect();
        Some(Evidence {
            units: n,
            gain: after - before,
            rank: stats.above,
            z: (before - stats.mean) / sd,
            best_z: (after - stats.mean) / sd,
            first_linked: linked[0],
            linked_share: linked.iter().filter(|&&l| l).count() as f64 / n as f64,
            first_leans: cues[0]
                .as_ref()
                .is_some_and(|(c, _)| !matches!(c, Cue::Opening | Cue::Quotation)),
            misplaced_marker: cues.iter().enumerate().any(|(i, c)| match c {
                Some((Cue::Opening, _)) => i != 0,
                Some((_, words)) if is_closer(words) => i != n - 1,
                _ => false,
            }),
            article_order: article_order(units),
            flow_before: None,
            flow_gain: None,
        })
    }

    /// The same evidence with the flow judge's reading: the current order's logit and how much
    /// better its best candidate reads.
    pub fn with_flow(self, before: f64, gain: f64) -> Self {
        Evidence {
            flow_before: Some(before),
            flow_gain: Some(gain),
            ..self
        }
    }

    /// The model's inputs, named by [`FEATURES`], then [`FLOW_FEATURES`] where the flow judge
    /// was read.
    pub fn features(&self) -> Vec<f64> {
        let mut x = self.table_features().to_vec();
        if let (Some(before), Some(gain)) = (self.flow_before, self.flow_gain) {
            x.extend([before, gain]);
        }
        x
    }

    fn table_features(&self) -> [f64; 10] {
        [
            (self.units as f64).ln(),
            self.gain,
            self.rank,
            self.z,
            self.best_z,
            f64::from(u8::from(self.first_linked)),
            self.linked_share,
            f64::from(u8::from(self.first_leans)),
            f64::from(u8::from(self.misplaced_marker)),
            self.article_order,
        ]
    }
}

/// Whether an opening cue's words close a sequence or an argument.
fn is_closer(words: &str) -> bool {
    const CLOSERS: &[&str] = &[
        "finally",
        "lastly",
        "in the end",
        "at last",
        "in conclusion",
        "in summary",
        "to summarize",
        "in short",
    ];
    CLOSERS.contains(&words.to_lowercase().as_str())
}

/// Nouns met with "the" in an earlier unit than with "a"/"an", minus those met the other way
/// round, per unit ([`Evidence::article_order`]).
fn article_order(units: &[Unit<'_>]) -> f64 {
    use std::collections::HashMap;
    use unicode_segmentation::UnicodeSegmentation;
    // noun → (first unit with "a"/"an", first unit with "the")
    let mut first: HashMap<String, (Option<usize>, Option<usize>)> = HashMap::new();
    for (i, unit) in units.iter().enumerate() {
        for sentence in unit {
            let words: Vec<String> = sentence.unicode_words().map(str::to_lowercase).collect();
            for pair in words.windows(2) {
                let (article, noun) = (pair[0].as_str(), &pair[1]);
                if noun.chars().count() < 3 || !noun.chars().all(char::is_alphabetic) {
                    continue;
                }
                let entry = first.entry(noun.clone()).or_default();
                match article {
                    "a" | "an" => {
                        entry.0.get_or_insert(i);
                    }
                    "the" => {
                        entry.1.get_or_insert(i);
                    }
                    _ => {}
                }
            }
        }
    }
    let mut balance = 0i64;
    for (indefinite, definite) in first.values() {
        if let (Some(a), Some(the)) = (indefinite, definite) {
            balance += match a.cmp(the) {
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Greater => 1,
                std::cmp::Ordering::Equal => 0,
            };
        }
    }
    balance as f64 / units.len().max(1) as f64
}

/// Calls `f` once with every order of `n` units (Heap's algorithm; the identity first).
pub fn every_order(n: usize, mut f: impl FnMut(&[usize])) {
    let mut order: Vec<usize> = (0..n).collect();
    let mut c = vec![0usize; n];
    f(&order);
    let mut i = 0;
    while i < n {
        if c[i] < i {
            if i % 2 == 0 {
                order.swap(0, i);
            } else {
                order.swap(c[i], i);
            }
            f(&order);
            c[i] += 1;
            i = 0;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
}

/// Where a score stands among the scores of every order of a set.
#[derive(Debug, Clone, Copy, PartialEq)]
struct OrderStats {
    /// Share of orders scoring above the given score.
    above: f64,
    /// Mean score over orders.
    mean: f64,
    /// Standard deviation of the score over orders.
    sd: f64,
}

impl OrderStats {
    /// Every order of `matrix`'s units when there are at most [`EXACT_UNITS`], else
    /// [`SAMPLED_ORDERS`] random ones (a fixed seed, so the same table always gives the same
    /// figures); an order's score is the mean of its adjacent transitions.
    fn of(matrix: &[Vec<f64>], score: f64) -> Self {
        let n = matrix.len();
        let steps = (n - 1) as f64;
        let mut order: Vec<usize> = (0..n).collect();
        let (mut count, mut above, mut sum, mut sum_sq) = (0usize, 0usize, 0.0, 0.0);
        let mut tally = |order: &[usize]| {
            let s = order.windows(2).map(|w| matrix[w[0]][w[1]]).sum::<f64>() / steps;
            count += 1;
            sum += s;
            sum_sq += s * s;
            if s > score + 1e-12 {
                above += 1;
            }
        };
        if n <= EXACT_UNITS {
            every_order(n, &mut tally);
        } else {
            let mut rng = ChaCha8Rng::seed_from_u64(n as u64);
            for _ in 0..SAMPLED_ORDERS {
                order.shuffle(&mut rng);
                tally(&order);
            }
        }
        let count = count as f64;
        let mean = sum / count;
        OrderStats {
            above: above as f64 / count,
            mean,
            sd: (sum_sq / count - mean * mean).max(0.0).sqrt(),
        }
    }
}

/// The overrule model of one judge at one level: a logistic regression over [`Evidence`] and the
/// probability from which a proposal is offered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OverruleModel {
    /// The regression (its `features` are [`FEATURES`]).
    #[serde(flatten)]
    pub logistic: Logistic,
    /// Smallest probability for which the author's order is overruled.
    pub threshold: f64,
    /// How much more confident (in logits) the model must be to overrule the author's choice of
    /// the unit that opens the container: a paragraph's first sentence is most often its topic
    /// sentence, which every proposal read on published documents moved for the worse. Chosen on
    /// the dev part (`segue eval --task reorder`); 0 where it is not set.
    #[serde(default)]
    pub first_unit_logit: f64,
}

impl OverruleModel {
    /// How confident the judge is that the current order is not the author's intent; 0 when the
    /// model reads the flow judge and the evidence has no flow reading.
    pub fn confidence(&self, evidence: &Evidence) -> f64 {
        let x = evidence.features();
        if !self.logistic.has_features(x.len()) {
            return 0.0;
        }
        self.logistic.predict(&x)
    }

    /// Whether a proposal with this `confidence` overrules the author; `moves_first`: whether it
    /// changes the unit that opens the container ([`Self::first_unit_logit`]).
    pub fn overrules(&self, confidence: f64, moves_first: bool) -> bool {
        overrules(
            confidence,
            self.threshold,
            self.first_unit_logit,
            moves_first,
        )
    }

    /// Whether the model fits [`FEATURES`], or [`FEATURES`] and [`FLOW_FEATURES`].
    pub fn is_usable(&self) -> bool {
        self.logistic.has_features(FEATURES.len())
            || self
                .logistic
                .has_features(FEATURES.len() + FLOW_FEATURES.len())
    }

    /// Whether the model reads the flow judge ([`FLOW_FEATURES`]).
    pub fn reads_flow(&self) -> bool {
        self.logistic
            .has_features(FEATURES.len() + FLOW_FEATURES.len())
    }
}

/// Whether `confidence` reaches `threshold`, raised by `first_unit_logit` (logits) when the
/// proposal changes the unit that opens the container (`moves_first`).
pub fn overrules(
    confidence: f64,
    threshold: f64,
    first_unit_logit: f64,
    moves_first: bool,
) -> bool {
    if moves_first && first_unit_logit > 0.0 {
        logit(confidence) >= logit(threshold) + first_unit_logit
    } else {
        confidence >= threshold
    }
}

/// The log-odds of probability `p`, finite for every `p`.
fn logit(p: f64) -> f64 {
    let p = p.clamp(1e-12, 1.0 - 1e-12);
    (p / (1.0 - p)).ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moving_the_first_unit_takes_more_confidence() {
        // Threshold 0.9 (logit 2.2); one logit more for a proposal that moves the first unit.
        assert!(overrules(0.92, 0.9, 1.0, false));
        assert!(!overrules(0.92, 0.9, 1.0, true));
        assert!(overrules(0.97, 0.9, 1.0, true));
        // Without the prior both decide alike.
        assert!(overrules(0.92, 0.9, 0.0, true));
        assert!(!overrules(0.85, 0.9, 0.0, false));
    }
    use crate::score::Reason;

    struct Table(Vec<Vec<f64>>);

    impl Pairwise for Table {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn transition(&self, from: usize, to: usize) -> f64 {
            self.0[from][to]
        }
        fn reason(&self, _: usize, _: usize) -> Reason {
            Reason::default()
        }
    }

    /// A chain: unit i follows unit i − 1 well, everything else badly.
    fn chain(n: usize) -> Table {
        Table(
            (0..n)
                .map(|i| (0..n).map(|j| if j == i + 1 { 0.9 } else { 0.1 }).collect())
                .collect(),
        )
    }

    fn units(texts: &[&'static str]) -> Vec<Unit<'static>> {
        texts.iter().map(|t| vec![*t]).collect()
    }

    #[test]
    fn the_authors_chain_ranks_first_and_a_reversed_one_last() {
        let table = chain(5);
        let texts = units(&["A b.", "C d.", "E f.", "G h.", "I j."]);
        let best = Evidence::of(&table, &texts, 0.9, 0.9).unwrap();
        assert_eq!(best.rank, 0.0);
        assert!(best.z > 2.0, "{best:?}");
        let worst = Evidence::of(&table, &texts, 0.1, 0.9).unwrap();
        assert!(worst.rank > 0.5, "{worst:?}");
        assert!(worst.z < 0.0 && worst.best_z > 2.0, "{worst:?}");
        assert!((worst.gain - 0.8).abs() < 1e-12);
    }

    #[test]
    fn exact_enumeration_counts_every_order_once() {
        // Three units: 6 orders; only the chain 0 → 1 → 2 scores 0.9.
        let stats = OrderStats::of(&chain(3).0, 0.5);
        assert!((stats.above - 1.0 / 6.0).abs() < 1e-12, "{stats:?}");
        let mean = (0.9 + 2.0 * 0.5 + 3.0 * 0.1) / 6.0;
        assert!((stats.mean - mean).abs() < 1e-12, "{stats:?}");
    }

    #[test]
    fn large_sets_are_sampled_deterministically() {
        let table = chain(12);
        let texts: Vec<Unit<'static>> = (0..12).map(|_| vec!["Words here."]).collect();
        let a = Evidence::of(&table, &texts, 0.9, 0.9).unwrap();
        let b = Evidence::of(&table, &texts, 0.9, 0.9).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.rank, 0.0);
    }

    #[test]
    fn a_linked_opening_is_read_from_the_first_sentence() {
        let table = chain(3);
        let texts = units(&[
            "However, the cache is cold.",
            "The cache warms.",
            "It serves reads.",
        ]);
        let e = Evidence::of(&table, &texts, 0.5, 0.9).unwrap();
        assert!(e.first_linked && e.first_leans);
        assert!((e.linked_share - 2.0 / 3.0).abs() < 1e-12, "{e:?}");
    }

    #[test]
    fn markers_and_articles_out_of_order_are_noticed() {
        let table = chain(3);
        let shuffled = units(&[
            "The cache then serves every read.",
            "First, we build a cache.",
            "Finally, we measure it.",
        ]);
        let e = Evidence::of(&table, &shuffled, 0.5, 0.9).unwrap();
        assert!(e.misplaced_marker && !e.first_leans, "{e:?}");
        assert!(e.article_order > 0.0, "{e:?}");
        let authors = units(&[
            "First, we build a cache.",
            "The cache then serves every read.",
            "Finally, we measure it.",
        ]);
        let e = Evidence::of(&table, &authors, 0.5, 0.9).unwrap();
        assert!(!e.misplaced_marker, "{e:?}");
        assert!(e.article_order < 0.0, "{e:?}");
    }
}
