//! The order objective: the log-probabilities the heads and the reader give ([`OrderScores`])
//! and the objective folded into a transition table ([`ChainTable`]) that any decoder of
//! `order::decode` can search.

use super::meta::OrderWeights;
use crate::score::{Pairwise, Reason};
use std::sync::Arc;

/// Raw outputs of a head for `n` units (logits, row-major).
#[derive(Debug, Clone, PartialEq)]
pub struct HeadOutputs {
    /// Number of units.
    pub n: usize,
    /// `[n, n]` logit of P(i before j).
    pub precedence: Vec<f32>,
    /// `[n, n]` logit that j directly follows i.
    pub successor: Vec<f32>,
    /// `[n]` opening logits.
    pub opening: Vec<f32>,
    /// `[n]` closing logits.
    pub closing: Vec<f32>,
}

/// Whether an [`Objective`] includes the paragraph reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReaderUse {
    /// It does.
    Used,
    /// The set is too large or the level has no reader weights.
    NotApplicable,
    /// It should have, but the reader could not load or run (the message says why).
    Failed(String),
}

/// A set's objective: its scores and the weights to combine them with.
#[derive(Debug, Clone, PartialEq)]
pub struct Objective {
    /// The log-probabilities and cosines (shared with the model's memo of recent sets).
    pub scores: Arc<OrderScores>,
    /// The weights.
    pub weights: OrderWeights,
    /// Whether the reader's terms are in.
    pub reader: ReaderUse,
}

// ---- the objective -----------------------------------------------------------------------------

fn log_sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}

/// Log-softmax of `v` over the entries where `keep` holds; the others get 0.
fn log_softmax(v: &[f32], keep: impl Fn(usize) -> bool) -> Vec<f64> {
    let max = v
        .iter()
        .enumerate()
        .filter(|(i, _)| keep(*i))
        .map(|(_, &x)| f64::from(x))
        .fold(f64::NEG_INFINITY, f64::max);
    if !max.is_finite() {
        return vec![0.0; v.len()];
    }
    let lse = max
        + v.iter()
            .enumerate()
            .filter(|(i, _)| keep(*i))
            .map(|(_, &x)| (f64::from(x) - max).exp())
            .sum::<f64>()
            .ln();
    v.iter()
        .enumerate()
        .map(|(i, &x)| if keep(i) { f64::from(x) - lse } else { 0.0 })
        .collect()
}

/// The embedding cosine of every pair of `vectors` (unit length) clamped to [0, 1], row-major
/// `[n, n]` with a zero diagonal; a cosine that is not a number counts 0. Symmetric to the bit
/// (the same products summed in the same order), so each pair's is computed once. A clamped
/// `f32` is kept as it is: widened, it is exactly the `f64` the objective reads.
pub fn cosines(vectors: &[Vec<f32>]) -> Vec<f32> {
    let n = vectors.len();
    let mut out = vec![0f32; n * n];
    for (i, a) in vectors.iter().enumerate() {
        for (j, b) in vectors.iter().enumerate().skip(i + 1) {
            let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
            let c = if dot.is_nan() {
                0.0
            } else {
                dot.clamp(0.0, 1.0)
            };
            out[i * n + j] = c;
            out[j * n + i] = c;
        }
    }
    out
}

/// The log-probabilities the objective combines, for `n` units (row-major `[n, n]` matrices with a
/// zero diagonal).
#[derive(Debug, Clone, PartialEq)]
pub struct OrderScores {
    /// Number of units.
    pub n: usize,
    /// `log P(i before j)`.
    pub precedence: Vec<f64>,
    /// `log P(j directly follows i)` (softmax over j ≠ i).
    pub successor: Vec<f64>,
    /// Embedding cosine clamped to [0, 1].
    pub coherence: Vec<f64>,
    /// `log P(i opens the set)`.
    pub opening: Vec<f64>,
    /// `log P(i closes the set)`.
    pub closing: Vec<f64>,
    /// The reader's `log σ((X[i][j] − X[j][i]) / 2)`, `X` its logits of "i before j";
    /// empty when the set was scored without it.
    pub reader: Vec<f64>,
    /// The reader's `log P(j directly follows i)` (log-softmax over `j ≠ i` of its
    /// successor logits); empty when the set was scored without it or the export has no successor.
    pub reader_next: Vec<f64>,
}

impl OrderScores {
    /// From a head's outputs and the units' vectors (unit length).
    pub fn new(out: &HeadOutputs, vectors: &[Vec<f32>]) -> OrderScores {
        OrderScores::with_cosines(out, &cosines(vectors))
    }

    /// From a head's outputs and the units' clamped cosines ([`cosines`]): what
    /// [`OrderScores::new`] computes, bit for bit, without the dot products.
    pub fn with_cosines(out: &HeadOutputs, cosines: &[f32]) -> OrderScores {
        let n = out.n;
        let mut precedence = vec![0.0; n * n];
        let mut successor = vec![0.0; n * n];
        for i in 0..n {
            let row = log_softmax(&out.successor[i * n..(i + 1) * n], |j| j != i);
            for j in 0..n {
                if i == j {
                    continue;
                }
                precedence[i * n + j] = log_sigmoid(f64::from(out.precedence[i * n + j]));
                successor[i * n + j] = row[j];
            }
        }
        OrderScores {
            n,
            precedence,
            successor,
            coherence: if cosines.len() == n * n {
                cosines.iter().map(|&c| f64::from(c)).collect()
            } else {
                vec![0.0; n * n]
            },
            opening: log_softmax(&out.opening, |_| true),
            closing: log_softmax(&out.closing, |_| true),
            reader: Vec::new(),
            reader_next: Vec::new(),
        }
    }

