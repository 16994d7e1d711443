//! Order metrics: how close a predicted order of units is to the gold order.
//!
//! Orders are sequences of unit ids (`&[usize]`), normally permutations of each other; the
//! predicted order is `pred`, the reference order is `gold`. Every function is total: empty
//! orders, length mismatches and sequences that are not permutations get the documented value
//! instead of a panic.
//!
//! - [`pmr`], [`accuracy`], [`kendall_tau`], [`wlcs_l`]: the metrics of seed 000 (PMR, Acc,
//!   Kendall's τ, WLCS-l). WLCS-l is py-rouge's ROUGE-W F score with weight factor 1.2
//!   ([`rouge_w`] is the full port; `server/tests/wlcs_parity.rs` checks it against py-rouge).
//! - [`ordered_bertscore_v2`]: seed 003's Ordered BERTScore v2, with a caller-supplied unit
//!   similarity in place of BERTScore.
//! - [`OrderMetrics`] (one document) and [`OrderMetricsMean`] (the mean over documents).

use std::collections::HashMap;

use serde::Serialize;

/// ROUGE-W weight factor `w` used by [`wlcs_l`]: the official ROUGE-W value. py-rouge's own
/// default is 1.0, which turns ROUGE-W into plain ROUGE-L (see [`rouge_w`]); seed 000's WLCS-l
/// ("length adapted", with the doubled denominator) only exists for `w ≠ 1`, and its reported
/// scores match `w = 1.2`.
pub const WLCS_WEIGHT: f64 = 1.2;

/// F-score `alpha` of py-rouge (its default): `F = P·R / ((1 − α)·P + α·R)`; 0.5 is the
/// harmonic mean of P and R.
pub const ROUGE_ALPHA: f64 = 0.5;

/// Default `n` of [`ordered_bertscore_v2`]: at most this many selected pairs per gold unit and
/// per predicted unit. Seed 003 found `n = 4` best correlated with human coherence judgements
/// when the only difference between prediction and gold is the order (its Table 1).
pub const OBS_V2_N: usize = 4;

/// Perfect match: 1.0 if `pred` and `gold` are the same sequence (two empty orders included),
/// else 0.0. The mean over documents is seed 000's PMR.
pub fn pmr(pred: &[usize], gold: &[usize]) -> f64 {
    if pred == gold {
        1.0
    } else {
        0.0
    }
}

/// Positional accuracy: the fraction of positions `k` where `pred[k] == gold[k]`.
///
/// The denominator is `max(pred.len(), gold.len())`, so positions present in only one order count
/// as misses. Two empty orders score 1.0 (nothing is misplaced), like [`pmr`].
pub fn accuracy(pred: &[usize], gold: &[usize]) -> f64 {
    let len = pred.len().max(gold.len());
    if len == 0 {
        return 1.0;
    }
    let hits = pred.iter().zip(gold).filter(|(p, g)| p == g).count();
    hits as f64 / len as f64
}

/// Whether `pred` is a permutation of `gold`: the same length, the ids of `gold` distinct, and
/// every id of `gold` occurring exactly once in `pred`.
pub fn is_permutation(pred: &[usize], gold: &[usize]) -> bool {
    gold_ranks(pred, gold).is_some()
}

/// For each unit of `pred`, its position in `gold`; `None` unless `pred` is a permutation of
/// `gold` (see [`is_permutation`]).
fn gold_ranks(pred: &[usize], gold: &[usize]) -> Option<Vec<usize>> {
    if pred.len() != gold.len() {
        return None;
    }
    let mut position = HashMap::with_capacity(gold.len());
    for (k, &unit) in gold.iter().enumerate() {
        if position.insert(unit, k).is_some() {
            return None;
        }
    }
    let mut seen = vec![false; gold.len()];
    let mut ranks = Vec::with_capacity(pred.len());
    for unit in pred {
        let k = *position.get(unit)?;
        if std::mem::replace(&mut seen[k], true) {
            return None;
        }
        ranks.push(k);
    }
    Some(ranks)
}

