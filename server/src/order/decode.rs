//! Decoders that turn pairwise transition scores into an order.
//!
//! The objective of an order `o` is additive over adjacent pairs:
//! `Σ transition(o[k], o[k+1]) + opening(o[0]) + closing(o[n-1])`, so the best order is a
//! maximum-weight Hamiltonian path. [`exact`] solves it by dynamic programming over subsets
//! (O(2ⁿ·n²) time, O(2ⁿ·n) memory) for up to [`EXACT_MAX_UNITS`] units; [`beam`] searches larger
//! inputs under a time budget and returns the best order found so far when the budget runs out.
//! [`best_order`] picks between them. Constraints pin units to their current positions.

use crate::score::{order_score, Pairwise};
use std::time::{Duration, Instant};

/// Most units [`exact`] accepts (2¹⁶ · 16 states).
pub const EXACT_MAX_UNITS: usize = 16;

/// What to optimise and under which constraints.
pub struct Problem<'a> {
    /// Transition scores between any two units.
    pub pairs: &'a dyn Pairwise,
    /// Bonus for each unit opening the order (empty: none).
    pub opening: Vec<f64>,
    /// Bonus for each unit closing the order (empty: none).
    pub closing: Vec<f64>,
    /// `pinned[i]`: unit `i` must stay at position `i` (empty: nothing pinned).
    pub pinned: Vec<bool>,
}

impl<'a> Problem<'a> {
    /// An unconstrained problem over `pairs`.
    pub fn new(pairs: &'a dyn Pairwise) -> Self {
        Problem {
            pairs,
            opening: Vec::new(),
            closing: Vec::new(),
            pinned: Vec::new(),
        }
    }

    /// Keeps the first unit first.
    pub fn keep_first(mut self) -> Self {
        self.pin(0);
        self
    }

    /// Keeps the last unit last.
    pub fn keep_last(mut self) -> Self {
        if let Some(last) = self.pairs.len().checked_sub(1) {
            self.pin(last);
        }
        self
    }

    /// Keeps unit `i` at position `i`.
    pub fn pin(&mut self, i: usize) {
        let n = self.pairs.len();
        if i < n {
            self.pinned.resize(n, false);
            self.pinned[i] = true;
        }
    }

    fn is_pinned(&self, i: usize) -> bool {
        self.pinned.get(i).copied().unwrap_or(false)
    }

    /// Whether unit `unit` may go to position `pos`.
    fn allowed(&self, unit: usize, pos: usize) -> bool {
        if self.is_pinned(pos) {
            unit == pos
        } else {
            !self.is_pinned(unit)
        }
    }

    fn open(&self, i: usize) -> f64 {
        self.opening.get(i).copied().unwrap_or(0.0)
    }

    fn close(&self, i: usize) -> f64 {
        self.closing.get(i).copied().unwrap_or(0.0)
    }

    /// The objective of `order`.
    pub fn objective(&self, order: &[usize]) -> f64 {
        let (Some(&first), Some(&last)) = (order.first(), order.last()) else {
            return 0.0;
        };
        let t: f64 = order
            .windows(2)
            .map(|w| self.pairs.transition(w[0], w[1]))
            .sum();
        t + self.open(first) + self.close(last)
    }
}

/// The result of a decoder.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The order found (indices into the units).
    pub order: Vec<usize>,
    /// Its objective.
    pub objective: f64,
    /// Whether the order is proven optimal.
    pub exact: bool,
    /// Whether the time budget ran out before the search finished.
    pub timed_out: bool,
}

/// The optimal order by dynamic programming over subsets, or `None` for more than
/// [`EXACT_MAX_UNITS`] units.
pub fn exact(problem: &Problem<'_>) -> Option<Decoded> {
    let n = problem.pairs.len();
    if n > EXACT_MAX_UNITS {
        return None;
    }
    if n == 0 {
        return Some(Decoded {
            order: Vec::new(),
            objective: 0.0,
            exact: true,
            timed_out: false,
        });
    }
    // Transition matrix, read once.
    let w: Vec<f64> = (0..n * n)
        .map(|k| problem.pairs.transition(k / n, k % n))
        .collect();
    let full = (1usize << n) - 1;
    let mut best = vec![f64::NEG_INFINITY; (full + 1) * n];
    let mut back = vec![u8::MAX; (full + 1) * n];
    for u in 0..n {
        if problem.allowed(u, 0) {
            best[(1 << u) * n + u] = problem.open(u);
        }
    }
    for mask in 1..=full {
        let pos = mask.count_ones() as usize; // position of the next unit
        if pos >= n {
            continue;
        }
        for last in 0..n {
            let cur = best[mask * n + last];
            if cur == f64::NEG_INFINITY {
                continue;
            }
            for next in 0..n {
                if mask & (1 << next) != 0 || !problem.allowed(next, pos) {
                    continue;
                }
                let m2 = mask | (1 << next);
                let v = cur + w[last * n + next];
                if v > best[m2 * n + next] {
                    best[m2 * n + next] = v;
                    back[m2 * n + next] = last as u8;
                }
            }
        }
    }
    let (last, objective) = (0..n)
        .map(|u| (u, best[full * n + u] + problem.close(u)))
        .filter(|(_, v)| v.is_finite())
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))?;
    let mut order = Vec::with_capacity(n);
    let (mut mask, mut u) = (full, last);
    loop {
        order.push(u);
        let prev = back[mask * n + u];
        mask &= !(1 << u);
        if prev == u8::MAX {
            break;
        }
        u = prev as usize;
    }
    order.reverse();
    Some(Decoded {
        order,
        objective,
        exact: true,
        timed_out: false,
    })
}

