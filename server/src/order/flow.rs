//! The flow judge's part in reorder proposals.
//!
//! A judge's table ([`crate::score::Pairwise`]) scores transitions between two units at a time,
//! and every table finds *some* order it likes better than the author's. The flow judge
//! ([`crate::model::flow`]) reads a whole container in a given order and says how well it reads,
//! so it can compare the author's order with the table's best candidates as a reader would. Where
//! a judge's overrule model reads the flow judge ([`super::overrule::FLOW_FEATURES`]), the
//! proposal is the candidate that reads best ([`choose`]), and the model decides from the table's
//! evidence and the flow judge's two logits whether it is offered ([`super::reorder::propose`]).

use super::overrule::{every_order, EXACT_UNITS};
use super::reorder::dangles;
use crate::model::{FlowJudge, ModelError};
use crate::score::{Pairwise, Unit};

/// How many of the table's best orders are read, besides its decision and the author's order.
pub const TOP_ORDERS: usize = 6;

/// The flow judge's verdict on a container.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowChoice {
    /// The candidate that reads best, other than the author's order (the identity when no
    /// candidate is left).
    pub order: Vec<usize>,
    /// The flow logit of the current order.
    pub before: f64,
    /// The flow logit of [`FlowChoice::order`].
    pub after: f64,
}

impl FlowChoice {
    /// How much better the candidate reads than the current order (in logits).
    pub fn gain(&self) -> f64 {
        self.after - self.before
    }
}

/// The orders the flow judge reads: the current order first, then `decision` and the table's
/// [`TOP_ORDERS`] best orders, without repeats.
pub fn candidates(table: &dyn Pairwise, decision: &[usize]) -> Vec<Vec<usize>> {
    let n = table.len();
    let mut out: Vec<Vec<usize>> = vec![(0..n).collect()];
    let push = |order: Vec<usize>, out: &mut Vec<Vec<usize>>| {
        if order.len() == n && !out.contains(&order) {
            out.push(order);
        }
    };
    push(decision.to_vec(), &mut out);
    for order in top_orders(table, TOP_ORDERS) {
        push(order, &mut out);
    }
    out
}

/// The `k` best orders of the table's units by mean adjacent transition (ties: the first met),
/// among all orders for at most [`EXACT_UNITS`] units; none beyond (larger containers are read
/// with the table's decision alone).
pub fn top_orders(table: &dyn Pairwise, k: usize) -> Vec<Vec<usize>> {
    let n = table.len();
    if !(2..=EXACT_UNITS).contains(&n) || k == 0 {
        return Vec::new();
    }
    let matrix: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| table.transition(i, j)).collect())
        .collect();
    let mut best: Vec<(f64, Vec<usize>)> = Vec::with_capacity(k + 1);
    let consider = |order: &[usize]| {
        let s: f64 = order.windows(2).map(|w| matrix[w[0]][w[1]]).sum();
        if best.len() < k || s > best[best.len() - 1].0 + 1e-12 {
            let at = best.partition_point(|(b, _)| *b >= s);
            best.insert(at, (s, order.to_vec()));
            best.truncate(k);
        }
    };
    every_order(n, consider);
    best.into_iter().map(|(_, o)| o).collect()
}

/// Reads the current order of `units` and the candidates ([`candidates`]) that leave no linked
/// unit without what it leans on ([`dangles`]), and returns the best of them against the current
/// order.
pub fn choose(
    flow: &FlowJudge,
    units: &[Unit<'_>],
    table: &dyn Pairwise,
    decision: &[usize],
) -> Result<FlowChoice, ModelError> {
    let orders: Vec<Vec<usize>> = candidates(table, decision)
        .into_iter()
        .enumerate()
        .filter(|(k, o)| *k == 0 || !dangles(units, o))
        .map(|(_, o)| o)
        .collect();
    let texts: Vec<String> = units.iter().map(|u| u.join(" ")).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let logits = flow.scores(&refs, &orders)?;
    let before = f64::from(logits.first().copied().unwrap_or(0.0));
    let best = (1..orders.len()).max_by(|&a, &b| logits[a].total_cmp(&logits[b]));
    Ok(match best {
        Some(k) => FlowChoice {
            order: orders[k].clone(),
            before,
            after: f64::from(logits[k]),
        },
        None => FlowChoice {
            order: orders[0].clone(),
            before,
            after: before,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::Reason;

    /// Transitions that favour i → i + 1.
    struct Chain(usize);

    impl Pairwise for Chain {
        fn len(&self) -> usize {
            self.0
        }
        fn transition(&self, from: usize, to: usize) -> f64 {
            if to == from + 1 {
                1.0
            } else {
                0.0
            }
        }
        fn reason(&self, _: usize, _: usize) -> Reason {
            Reason::default()
        }
    }

    #[test]
    fn top_orders_are_the_tables_best_without_repeats() {
        let top = top_orders(&Chain(4), 3);
        assert_eq!(top.len(), 3);
        assert_eq!(top[0], vec![0, 1, 2, 3]);
        // The next best orders keep two of the three links.
        for o in &top[1..] {
            let links = o.windows(2).filter(|w| w[1] == w[0] + 1).count();
            assert_eq!(links, 2, "{o:?}");
        }
        assert!(top_orders(&Chain(9), 3).is_empty());
    }

    #[test]
    fn candidates_start_with_the_current_order_and_hold_the_decision() {
        let c = candidates(&Chain(4), &[3, 2, 1, 0]);
        assert_eq!(c[0], vec![0, 1, 2, 3]);
        assert_eq!(c[1], vec![3, 2, 1, 0]);
        let mut seen = c.clone();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), c.len());
        assert!(c.len() <= TOP_ORDERS + 2);
    }
}
