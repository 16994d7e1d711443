//! Decoders that turn pairwise transition scores into an order.

use crate::score::{order_score, Pairwise};

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