/// Beam search: extends the `width` best partial orders one unit at a time. Stops when the
/// time budget runs out and completes the best partial order greedily.
pub fn beam(problem: &Problem<'_>, width: usize, budget: Duration) -> Decoded {
    let started = Instant::now();
    let n = problem.pairs.len();
    let width = width.max(1);
    #[derive(Clone)]
    struct State {
        order: Vec<usize>,
        used: Vec<bool>,
        score: f64,
    }
    let mut beam: Vec<State> = (0..n)
        .filter(|&u| problem.allowed(u, 0))
        .map(|u| {
            let mut used = vec![false; n];
            used[u] = true;
            State {
                order: vec![u],
                used,
                score: problem.open(u),
            }
        })
        .collect();
    beam.sort_by(|a, b| b.score.total_cmp(&a.score));
    beam.truncate(width);
    let mut timed_out = false;
    for pos in 1..n {
        if started.elapsed() > budget {
            timed_out = true;
            break;
        }
        let mut next: Vec<State> = Vec::with_capacity(beam.len() * n);
        for s in &beam {
            let last = s.order[s.order.len() - 1];
            for u in 0..n {
                if s.used[u] || !problem.allowed(u, pos) {
                    continue;
                }
                let mut t = s.clone();
                t.used[u] = true;
                t.order.push(u);
                t.score += problem.pairs.transition(last, u);
                next.push(t);
            }
        }
        if next.is_empty() {
            break;
        }
        // Recombine states with the same set and last unit: only the best can win.
        next.sort_by(|a, b| b.score.total_cmp(&a.score));
        let mut seen = std::collections::HashSet::new();
        next.retain(|s| seen.insert((s.used.clone(), s.order[s.order.len() - 1])));
        next.truncate(width);
        beam = next;
    }
    let mut best: Option<(f64, Vec<usize>)> = None;
    for s in beam {
        let order = complete_greedily(problem, s.order, s.used);
        let v = problem.objective(&order);
        if best.as_ref().is_none_or(|(b, _)| v > *b) {
            best = Some((v, order));
        }
    }
    let (objective, order) = best.unwrap_or_else(|| (0.0, (0..n).collect()));
    Decoded {
        order,
        objective,
        exact: false,
        timed_out,
    }
}

fn complete_greedily(
    problem: &Problem<'_>,
    mut order: Vec<usize>,
    mut used: Vec<bool>,
) -> Vec<usize> {
    let n = used.len();
    while order.len() < n {
        let pos = order.len();
        let last = order.last().copied();
        let pick = (0..n)
            .filter(|&u| !used[u] && problem.allowed(u, pos))
            .max_by(|&a, &b| {
                let sa = last.map_or(0.0, |l| problem.pairs.transition(l, a));
                let sb = last.map_or(0.0, |l| problem.pairs.transition(l, b));
                sa.total_cmp(&sb).then(b.cmp(&a))
            })
            .or_else(|| (0..n).find(|&u| !used[u]));
        let Some(u) = pick else { break };
        used[u] = true;
        order.push(u);
    }
    order
}

/// Default beam width for [`best_order`].
pub const BEAM_WIDTH: usize = 64;

/// The best order: exact up to [`EXACT_MAX_UNITS`] units, beam search with `budget` beyond.
pub fn best_order(problem: &Problem<'_>, budget: Duration) -> Decoded {
    exact(problem).unwrap_or_else(|| beam(problem, BEAM_WIDTH, budget))
}