/// Kendall's τ as in seed 000: `τ = 1 − 2·I / C(n, 2)`, where `n` is the number of units and `I`
/// the number of inversions, i.e. pairs of units whose relative order in `pred` differs from
/// `gold`. 1.0 is the gold order, −1.0 its reverse.
///
/// Returns 1.0 when `n < 2`, and 0.0 (no correlation) when `pred` is not a permutation of `gold`
/// (see [`is_permutation`]). O(n log n).
pub fn kendall_tau(pred: &[usize], gold: &[usize]) -> f64 {
    let Some(mut ranks) = gold_ranks(pred, gold) else {
        return 0.0;
    };
    let n = ranks.len();
    if n < 2 {
        return 1.0;
    }
    let inversions = count_inversions(&mut ranks) as f64;
    let pairs = (n as f64) * (n as f64 - 1.0) / 2.0;
    1.0 - 2.0 * inversions / pairs
}

/// Number of pairs `a < b` with `v[a] > v[b]`, by merge sort (sorts `v`).
fn count_inversions(v: &mut [usize]) -> u64 {
    let mut buf = v.to_vec();
    sort_count(v, &mut buf)
}

fn sort_count(v: &mut [usize], buf: &mut [usize]) -> u64 {
    let n = v.len();
    if n < 2 {
        return 0;
    }
    let mid = n / 2;
    let mut count =
        sort_count(&mut v[..mid], &mut buf[..mid]) + sort_count(&mut v[mid..], &mut buf[mid..]);
    let (mut i, mut j) = (0, mid);
    for slot in buf[..n].iter_mut() {
        if j == n || (i < mid && v[i] <= v[j]) {
            *slot = v[i];
            i += 1;
        } else {
            *slot = v[j];
            count += (mid - i) as u64;
            j += 1;
        }
    }
    v.copy_from_slice(&buf[..n]);
    count
}

/// Precision, recall and F score of [`rouge_w`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct RougeW {
    /// Precision (normalised by the predicted order).
    pub p: f64,
    /// Recall (normalised by the gold order).
    pub r: f64,
    /// F score with `alpha` = [`ROUGE_ALPHA`].
    pub f: f64,
}

/// ROUGE-W of `pred` (hypothesis) against `gold` (reference) exactly as py-rouge 1.1 computes it,
/// each unit id being one token and each order one sentence:
/// `Rouge(metrics=['rouge-w'], weight_factor=w)` with all other settings at their defaults
/// (`alpha=0.5`; stemming leaves decimal ids unchanged), scoring `" ".join(pred)` against
/// `" ".join(gold)`. One difference: py-rouge by default truncates each text to 665 bytes (about
/// 200 ids); orders are never truncated here.
///
/// With `f(k) = k^w`, `m = |gold|`, `n = |pred|`:
///
/// 1. Alignment: py-rouge's WLCS dynamic programme over `(gold, pred)` (Lin 2004): on equal
///    tokens `W[i][j] = W[i−1][j−1] + f(ℓ+1) − f(ℓ)` with `ℓ` the length of the consecutive match
///    ending at `(i−1, j−1)`; otherwise the larger of `W[i−1][j]` (preferred on ties) and
///    `W[i][j−1]`. (For `w = 1` py-rouge uses the plain LCS table, with the same tie rule.)
///    Backtracking marks the matched gold positions.
/// 2. `WLCS = Σ f(run)` over maximal runs of consecutive marked *gold* positions (py-rouge scores
///    runs in the reference only; for `w = 1` it is the number of marked positions).
/// 3. `P = f⁻¹(WLCS / f(n))`, `R = f⁻¹(WLCS / f(f(m)))`: the recall denominator is `f` applied
///    twice, the "doubled" denominator seed 000 describes (its eqs. 5–6). P or R is 0 when its
///    denominator is 0.
/// 4. `F = P·R / ((1 − α)·P + α·R)` with `α` = [`ROUGE_ALPHA`]; 0 when P or R is 0.
///
/// `w = 1` gives ROUGE-L: `P = LCS/n`, `R = LCS/m`. For `w > 1` even `pred == gold` scores
/// `R = m^(1−w)` below 1 (F = 0.84 for five units at `w = 1.2`): the score shrinks with the
/// length of the text, by design of seed 000. Empty orders score all zeros, as in
/// py-rouge; so does a `weight_factor` that is not finite and positive (py-rouge raises).
/// O(m·n) time and one byte per table cell of memory.
pub fn rouge_w(pred: &[usize], gold: &[usize], weight_factor: f64) -> RougeW {
    let w = weight_factor;
    if !(w.is_finite() && w > 0.0) {
        return RougeW::default();
    }
    let weighted = w != 1.0;
    let marked = mark_lcs(gold, pred, weighted.then_some(w));

    let overlap = if weighted {
        let mut total = 0.0;
        let mut run = 0usize;
        for (k, &hit) in marked.iter().enumerate() {
            if hit {
                run += 1;
                if marked.get(k + 1) != Some(&true) {
                    total += (run as f64).powf(w);
                    run = 0;
                }
            }
        }
        total
    } else {
        marked.iter().filter(|&&hit| hit).count() as f64
    };

    let (mut eval_count, mut ref_count) = (pred.len() as f64, gold.len() as f64);
    if weighted {
        eval_count = eval_count.powf(w);
        ref_count = ref_count.powf(w).powf(w);
    }
    let mut p = if eval_count == 0.0 {
        0.0
    } else {
        overlap / eval_count
    };
    let mut r = if ref_count == 0.0 {
        0.0
    } else {
        overlap / ref_count
    };
    if weighted {
        p = p.powf(1.0 / w);
        r = r.powf(1.0 / w);
    }
    let f = if p == 0.0 || r == 0.0 {
        0.0
    } else {
        p * r / ((1.0 - ROUGE_ALPHA) * p + ROUGE_ALPHA * r)
    };
    RougeW { p, r, f }
}