    /// The same scores with the reader's precedence logits `x` (row-major `[n, n]`, see
    /// [`crate::model::SetLogits`]); logits of the wrong size are ignored.
    pub fn with_reader(mut self, x: &[f32]) -> OrderScores {
        let n = self.n;
        if x.len() != n * n {
            return self;
        }
        self.reader = (0..n * n)
            .map(|k| {
                let (i, j) = (k / n, k % n);
                if i == j {
                    0.0
                } else {
                    log_sigmoid((f64::from(x[k]) - f64::from(x[j * n + i])) / 2.0)
                }
            })
            .collect();
        self
    }

    /// The same scores with the reader's successor logits `y` (row-major `[n, n]`,
    /// `y[i·n + j]` the logit that `j` directly follows `i`, see [`crate::model::SetLogits`]);
    /// logits of the wrong size are ignored.
    pub fn with_reader_successor(mut self, y: &[f32]) -> OrderScores {
        let n = self.n;
        if y.len() != n * n {
            return self;
        }
        let mut next = vec![0.0; n * n];
        for i in 0..n {
            let lp = log_softmax(&y[i * n..(i + 1) * n], |j| j != i);
            for j in (0..n).filter(|&j| j != i) {
                next[i * n + j] = lp[j];
            }
        }
        self.reader_next = next;
        self
    }

    fn reader_at(&self, k: usize) -> f64 {
        self.reader.get(k).copied().unwrap_or(0.0)
    }

    fn reader_next_at(&self, k: usize) -> f64 {
        self.reader_next.get(k).copied().unwrap_or(0.0)
    }

    /// The position potential φ of every unit under `w` (see the module docs).
    pub fn potential(&self, w: &OrderWeights) -> Vec<f64> {
        let n = self.n;
        (0..n)
            .map(|i| {
                let borda: f64 = (0..n)
                    .map(|j| self.precedence[i * n + j] - self.precedence[j * n + i])
                    .sum();
                let reader_borda: f64 = (0..n)
                    .map(|j| self.reader_at(i * n + j) - self.reader_at(j * n + i))
                    .sum();
                w.opening * self.opening[i] - w.closing * self.closing[i]
                    + w.borda * borda
                    + w.reader_borda * reader_borda
            })
            .collect()
    }

    /// The objective under `w` as a transition table.
    pub fn chain(&self, w: &OrderWeights) -> ChainTable {
        let n = self.n;
        let phi = self.potential(w);
        let mut raw = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                if i != j {
                    let k = i * n + j;
                    raw[k] = w.successor * self.successor[k]
                        + w.coherence * self.coherence[k]
                        + w.precedence * self.precedence[k]
                        + w.reader_precedence * self.reader_at(k)
                        + w.reader_next * self.reader_next_at(k)
                        + phi[i]
                        - phi[j];
                }
            }
        }
        // Reasons quote the better-informed precedence: the reader's where it was used.
        let before = if self.reader.is_empty() {
            &self.precedence
        } else {
            &self.reader
        };
        ChainTable::new(n, raw, before.iter().map(|p| p.exp()).collect())
    }
}

/// The order objective as transitions: `raw[i·n + j]` is what placing `j` right after `i` adds
/// (see the module docs); [`Pairwise::transition`] maps it to [0, 1] with the table's own affine
/// map, which keeps every order's ranking.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainTable {
    n: usize,
    raw: Vec<f64>,
    before: Vec<f64>,
    lo: f64,
    scale: f64,
}

impl ChainTable {
    /// A table of `n` units from raw transition values and P(i before j) (for reasons).
    pub fn new(n: usize, raw: Vec<f64>, before: Vec<f64>) -> ChainTable {
        let off = (0..n * n)
            .filter(|k| k / n != k % n)
            .map(|k| raw[k])
            .filter(|v| v.is_finite());
        let (lo, hi) = off.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        let (lo, scale) = if lo.is_finite() && hi > lo {
            (lo, hi - lo)
        } else {
            (0.0, 1.0)
        };
        ChainTable {
            n,
            raw,
            before,
            lo,
            scale,
        }
    }

    /// The raw value of placing `to` right after `from`.
    pub fn raw(&self, from: usize, to: usize) -> f64 {
        self.raw.get(from * self.n + to).copied().unwrap_or(0.0)
    }

    /// The model's objective of `order` (sum of raw transitions).
    pub fn objective(&self, order: &[usize]) -> f64 {
        order.windows(2).map(|w| self.raw(w[0], w[1])).sum()
    }
}

impl Pairwise for ChainTable {
    fn len(&self) -> usize {
        self.n
    }

    fn transition(&self, from: usize, to: usize) -> f64 {
        if from >= self.n || to >= self.n || from == to {
            return 0.0;
        }
        let v = (self.raw(from, to) - self.lo) / self.scale;
        if v.is_nan() {
            0.0
        } else {
            v.clamp(0.0, 1.0)
        }
    }

    fn reason(&self, from: usize, to: usize) -> Reason {
        let p = self.before.get(from * self.n + to).copied().unwrap_or(0.5);
        let how = if p < 0.35 {
            "the ordering model expects it to come before, not after"
        } else if p < 0.5 {
            "the ordering model leans towards the other order"
        } else {
            "the ordering model accepts this order"
        };
        Reason {
            shared: Vec::new(),
            note: Some(format!("{how} (P(after) {p:.2})")),
        }
    }
}