/// The best order found by greedy search from every possible first unit: from each start, append
/// the unit that follows the last one best; keep the path with the highest mean transition score.
/// O(n³); ties keep the lower index, so results are deterministic.
pub fn greedy(pairs: &dyn Pairwise) -> Vec<usize> {
    let n = pairs.len();
    if n < 2 {
        return (0..n).collect();
    }
    let mut best: Option<(f64, Vec<usize>)> = None;
    for start in 0..n {
        let mut used = vec![false; n];
        used[start] = true;
        let mut order = vec![start];
        while order.len() < n {
            let last = order[order.len() - 1];
            let next = (0..n)
                .filter(|&j| !used[j])
                .max_by(|&a, &b| {
                    pairs
                        .transition(last, a)
                        .total_cmp(&pairs.transition(last, b))
                        .then(b.cmp(&a))
                })
                .unwrap_or(0);
            used[next] = true;
            order.push(next);
        }
        let score = order_score(pairs, &order);
        if best.as_ref().is_none_or(|(s, _)| score > *s) {
            best = Some((score, order));
        }
    }
    best.map(|(_, o)| o).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::Reason;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    struct Matrix(Vec<Vec<f64>>);
    impl Pairwise for Matrix {
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

    fn random_matrix(n: usize, rng: &mut ChaCha8Rng) -> Matrix {
        Matrix(
            (0..n)
                .map(|_| (0..n).map(|_| rng.gen::<f64>()).collect())
                .collect(),
        )
    }

    fn permutations(n: usize) -> Vec<Vec<usize>> {
        if n == 0 {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        for p in permutations(n - 1) {
            for i in 0..=p.len() {
                let mut q = p.clone();
                q.insert(i, n - 1);
                out.push(q);
            }
        }
        out
    }

    fn brute_force(problem: &Problem<'_>) -> f64 {
        let n = problem.pairs.len();
        permutations(n)
            .into_iter()
            .filter(|o| {
                o.iter()
                    .enumerate()
                    .all(|(pos, &u)| problem.allowed(u, pos))
            })
            .map(|o| problem.objective(&o))
            .fold(f64::NEG_INFINITY, f64::max)
    }

    #[test]
    fn dp_equals_brute_force_up_to_8_units() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for n in 1..=8 {
            for trial in 0..6 {
                let m = random_matrix(n, &mut rng);
                let mut p = Problem::new(&m);
                if trial % 2 == 1 {
                    p.opening = (0..n).map(|_| rng.gen::<f64>()).collect();
                    p.closing = (0..n).map(|_| rng.gen::<f64>()).collect();
                }
                if trial >= 4 && n > 2 {
                    p.pin(rng.gen_range(0..n));
                }
                let d = exact(&p).expect("n <= 16");
                assert!(
                    (d.objective - brute_force(&p)).abs() < 1e-9,
                    "n={n} trial={trial}"
                );
                assert!((p.objective(&d.order) - d.objective).abs() < 1e-9);
                let mut sorted = d.order.clone();
                sorted.sort_unstable();
                assert_eq!(sorted, (0..n).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn wide_beam_equals_dp() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for n in 2..=9 {
            let m = random_matrix(n, &mut rng);
            let p = Problem::new(&m);
            let d = exact(&p).expect("small");
            // With recombination, width C(n, n/2)·n keeps every distinct (set, last) state.
            let b = beam(&p, 2000, Duration::from_secs(10));
            assert!((b.objective - d.objective).abs() < 1e-9, "n={n}");
            assert!(!b.timed_out);
        }
    }

    #[test]
    fn constraints_keep_pinned_units() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let m = random_matrix(7, &mut rng);
        let p = Problem::new(&m).keep_first().keep_last();
        for d in [
            exact(&p).expect("small"),
            beam(&p, 8, Duration::from_secs(1)),
        ] {
            assert_eq!(d.order[0], 0);
            assert_eq!(d.order[6], 6);
        }
    }

    #[test]
    fn beam_handles_large_inputs_within_budget() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let m = random_matrix(40, &mut rng);
        let p = Problem::new(&m);
        let d = best_order(&p, Duration::from_millis(200));
        let mut sorted = d.order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..40).collect::<Vec<_>>());
        // Zero budget still returns a full order.
        let z = beam(&p, 4, Duration::ZERO);
        assert_eq!(z.order.len(), 40);
        assert!(z.timed_out);
    }

    #[test]
    fn a_chain_is_found() {
        // transition(i, i+1) = 1, all else 0: the identity is the unique optimum.
        let n = 12;
        let m = Matrix(
            (0..n)
                .map(|i| (0..n).map(|j| f64::from(u8::from(j == i + 1))).collect())
                .collect(),
        );
        let d = best_order(&Problem::new(&m), Duration::from_secs(1));
        assert_eq!(d.order, (0..n).collect::<Vec<_>>());
        assert!(d.exact);
    }
}
