//! Degraded orders for the discrimination test, deterministic for a seed.
//!
//! - `R1`, `R2` (Ermakova et al., seed 002): one or two units are each taken out and put back at a
//!   different random position.
//! - `R`: a full random shuffle.
//! - `D_b` (BBScore, seed 001): the units are cut into blocks of `b` consecutive units (the last may
//!   be shorter) and the blocks are shuffled.
//!
//! Every degradation returns a permutation of `0..n` that differs from the identity, or `None` when
//! the document is too short for it (fewer than two units, or fewer than two blocks).

use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::fmt;

/// A way of degrading an order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Degradation {
    /// `n` units moved to other positions (R1, R2).
    Shift(usize),
    /// Full shuffle (R).
    Shuffle,
    /// Blocks of `b` consecutive units shuffled (D_b).
    Blocks(usize),
}

impl Degradation {
    /// The degradations `segue eval` reports, in table order.
    pub const ALL: [Degradation; 7] = [
        Degradation::Shift(1),
        Degradation::Shift(2),
        Degradation::Shuffle,
        Degradation::Blocks(1),
        Degradation::Blocks(2),
        Degradation::Blocks(5),
        Degradation::Blocks(10),
    ];

    /// Parses `R1`, `R2`, `R`, `D1`, `D5`, … (case-insensitive).
    pub fn parse(s: &str) -> Option<Degradation> {
        let s = s.to_ascii_uppercase();
        if s == "R" {
            return Some(Degradation::Shuffle);
        }
        let (kind, n) = s.split_at(1);
        let n: usize = n.parse().ok().filter(|&n| n > 0)?;
        match kind {
            "R" => Some(Degradation::Shift(n)),
            "D" => Some(Degradation::Blocks(n)),
            _ => None,
        }
    }

    /// A degraded permutation of `0..n`, or `None` if `n` is too small.
    pub fn apply(self, n: usize, rng: &mut ChaCha8Rng) -> Option<Vec<usize>> {
        if n < 2 {
            return None;
        }
        let identity: Vec<usize> = (0..n).collect();
        // Retry a few times in the rare case a random draw gives back the identity.
        for _ in 0..32 {
            let order = match self {
                Degradation::Shift(k) => shift(n, k, rng),
                Degradation::Shuffle => {
                    let mut o = identity.clone();
                    o.shuffle(rng);
                    o
                }
                Degradation::Blocks(b) => {
                    if n.div_ceil(b) < 2 {
                        return None;
                    }
                    let mut blocks: Vec<Vec<usize>> =
                        identity.chunks(b).map(<[usize]>::to_vec).collect();
                    blocks.shuffle(rng);
                    blocks.concat()
                }
            };
            if order != identity {
                return Some(order);
            }
        }
        None
    }
}

fn shift(n: usize, k: usize, rng: &mut ChaCha8Rng) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    for _ in 0..k {
        let from = rng.gen_range(0..n);
        let mut to = rng.gen_range(0..n - 1);
        if to >= from {
            to += 1;
        }
        let unit = order.remove(from);
        order.insert(to, unit);
    }
    order
}

impl fmt::Display for Degradation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Degradation::Shift(n) => write!(f, "R{n}"),
            Degradation::Shuffle => write!(f, "R"),
            Degradation::Blocks(b) => write!(f, "D{b}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn is_perm(o: &[usize], n: usize) -> bool {
        let mut s = o.to_vec();
        s.sort_unstable();
        s == (0..n).collect::<Vec<_>>()
    }

    #[test]
    fn degradations_are_non_identity_permutations_and_deterministic() {
        for d in Degradation::ALL {
            for n in [2, 3, 7, 30] {
                let a = d.apply(n, &mut ChaCha8Rng::seed_from_u64(7));
                let b = d.apply(n, &mut ChaCha8Rng::seed_from_u64(7));
                assert_eq!(a, b);
                match a {
                    Some(o) => {
                        assert!(is_perm(&o, n), "{d} {o:?}");
                        assert_ne!(o, (0..n).collect::<Vec<_>>());
                    }
                    // Two shifts of two units always undo each other.
                    None => assert!(
                        matches!(d, Degradation::Blocks(b) if n.div_ceil(b) < 2)
                            || (d == Degradation::Shift(2) && n == 2),
                        "{d} on {n}"
                    ),
                }
            }
        }
        assert_eq!(
            Degradation::Shift(1).apply(1, &mut ChaCha8Rng::seed_from_u64(1)),
            None
        );
    }

    #[test]
    fn blocks_keep_runs_together() {
        let o = Degradation::Blocks(5)
            .apply(20, &mut ChaCha8Rng::seed_from_u64(3))
            .unwrap();
        for chunk in o.chunks(5) {
            assert!(chunk.windows(2).all(|w| w[1] == w[0] + 1), "{o:?}");
        }
    }

    #[test]
    fn names_round_trip() {
        for d in Degradation::ALL {
            assert_eq!(Degradation::parse(&d.to_string()), Some(d));
        }
        assert_eq!(Degradation::parse("x3"), None);
    }
}
