//! The flow judge's part in reorder proposals.
//!
//! A judge's table ([`crate::score::Pairwise`]) scores transitions between two units at a time,
//! and every table finds *some* order it likes better than the author's. The flow judge
//! ([`crate::model::flow`]) reads a whole container in a given order and says how well it reads,
//! so it can compare the author's order with the table's best candidates as a reader would. Where
//! a judge's overrule model reads the flow judge ([`super::overrule::FLOW_FEATURES`]), the
//! proposal is the candidate that reads best ([`choose`]), and the model decides from the table's
//! evidence and the flow judge's two logits whether it is offered ([`super::reorder::propose`]).
//! As with the table's own decision ([`super::reorder::decide`]), the smallest change that reaches
//! most of the gain wins: a single move whose gain is at least [`MOVE_SHARE`] of the best
//! candidate's is proposed instead of a whole reorder ([`pick`]).

use super::overrule::{every_order, EXACT_UNITS};
use super::reorder::{dangles, each_move, single_move, MOVE_SHARE};
use crate::model::{FlowJudge, ModelError};
use crate::score::{Pairwise, Unit};

/// How many of the table's best orders are read, besides its decision and the author's order.
pub const TOP_ORDERS: usize = 6;
/// How many of the table's best single moves are read besides (the smallest changes, [`pick`]).
pub const TOP_MOVES: usize = 4;

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

/// The orders the flow judge reads: the current order first, then `decision`, the table's
/// [`TOP_ORDERS`] best orders and its [`TOP_MOVES`] best single moves, without repeats.
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
    for order in top_moves(table, TOP_MOVES) {
        push(order, &mut out);
    }
    out
}

/// The `k` orders that move one unit of the table's units to another place and that the table
/// scores best (sum of adjacent transitions; ties: the first met).
pub fn top_moves(table: &dyn Pairwise, k: usize) -> Vec<Vec<usize>> {
    let mut best: Vec<(f64, Vec<usize>)> = Vec::new();
    each_move(table.len(), |unit, slot, order| {
        // Moving a unit one place on is the same order as moving its neighbour one place back.
        if slot == unit + 1 {
            return;
        }
        let s: f64 = order.windows(2).map(|w| table.transition(w[0], w[1])).sum();
        let at = best.partition_point(|(b, _)| *b >= s);
        best.insert(at, (s, order.to_vec()));
    });
    best.truncate(k);
    best.into_iter().map(|(_, o)| o).collect()
}

/// Which of `orders` (the current order first) to propose, given the flow judge's logit of each:
/// the one that reads best, unless it moves several units and a single move reaches
/// [`MOVE_SHARE`] of its gain over the current order; then the best such move. `None` when there
/// is no candidate besides the current order.
pub fn pick(orders: &[Vec<usize>], logits: &[f32]) -> Option<usize> {
    let logit = |k: usize| logits.get(k).copied().unwrap_or(f32::NEG_INFINITY);
    let by_logit = |a: &usize, b: &usize| logit(*a).total_cmp(&logit(*b));
    let best = (1..orders.len()).max_by(by_logit)?;
    let gain = |k: usize| f64::from(logit(k) - logit(0));
    if gain(best) <= 0.0 || single_move(&orders[best]).is_some() {
        return Some(best);
    }
    let share = MOVE_SHARE * gain(best);
    let smallest = (1..orders.len())
        .filter(|&k| single_move(&orders[k]).is_some() && gain(k) >= share)
        .max_by(by_logit);
    Some(smallest.unwrap_or(best))
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
/// unit without what it leans on ([`dangles`]), and returns the one to propose ([`pick`]) against
/// the current order.
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
    Ok(match pick(&orders, &logits) {
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
    fn top_moves_move_one_unit_each_best_first() {
        let moves = top_moves(&Chain(4), 20);
        // 4 units can move to 3 other places each; adjacent swaps are counted once: 9 orders.
        assert_eq!(moves.len(), 9);
        let mut seen = moves.clone();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), moves.len());
        for m in &moves {
            assert!(single_move(m).is_some(), "{m:?}");
        }
        // Under a chain table the best moves keep two of the three links.
        let links = |o: &Vec<usize>| o.windows(2).filter(|w| w[1] == w[0] + 1).count();
        assert_eq!(links(&moves[0]), 2);
        assert!(moves.windows(2).all(|w| links(&w[0]) >= links(&w[1])));
        assert_eq!(top_moves(&Chain(4), 2).len(), 2);
    }

    #[test]
    fn the_smallest_change_that_reaches_most_of_the_gain_is_picked() {
        let orders = vec![
            vec![0, 1, 2, 3],
            vec![3, 2, 1, 0], // a whole reorder
            vec![1, 0, 2, 3], // a single move
            vec![0, 1, 3, 2], // another single move
        ];
        // The reorder gains 2.0; the first move 1.5 (75 %), the second 1.0: the first move wins.
        assert_eq!(pick(&orders, &[0.0, 2.0, 1.5, 1.0]), Some(2));
        // No move reaches 70 % of the gain: the reorder stands.
        assert_eq!(pick(&orders, &[0.0, 2.0, 1.3, 1.0]), Some(1));
        // A move that reads best is picked as it is.
        assert_eq!(pick(&orders, &[0.0, 1.0, 0.5, 2.0]), Some(3));
        // Nothing reads better than the current order: the best candidate, which is not offered.
        assert_eq!(pick(&orders, &[3.0, 2.0, 1.5, 1.0]), Some(1));
        assert_eq!(pick(&orders[..1], &[0.0]), None);
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
        assert!(c.len() <= TOP_ORDERS + TOP_MOVES + 2);
    }
}
