//! The heads' outputs for the sets scored last, kept so that the scorers sharing one
//! [`super::OrderingModel`] (`ordering`, `ordering-head` and `tier1`'s terms) run the heads once
//! per set between them: `segue score` prepares every scorer over the same sets in turn, and
//! without this each set's pairs went through the heads three times.
//!
//! An entry is found only for the same level, the same unit texts and the same unit vectors (bit
//! for bit), so a hit gives exactly the scores a fresh run would. It keeps what the scores are
//! made from ([`Kept`]: the heads' logits and the units' cosines, 12 bytes a pair) rather than the
//! scores themselves (24).
//!
//! **Budget.** The scorers say, before scoring a level, how many bytes its sets will take
//! ([`ScoresMemo::plan`], the sum of [`entry_bytes`] over its sets or windows). The memo keeps up
//! to the larger of its base budget ([`MEMO_BYTES`] unless set otherwise) and the latest plans of
//! the two levels together, least recently used first out, so that every set of a document's
//! analysis is still there when the next scorer asks for it, however many windows its longest
//! section needs: the heads then run once per set, and the memo holds less than one scorer's own
//! tables of the same sets. A plan that shrinks (a smaller document next) frees the excess at once;
//! a set larger than the budget is not kept.

use super::objective::{cosines, HeadOutputs, OrderScores};
use crate::score::{Level, Unit};
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

/// The base budget: what is kept whatever the plans say (about twenty windows of 512 units).
pub const MEMO_BYTES: usize = 64 << 20;

/// What is kept of one set's run of the heads: enough to rebuild its [`OrderScores`] bit for bit
/// without the heads or the dot products.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    outputs: HeadOutputs,
    cosines: Vec<f32>,
}

impl Kept {
    /// What is kept of the heads' `outputs` for units with these `vectors`.
    pub fn new(outputs: HeadOutputs, vectors: &[Vec<f32>]) -> Kept {
        Kept {
            outputs,
            cosines: cosines(vectors),
        }
    }

    /// The set's scores, as [`OrderScores::new`] makes them from the outputs and the vectors.
    pub fn scores(&self) -> OrderScores {
        OrderScores::with_cosines(&self.outputs, &self.cosines)
    }
}

/// The bytes an entry for `units` with vectors of `dim` dimensions holds, roughly: the heads'
/// logits and the cosines (`3n² + 2n` floats), the vectors and the texts.
pub fn entry_bytes(units: &[Unit<'_>], dim: usize) -> usize {
    let n = units.len();
    let text_bytes: usize = units
        .iter()
        .flat_map(|u| u.iter())
        .map(|s| s.len() + 24)
        .sum();
    (3 * n * n + 2 * n) * 4 + n * dim * 4 + text_bytes
}

/// One set's kept outputs with what identifies the set.
struct Entry {
    level: Level,
    texts: Vec<Vec<String>>,
    vectors: Vec<Vec<u32>>,
    kept: Arc<Kept>,
    bytes: usize,
    /// When it was last used ([`State::tick`]): its key in [`State::order`].
    used: u64,
}

impl Entry {
    fn matches(&self, level: Level, units: &[Unit<'_>], vectors: &[Vec<f32>]) -> bool {
        self.level == level
            && self.texts.len() == units.len()
            && self.vectors.len() == vectors.len()
            && self
                .texts
                .iter()
                .zip(units)
                .all(|(kept, unit)| kept.iter().map(String::as_str).eq(unit.iter().copied()))
            && self
                .vectors
                .iter()
                .zip(vectors)
                .all(|(kept, v)| kept.iter().copied().eq(v.iter().map(|x| x.to_bits())))
    }
}

#[derive(Default)]
struct State {
    /// The entries by [`key`] (most sets are told apart by it alone).
    entries: HashMap<u64, Vec<Entry>>,
    /// The key of each entry by when it was last used, least recent first.
    order: BTreeMap<u64, u64>,
    tick: u64,
    bytes: usize,
    /// The latest plan of each level (sentence, paragraph).
    planned: [usize; 2],
}

impl State {
    fn next_tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }

    /// Drops the least recently used entries until at most `budget` bytes are kept.
    fn shrink_to(&mut self, budget: usize) {
        while self.bytes > budget {
            let Some((used, key)) = self.order.pop_first() else {
                break;
            };
            let Some(bucket) = self.entries.get_mut(&key) else {
                continue;
            };
            if let Some(at) = bucket.iter().position(|e| e.used == used) {
                let old = bucket.swap_remove(at);
                self.bytes -= old.bytes;
            }
            if bucket.is_empty() {
                self.entries.remove(&key);
            }
        }
    }
}

/// The memo (see the module documentation).
pub struct ScoresMemo {
    state: Mutex<State>,
    base: usize,
}

impl Default for ScoresMemo {
    fn default() -> Self {
        ScoresMemo::new(MEMO_BYTES)
    }
}

impl std::fmt::Debug for ScoresMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScoresMemo")
            .field("entries", &self.len())
            .field("base", &self.base)
            .finish()
    }
}