/// py-rouge's `_lcs` (`weight == None`) or `_wlcs` table over `x` (reference) and `y`
/// (hypothesis), then `_mark_lcs`: which positions of `x` the backtracked alignment matches.
/// Floating-point operations follow py-rouge's order so that ties break the same way.
fn mark_lcs(x: &[usize], y: &[usize], weight: Option<f64>) -> Vec<bool> {
    const DIAG: u8 = 1;
    const UP: u8 = 2;
    const LEFT: u8 = 3;
    let (m, n) = (x.len(), y.len());
    let cols = n + 1;
    let mut dirs = vec![0u8; (m + 1) * cols];
    let mut prev_vals = vec![0.0f64; cols];
    let mut vals = vec![0.0f64; cols];
    let mut prev_lens = vec![0u32; cols];
    let mut lens = vec![0u32; cols];
    for i in 1..=m {
        vals[0] = 0.0;
        lens[0] = 0;
        for j in 1..=n {
            let dir = if x[i - 1] == y[j - 1] {
                let run = prev_lens[j - 1];
                vals[j] = match weight {
                    Some(w) => {
                        prev_vals[j - 1] + f64::from(run.saturating_add(1)).powf(w)
                            - f64::from(run).powf(w)
                    }
                    None => prev_vals[j - 1] + 1.0,
                };
                lens[j] = run.saturating_add(1);
                DIAG
            } else if prev_vals[j] >= vals[j - 1] {
                vals[j] = prev_vals[j];
                lens[j] = 0;
                UP
            } else {
                vals[j] = vals[j - 1];
                lens[j] = 0;
                LEFT
            };
            dirs[i * cols + j] = dir;
        }
        std::mem::swap(&mut prev_vals, &mut vals);
        std::mem::swap(&mut prev_lens, &mut lens);
    }

    let mut marked = vec![false; m];
    let (mut i, mut j) = (m, n);
    while i != 0 && j != 0 {
        match dirs[i * cols + j] {
            DIAG => {
                i -= 1;
                j -= 1;
                marked[i] = true;
            }
            UP => i -= 1,
            _ => j -= 1,
        }
    }
    marked
}

/// WLCS-l of seed 000: the F score of [`rouge_w`] with weight factor [`WLCS_WEIGHT`] (1.2) and
/// py-rouge's default `alpha` 0.5, i.e. with `f(k) = k^1.2`
///
/// `P = (WLCS / f(|pred|))^(1/1.2)`, `R = (WLCS / f(f(|gold|)))^(1/1.2)`, `F = 2·P·R / (P + R)`.
///
/// Seed 000: "We use the package py-rouge to calculate the WLCS-l score with the default alpha
/// value being adopted". Two identical orders of `n` units score below 1 when `n > 1` (0.93 for
/// two units, 0.84 for five); empty orders score 0.0.
pub fn wlcs_l(pred: &[usize], gold: &[usize]) -> f64 {
    rouge_w(pred, gold, WLCS_WEIGHT).f
}