impl ScoresMemo {
    /// An empty memo that keeps `base` bytes whatever the plans say.
    pub fn new(base: usize) -> Self {
        ScoresMemo {
            state: Mutex::new(State::default()),
            base,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn budget_of(&self, state: &State) -> usize {
        self.base
            .max(state.planned[0].saturating_add(state.planned[1]))
    }

    /// The bytes kept at most now: the base budget or the latest plans of both levels together,
    /// whichever is larger.
    pub fn budget(&self) -> usize {
        self.budget_of(&self.lock())
    }

    /// The bytes kept now.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    /// Says that the sets of a level about to be scored take `bytes` ([`entry_bytes`] summed over
    /// them); entries beyond the new budget go at once.
    pub fn plan(&self, level: Level, bytes: usize) {
        let mut state = self.lock();
        state.planned[slot(level)] = bytes;
        let budget = self.budget_of(&state);
        state.shrink_to(budget);
    }

    /// What is kept of `units` at `level` with these `vectors`, if any (the entry becomes the
    /// most recently used).
    pub fn get(&self, level: Level, units: &[Unit<'_>], vectors: &[Vec<f32>]) -> Option<Arc<Kept>> {
        let key = key(level, units);
        let mut state = self.lock();
        let tick = state.next_tick();
        let entry = state
            .entries
            .get_mut(&key)?
            .iter_mut()
            .find(|e| e.matches(level, units, vectors))?;
        let (kept, used) = (entry.kept.clone(), entry.used);
        entry.used = tick;
        state.order.remove(&used);
        state.order.insert(tick, key);
        Some(kept)
    }

    /// Keeps `kept` for `units` at `level`, dropping the least recently used entries beyond the
    /// budget.
    pub fn put(&self, level: Level, units: &[Unit<'_>], vectors: &[Vec<f32>], kept: Arc<Kept>) {
        let dim = vectors.first().map_or(0, Vec::len);
        let bytes = entry_bytes(units, dim);
        let mut state = self.lock();
        let budget = self.budget_of(&state);
        if bytes > budget {
            return;
        }
        state.shrink_to(budget - bytes);
        let key = key(level, units);
        let used = state.next_tick();
        state.order.insert(used, key);
        state.bytes += bytes;
        state.entries.entry(key).or_default().push(Entry {
            level,
            texts: units
                .iter()
                .map(|u| u.iter().map(|s| s.to_string()).collect())
                .collect(),
            vectors: vectors
                .iter()
                .map(|v| v.iter().map(|x| x.to_bits()).collect())
                .collect(),
            kept,
            bytes,
            used,
        });
    }

    /// The number of sets kept.
    pub fn len(&self) -> usize {
        self.lock().order.len()
    }

    /// Whether no set is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn slot(level: Level) -> usize {
    match level {
        Level::Sentence => 0,
        Level::Paragraph => 1,
    }
}

/// A hash of the level and the unit texts, so that a lookup among many small sets (a document's
/// paragraphs, each scored as a set) compares one number per entry.
fn key(level: Level, units: &[Unit<'_>]) -> u64 {
    let mut h = DefaultHasher::new();
    level.hash(&mut h);
    units.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(n: usize) -> Arc<Kept> {
        Arc::new(Kept {
            outputs: HeadOutputs {
                n,
                precedence: vec![0.5; n * n],
                successor: vec![0.0; n * n],
                opening: vec![0.0; n],
                closing: vec![0.0; n],
            },
            cosines: vec![0.0; n * n],
        })
    }

    #[test]
    fn a_hit_needs_the_same_level_texts_and_vectors() {
        let memo = ScoresMemo::default();
        let units: Vec<Unit<'_>> = vec![vec!["One."], vec!["Two.", "Three."]];
        let vectors = vec![vec![0.5f32, 0.25], vec![1.0, 0.0]];
        memo.put(Level::Paragraph, &units, &vectors, kept(2));
        assert!(memo.get(Level::Paragraph, &units, &vectors).is_some());
        assert!(memo.get(Level::Sentence, &units, &vectors).is_none());
        let other: Vec<Unit<'_>> = vec![vec!["One."], vec!["Two.", "Four."]];
        assert!(memo.get(Level::Paragraph, &other, &vectors).is_none());
        let nudged = vec![vec![0.5f32, 0.25], vec![1.0, -0.0]];
        assert!(memo.get(Level::Paragraph, &units, &nudged).is_none());
        let fewer: Vec<Unit<'_>> = vec![vec!["One."]];
        assert!(memo.get(Level::Paragraph, &fewer, &vectors[..1]).is_none());
    }

    #[test]
    fn kept_outputs_give_the_scores_of_a_fresh_run() {
        let n = 4;
        let outputs = HeadOutputs {
            n,
            precedence: (0..n * n).map(|k| k as f32 * 0.3 - 2.0).collect(),
            successor: (0..n * n).map(|k| (k % 5) as f32 - 1.5).collect(),
            opening: vec![0.1, -0.4, 2.0, 0.0],
            closing: vec![1.0, 0.5, -1.0, 0.25],
        };
        let vectors: Vec<Vec<f32>> = vec![
            vec![0.6, 0.8, 0.0],
            vec![0.0, 0.6, 0.8],
            vec![-1.0, 0.0, 0.0],
            vec![f32::NAN, 0.0, 1.0],
        ];
        let fresh = OrderScores::new(&outputs, &vectors);
        assert_eq!(Kept::new(outputs, &vectors).scores(), fresh);
        assert!(fresh.coherence.iter().all(|c| (0.0..=1.0).contains(c)));
    }

    /// A set of `n` units named after `name`, and their vectors.
    fn set(name: &str, n: usize) -> (Vec<String>, Vec<Vec<f32>>) {
        (
            (0..n).map(|i| format!("{name} {i}.")).collect(),
            vec![vec![0f32; 2]; n],
        )
    }

    fn units(texts: &[String]) -> Vec<Unit<'_>> {
        texts.iter().map(|t| vec![t.as_str()]).collect()
    }

    #[test]
    fn the_least_recently_used_set_goes_first_and_the_budget_holds() {
        let n = 100;
        let (a, va) = set("a", n);
        let (b, vb) = set("b", n);
        let (c, vc) = set("c", n);
        let one = entry_bytes(&units(&a), 2);
        // Room for two sets, not three.
        let memo = ScoresMemo::new(2 * one + one / 2);
        memo.put(Level::Sentence, &units(&a), &va, kept(n));
        memo.put(Level::Sentence, &units(&b), &vb, kept(n));
        // Using the first makes the second the least recently used.
        assert!(memo.get(Level::Sentence, &units(&a), &va).is_some());
        memo.put(Level::Sentence, &units(&c), &vc, kept(n));
        assert_eq!(memo.len(), 2);
        assert_eq!(memo.bytes(), 2 * one);
        assert!(memo.get(Level::Sentence, &units(&a), &va).is_some());
        assert!(memo.get(Level::Sentence, &units(&b), &vb).is_none());
        assert!(memo.get(Level::Sentence, &units(&c), &vc).is_some());
        // A set larger than the whole budget is not kept.
        let (huge, vh) = set("huge", 3 * n);
        memo.put(Level::Sentence, &units(&huge), &vh, kept(3 * n));
        assert!(memo.get(Level::Sentence, &units(&huge), &vh).is_none());
        assert_eq!(memo.len(), 2);
    }

    /// Three scorers in turn over a level of `sets` sets, as `segue score` runs them: the
    /// heads' runs, counted.
    fn runs_of_three_scorers(memo: &ScoresMemo, sets: usize, plan: bool) -> usize {
        let n = 50;
        let named: Vec<(Vec<String>, Vec<Vec<f32>>)> =
            (0..sets).map(|k| set(&format!("set {k}"), n)).collect();
        let mut runs = 0;
        for _scorer in 0..3 {
            if plan {
                let bytes = named.iter().map(|(t, _)| entry_bytes(&units(t), 2)).sum();
                memo.plan(Level::Paragraph, bytes);
            }
            for (texts, vectors) in &named {
                if memo.get(Level::Paragraph, &units(texts), vectors).is_none() {
                    runs += 1;
                    memo.put(Level::Paragraph, &units(texts), vectors, kept(n));
                }
            }
        }
        runs
    }

    #[test]
    fn a_planned_level_is_kept_whole_for_the_next_scorer() {
        let one = entry_bytes(&units(&set("set 0", 50).0), 2);
        // A base budget of four sets; a level of ten.
        let memo = ScoresMemo::new(4 * one);
        assert_eq!(
            runs_of_three_scorers(&memo, 10, false),
            30,
            "unplanned: cycled out"
        );
        let memo = ScoresMemo::new(4 * one);
        assert_eq!(runs_of_three_scorers(&memo, 10, true), 10);
        assert!(memo.budget() >= 10 * one && memo.len() == 10);
        // A smaller plan next frees the excess at once.
        memo.plan(Level::Paragraph, one);
        assert_eq!(memo.budget(), 4 * one);
        assert!(memo.bytes() <= 4 * one && memo.len() == 4);
        // The two levels' plans add up.
        memo.plan(Level::Sentence, 3 * one);
        memo.plan(Level::Paragraph, 3 * one);
        assert_eq!(memo.budget(), 6 * one);
    }
}