/// A similarity that is 1.0 for the same unit and 0.0 otherwise, for [`ordered_bertscore_v2`]
/// when no unit similarity is available.
pub fn identity_sim(a: usize, b: usize) -> f64 {
    if a == b {
        1.0
    } else {
        0.0
    }
}

/// Ordered BERTScore v2 of seed 003 with `n` = [`OBS_V2_N`] (4); see
/// [`ordered_bertscore_v2_n`].
pub fn ordered_bertscore_v2(
    pred: &[usize],
    gold: &[usize],
    sim: impl Fn(usize, usize) -> f64,
) -> f64 {
    ordered_bertscore_v2_n(pred, gold, OBS_V2_N, sim)
}

/// Ordered BERTScore v2-`n` (seed 003, §3.3), with `sim(a, b)` — the similarity of units `a` and
/// `b`, e.g. embedding or lexical cosine — in place of sentence-pair BERTScore.
///
/// With gold units as rows `i = 1..=|g|`, predicted units as columns `j = 1..=|p|` and
/// `C[i][j] = sim(gold[i], pred[j])`:
///
/// 1. Dynamic programme (seed 003, eq. 3): `S[i][j] = C[i][j] + max(S[i][j−1], S[i−1][j],
///    S[i−1][j−1])`, i.e. the maximum-sum monotone path of right, down and diagonal steps. The
///    path starts at `(1, 1)` and ends at `(|g|, |p|)` (`S[0][0] = 0`, other cells outside the
///    table −∞; the seed states only the recurrence, its Figure 3 shows such a path). Backtracking
///    prefers the diagonal, then `(i−1, j)`, then `(i, j−1)` on ties.
/// 2. Selection: the pairs on the path, in decreasing `C` (ties in path order), are taken unless
///    their gold row or their predicted column already has `n` taken pairs ("各行と各列で n 個より
///    多く重複しないように選ぶ").
/// 3. Score: `sum_v2 / (|p| + |g| − 1)`, `sum_v2` being the sum of `C` over the taken pairs.
///
/// `|p| + |g| − 1` is the longest possible path, so the score reaches 1.0 only when that many
/// pairs of similarity 1 are taken: with [`identity_sim`], `pred == gold` of `k` units scores
/// `k / (2k − 1)` (1.0 only for one unit) and worse orders score less. The score lies in
/// `[−1, 1]` when `sim` does. `n = 0` is treated as 1 and `n ≥ max(|g|, |p|)` is the seed's
/// `n = ∞`. Returns 0.0 when either order is empty; non-finite similarities count as 0.0.
/// O(|g|·|p|) calls to `sim`, time and memory.
pub fn ordered_bertscore_v2_n(
    pred: &[usize],
    gold: &[usize],
    n: usize,
    sim: impl Fn(usize, usize) -> f64,
) -> f64 {
    if pred.is_empty() || gold.is_empty() {
        return 0.0;
    }
    let total: f64 = obs_v2_selection(pred, gold, n, sim)
        .iter()
        .map(|&(_, _, c)| c)
        .sum();
    total / (pred.len() + gold.len() - 1) as f64
}

/// The pairs `(gold index, pred index, C)` that Ordered BERTScore v2-`n` selects, in selection
/// order (zero-based indices). Empty when either order is empty.
fn obs_v2_selection(
    pred: &[usize],
    gold: &[usize],
    n: usize,
    sim: impl Fn(usize, usize) -> f64,
) -> Vec<(usize, usize, f64)> {
    let (rows, cols) = (gold.len(), pred.len());
    if rows == 0 || cols == 0 {
        return Vec::new();
    }
    let n = n.max(1);
    let mut c = Vec::with_capacity(rows * cols);
    for &g in gold {
        for &p in pred {
            let v = sim(g, p);
            c.push(if v.is_finite() { v } else { 0.0 });
        }
    }
    let at = |i: usize, j: usize| i * cols + j;

    let mut s = vec![f64::NEG_INFINITY; rows * cols];
    for i in 0..rows {
        for j in 0..cols {
            let best = if i == 0 && j == 0 {
                0.0
            } else {
                let diag = if i > 0 && j > 0 {
                    s[at(i - 1, j - 1)]
                } else {
                    f64::NEG_INFINITY
                };
                let up = if i > 0 {
                    s[at(i - 1, j)]
                } else {
                    f64::NEG_INFINITY
                };
                let left = if j > 0 {
                    s[at(i, j - 1)]
                } else {
                    f64::NEG_INFINITY
                };
                diag.max(up).max(left)
            };
            s[at(i, j)] = best + c[at(i, j)];
        }
    }

    let mut path = vec![(rows - 1, cols - 1)];
    let (mut i, mut j) = (rows - 1, cols - 1);
    while i > 0 || j > 0 {
        let mut step = None;
        let mut best = f64::NEG_INFINITY;
        for (di, dj) in [(1, 1), (1, 0), (0, 1)] {
            if i >= di && j >= dj {
                let v = s[at(i - di, j - dj)];
                if step.is_none() || v > best {
                    best = v;
                    step = Some((i - di, j - dj));
                }
            }
        }
        // Some step always exists while (i, j) != (0, 0).
        let Some(next) = step else { break };
        (i, j) = next;
        path.push(next);
    }
    path.reverse();

    let mut ranked = path;
    ranked.sort_by(|&(ai, aj), &(bi, bj)| c[at(bi, bj)].total_cmp(&c[at(ai, aj)]));
    let mut row_used = vec![0usize; rows];
    let mut col_used = vec![0usize; cols];
    let mut chosen = Vec::new();
    for (i, j) in ranked {
        if row_used[i] < n && col_used[j] < n {
            row_used[i] += 1;
            col_used[j] += 1;
            chosen.push((i, j, c[at(i, j)]));
        }
    }
    chosen
}

/// The order metrics of one document (or, from [`OrderMetricsMean::mean`], their mean).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct OrderMetrics {
    /// Perfect match ([`pmr`]); its mean is the perfect match ratio.
    pub pmr: f64,
    /// Positional accuracy ([`accuracy`]).
    pub acc: f64,
    /// Kendall's τ ([`kendall_tau`]).
    pub tau: f64,
    /// WLCS-l ([`wlcs_l`]).
    pub wlcs_l: f64,
    /// Ordered BERTScore v2 with `n` = [`OBS_V2_N`] ([`ordered_bertscore_v2`]).
    pub obs_v2: f64,
}

impl OrderMetrics {
    /// All metrics of `pred` against `gold`; `sim` is the unit similarity for
    /// [`ordered_bertscore_v2`] (pass [`identity_sim`] when there is none).
    pub fn compute(pred: &[usize], gold: &[usize], sim: impl Fn(usize, usize) -> f64) -> Self {
        OrderMetrics {
            pmr: pmr(pred, gold),
            acc: accuracy(pred, gold),
            tau: kendall_tau(pred, gold),
            wlcs_l: wlcs_l(pred, gold),
            obs_v2: ordered_bertscore_v2(pred, gold, sim),
        }
    }
}

/// Running mean of [`OrderMetrics`] over documents, each document weighted equally (seed 000
/// averages per text). Which documents to include (e.g. seed 000 drops one-unit texts) is the
/// caller's choice.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OrderMetricsMean {
    sum: OrderMetrics,
    count: usize,
}

impl OrderMetricsMean {
    /// An empty mean.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one document's metrics.
    pub fn add(&mut self, m: &OrderMetrics) {
        self.sum.pmr += m.pmr;
        self.sum.acc += m.acc;
        self.sum.tau += m.tau;
        self.sum.wlcs_l += m.wlcs_l;
        self.sum.obs_v2 += m.obs_v2;
        self.count += 1;
    }

    /// Computes and adds the metrics of one document; returns them.
    pub fn add_order(
        &mut self,
        pred: &[usize],
        gold: &[usize],
        sim: impl Fn(usize, usize) -> f64,
    ) -> OrderMetrics {
        let m = OrderMetrics::compute(pred, gold, sim);
        self.add(&m);
        m
    }

    /// Number of documents added.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The mean of each metric over the documents added; all zeros when none were.
    pub fn mean(&self) -> OrderMetrics {
        if self.count == 0 {
            return OrderMetrics::default();
        }
        let k = self.count as f64;
        OrderMetrics {
            pmr: self.sum.pmr / k,
            acc: self.sum.acc / k,
            tau: self.sum.tau / k,
            wlcs_l: self.sum.wlcs_l / k,
            obs_v2: self.sum.obs_v2 / k,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn pmr_values() {
        assert_eq!(pmr(&[0, 1, 2], &[0, 1, 2]), 1.0);
        assert_eq!(pmr(&[0, 2, 1], &[0, 1, 2]), 0.0);
        assert_eq!(pmr(&[], &[]), 1.0);
        assert_eq!(pmr(&[0, 1], &[0, 1, 2]), 0.0);
    }

    #[test]
    fn accuracy_values() {
        assert_eq!(accuracy(&[0, 1, 2, 3], &[0, 1, 2, 3]), 1.0);
        assert_eq!(accuracy(&[0, 2, 1, 3], &[0, 1, 2, 3]), 0.5);
        assert_eq!(accuracy(&[3, 2, 1, 0], &[0, 1, 2, 3]), 0.0);
        assert!(close(accuracy(&[2, 1, 0], &[0, 1, 2]), 1.0 / 3.0));
        // Length mismatch: missing positions are misses.
        assert_eq!(accuracy(&[0, 1], &[0, 1, 2, 3]), 0.5);
        assert_eq!(accuracy(&[], &[0]), 0.0);
        assert_eq!(accuracy(&[], &[]), 1.0);
    }

    #[test]
    fn kendall_tau_values() {
        assert_eq!(kendall_tau(&[0, 1, 2, 3, 4], &[0, 1, 2, 3, 4]), 1.0);
        assert_eq!(kendall_tau(&[4, 3, 2, 1, 0], &[0, 1, 2, 3, 4]), -1.0);
        assert_eq!(kendall_tau(&[1, 0], &[0, 1]), -1.0);
        // One adjacent swap among 4: 1 inversion of 6 pairs.
        assert!(close(
            kendall_tau(&[0, 2, 1, 3], &[0, 1, 2, 3]),
            1.0 - 2.0 / 6.0
        ));
        // [2, 0, 1]: inversions (2,0), (2,1) → 1 − 4/3.
        assert!(close(kendall_tau(&[2, 0, 1], &[0, 1, 2]), -1.0 / 3.0));
        // Gold need not be 0..n.
        assert_eq!(kendall_tau(&[30, 20, 10], &[30, 20, 10]), 1.0);
        assert_eq!(kendall_tau(&[10, 20, 30], &[30, 20, 10]), -1.0);
        assert_eq!(kendall_tau(&[7], &[7]), 1.0);
        assert_eq!(kendall_tau(&[], &[]), 1.0);
    }

    #[test]
    fn kendall_tau_reversed_is_minus_one_for_many_lengths() {
        for n in 2..40 {
            let gold: Vec<usize> = (0..n).collect();
            let rev: Vec<usize> = gold.iter().rev().copied().collect();
            assert_eq!(kendall_tau(&rev, &gold), -1.0, "n = {n}");
        }
    }

    #[test]
    fn kendall_tau_matches_quadratic_count() {
        // Deterministic pseudo-random permutations.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for n in 2..30 {
            let mut pred: Vec<usize> = (0..n).collect();
            for k in (1..n).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                pred.swap(k, (state % (k as u64 + 1)) as usize);
            }
            let gold: Vec<usize> = (0..n).collect();
            let inv = (0..n)
                .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
                .filter(|&(a, b)| pred[a] > pred[b])
                .count() as f64;
            let expect = 1.0 - 2.0 * inv / (n * (n - 1) / 2) as f64;
            assert!(close(kendall_tau(&pred, &gold), expect));
        }
    }

    #[test]
    fn kendall_tau_non_permutations_score_zero() {
        assert!(!is_permutation(&[0, 1], &[0, 1, 2]));
        assert!(!is_permutation(&[0, 0, 1], &[0, 1, 2]));
        assert!(!is_permutation(&[0, 1, 3], &[0, 1, 2]));
        assert!(!is_permutation(&[0, 1, 1], &[0, 1, 1]));
        assert!(is_permutation(&[2, 0, 1], &[0, 1, 2]));
        assert_eq!(kendall_tau(&[0, 1], &[0, 1, 2]), 0.0);
        assert_eq!(kendall_tau(&[0, 0, 1], &[0, 1, 2]), 0.0);
    }

    #[test]
    fn rouge_w_weight_one_is_lcs() {
        // LCS of [0 2 1 3] and [0 1 2 3] is 3.
        let s = rouge_w(&[0, 2, 1, 3], &[0, 1, 2, 3], 1.0);
        assert!(close(s.p, 0.75) && close(s.r, 0.75) && close(s.f, 0.75));
        let s = rouge_w(&[2, 0], &[0, 1, 2], 1.0);
        assert!(close(s.p, 0.5) && close(s.r, 1.0 / 3.0) && close(s.f, 0.4));
    }

    #[test]
    fn wlcs_l_hand_computed() {
        let w = WLCS_WEIGHT;
        // Identical, n = 3: WLCS = 3^w; P = 1; R = (3^w / 3^(w·w))^(1/w).
        let r = (3f64.powf(w) / 3f64.powf(w).powf(w)).powf(1.0 / w);
        let f = 2.0 * r / (1.0 + r);
        assert!(close(wlcs_l(&[0, 1, 2], &[0, 1, 2]), f));
        // [0 2 1 3] vs [0 1 2 3]: LCS 0 1 3 or 0 2 3; py-rouge marks gold 0, 2, 3 → runs 1, 2.
        let wlcs = 1.0 + 2f64.powf(w);
        let p = (wlcs / 4f64.powf(w)).powf(1.0 / w);
        let r = (wlcs / 4f64.powf(w).powf(w)).powf(1.0 / w);
        assert!(close(
            wlcs_l(&[0, 2, 1, 3], &[0, 1, 2, 3]),
            2.0 * p * r / (p + r)
        ));
        assert_eq!(wlcs_l(&[0], &[0]), 1.0);
        assert_eq!(wlcs_l(&[], &[]), 0.0);
        assert_eq!(wlcs_l(&[], &[1]), 0.0);
        assert_eq!(wlcs_l(&[3, 4], &[1, 2]), 0.0);
        assert_eq!(rouge_w(&[0, 1], &[0, 1], 0.0), RougeW::default());
        assert_eq!(rouge_w(&[0, 1], &[0, 1], f64::NAN), RougeW::default());
    }

    #[test]
    fn wlcs_l_prefers_contiguous_orders() {
        let gold: Vec<usize> = (0..8).collect();
        // Both keep 5 units in gold order (LCS 5): one run of 5 versus runs of 1 and 4.
        let rotated = [3, 4, 5, 6, 7, 0, 1, 2];
        let interleaved = [0, 4, 1, 5, 2, 6, 3, 7];
        assert_eq!(
            rouge_w(&rotated, &gold, 1.0),
            rouge_w(&interleaved, &gold, 1.0)
        );
        assert!(wlcs_l(&gold, &gold) > wlcs_l(&rotated, &gold));
        assert!(wlcs_l(&rotated, &gold) > wlcs_l(&interleaved, &gold));
        let reversed: Vec<usize> = gold.iter().rev().copied().collect();
        assert!(wlcs_l(&interleaved, &gold) > wlcs_l(&reversed, &gold));
    }

    /// The 3×4 example of seed 003's Figure 3: path (1,1) (2,1) (2,2) (2,3) (3,4); v2-1 selects
    /// (2,1), (3,4); v2-2 selects (2,1), (2,3), (1,1), (3,4) (one-based).
    #[test]
    fn obs_v2_figure_3_example() {
        let table = [
            [0.5, -1.0, -1.0, -1.0],
            [0.9, 0.1, 0.8, -1.0],
            [-1.0, -1.0, -1.0, 0.4],
        ];
        let gold = [0, 1, 2];
        let pred = [10, 11, 12, 13];
        let sim = |g: usize, p: usize| table[g][p - 10];
        let pairs = |n| -> Vec<(usize, usize)> {
            obs_v2_selection(&pred, &gold, n, sim)
                .into_iter()
                .map(|(i, j, _)| (i + 1, j + 1))
                .collect()
        };
        assert_eq!(pairs(1), vec![(2, 1), (3, 4)]);
        assert_eq!(pairs(2), vec![(2, 1), (2, 3), (1, 1), (3, 4)]);
        assert_eq!(pairs(usize::MAX).len(), 5);
        assert!(close(
            ordered_bertscore_v2_n(&pred, &gold, 1, sim),
            1.3 / 6.0
        ));
        assert!(close(
            ordered_bertscore_v2_n(&pred, &gold, 2, sim),
            2.6 / 6.0
        ));
        assert!(close(
            ordered_bertscore_v2_n(&pred, &gold, 0, sim),
            1.3 / 6.0
        ));
        assert!(close(
            ordered_bertscore_v2_n(&pred, &gold, usize::MAX, sim),
            2.7 / 6.0
        ));
    }

    #[test]
    fn obs_v2_identity_similarity() {
        let gold = [0, 1, 2];
        // Identical: the three diagonal pairs; 3 / (3 + 3 − 1).
        assert!(close(
            ordered_bertscore_v2_n(&gold, &gold, 1, identity_sim),
            0.6
        ));
        assert!(close(ordered_bertscore_v2(&gold, &gold, identity_sim), 0.6));
        // Reversed: a monotone path meets at most one matching pair; 1 / 5.
        assert!(close(
            ordered_bertscore_v2_n(&[2, 1, 0], &gold, 1, identity_sim),
            0.2
        ));
        // One swap: two matching pairs on the best path.
        assert!(close(
            ordered_bertscore_v2_n(&[1, 0, 2], &gold, 1, identity_sim),
            0.4
        ));
        // A single unit scores 1.
        assert_eq!(ordered_bertscore_v2(&[4], &[4], identity_sim), 1.0);
        // Different lengths: path (1,1) (1,2), one matching pair; 1 / 2.
        assert!(close(
            ordered_bertscore_v2_n(&[0, 1], &[0], 1, identity_sim),
            0.5
        ));
        assert_eq!(ordered_bertscore_v2(&[], &[0], identity_sim), 0.0);
        assert_eq!(ordered_bertscore_v2(&[0], &[], identity_sim), 0.0);
        assert_eq!(ordered_bertscore_v2(&[], &[], identity_sim), 0.0);
    }

    #[test]
    fn obs_v2_full_similarity_reaches_one() {
        // Every pair similar: the longest path (|g| + |p| − 1 pairs) is taken entirely with n = ∞.
        let gold = [0, 1, 2, 3];
        let one = |_: usize, _: usize| 1.0;
        assert!(close(
            ordered_bertscore_v2_n(&gold, &gold, usize::MAX, one),
            1.0
        ));
    }

    #[test]
    fn obs_v2_graded_similarity_orders_candidates() {
        // Units on a line: similarity decays with distance.
        let sim = |a: usize, b: usize| 1.0 / (1.0 + a.abs_diff(b) as f64);
        let gold: Vec<usize> = (0..6).collect();
        let swap = [0, 1, 3, 2, 4, 5];
        let reversed: Vec<usize> = gold.iter().rev().copied().collect();
        for n in [1, 2, 4, usize::MAX] {
            let same = ordered_bertscore_v2_n(&gold, &gold, n, sim);
            let near = ordered_bertscore_v2_n(&swap, &gold, n, sim);
            let far = ordered_bertscore_v2_n(&reversed, &gold, n, sim);
            assert!(same > near && near > far, "n = {n}: {same} {near} {far}");
        }
    }

    #[test]
    fn obs_v2_negative_and_non_finite_similarities() {
        let neg = |_: usize, _: usize| -1.0;
        // Shortest path (diagonal, 2 pairs), both taken: −2 / 3.
        assert!(close(
            ordered_bertscore_v2_n(&[0, 1], &[0, 1], 1, neg),
            -2.0 / 3.0
        ));
        let nan = |_: usize, _: usize| f64::NAN;
        assert_eq!(ordered_bertscore_v2(&[0, 1], &[1, 0], nan), 0.0);
    }

    #[test]
    fn mean_over_documents() {
        let mut mean = OrderMetricsMean::new();
        assert_eq!(mean.mean(), OrderMetrics::default());
        let a = mean.add_order(&[0, 1, 2], &[0, 1, 2], identity_sim);
        let b = mean.add_order(&[2, 1, 0], &[0, 1, 2], identity_sim);
        assert_eq!(mean.count(), 2);
        assert_eq!((a.pmr, a.acc, a.tau), (1.0, 1.0, 1.0));
        assert!(close(b.acc, 1.0 / 3.0));
        assert_eq!(b.tau, -1.0);
        let m = mean.mean();
        assert_eq!(m.pmr, 0.5);
        assert!(close(m.acc, 2.0 / 3.0));
        assert_eq!(m.tau, 0.0);
        assert!(close(m.wlcs_l, (a.wlcs_l + b.wlcs_l) / 2.0));
        assert!(close(m.obs_v2, (0.6 + 0.2) / 2.0));
    }
}
