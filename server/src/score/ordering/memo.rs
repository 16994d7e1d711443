//! The heads' scores of the sets scored last, kept so that the scorers sharing one
//! [`super::OrderingModel`] (`ordering`, `ordering-head` and `tier1`'s terms) run the heads once
//! per set between them: `segue score` prepares every scorer over the same sets in turn, and
//! without this each set's pairs went through the heads three times.
//!
//! An entry is found only for the same level, the same unit texts and the same unit vectors (bit
//! for bit), so a hit gives exactly the scores a fresh run would. Entries are kept up to
//! [`MEMO_BYTES`] in all, least recently used first out; a set larger than that is not kept.

use super::objective::OrderScores;
use crate::score::{Level, Unit};
use std::collections::hash_map::DefaultHasher;
use std::collections::VecDeque;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

/// The most bytes of scores kept: six windows of 512 units (a 1,500-sentence document's sentence
/// windows and its paragraphs).
pub const MEMO_BYTES: usize = 64 << 20;

/// One set's scores with what identifies the set.
struct Entry {
    /// [`key`] of the level and texts: most sets are told apart by it alone.
    key: u64,
    level: Level,
    texts: Vec<Vec<String>>,
    vectors: Vec<Vec<u32>>,
    scores: Arc<OrderScores>,
    bytes: usize,
}

impl Entry {
    fn matches(&self, key: u64, level: Level, units: &[Unit<'_>], vectors: &[Vec<f32>]) -> bool {
        self.key == key
            && self.level == level
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

/// The memo (see the module documentation).
#[derive(Default)]
pub struct ScoresMemo {
    entries: Mutex<VecDeque<Entry>>,
}

impl std::fmt::Debug for ScoresMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScoresMemo")
            .field("entries", &self.lock().len())
            .finish()
    }
}

impl ScoresMemo {
    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Entry>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The kept scores of `units` at `level` with these `vectors`, if any (the entry becomes the
    /// most recently used).
    pub fn get(
        &self,
        level: Level,
        units: &[Unit<'_>],
        vectors: &[Vec<f32>],
    ) -> Option<Arc<OrderScores>> {
        let key = key(level, units);
        let mut entries = self.lock();
        let at = entries
            .iter()
            .position(|e| e.matches(key, level, units, vectors))?;
        let entry = entries.remove(at)?;
        let scores = entry.scores.clone();
        entries.push_back(entry);
        Some(scores)
    }

    /// Keeps `scores` of `units` at `level`, dropping the least recently used entries beyond
    /// [`MEMO_BYTES`].
    pub fn put(
        &self,
        level: Level,
        units: &[Unit<'_>],
        vectors: &[Vec<f32>],
        scores: Arc<OrderScores>,
    ) {
        let bytes = size_of(&scores, units, vectors);
        if bytes > MEMO_BYTES {
            return;
        }
        let mut entries = self.lock();
        let mut total: usize = entries.iter().map(|e| e.bytes).sum::<usize>() + bytes;
        while total > MEMO_BYTES {
            match entries.pop_front() {
                Some(old) => total -= old.bytes,
                None => break,
            }
        }
        entries.push_back(Entry {
            key: key(level, units),
            level,
            texts: units
                .iter()
                .map(|u| u.iter().map(|s| s.to_string()).collect())
                .collect(),
            vectors: vectors
                .iter()
                .map(|v| v.iter().map(|x| x.to_bits()).collect())
                .collect(),
            scores,
            bytes,
        });
    }

    /// The number of sets kept.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no set is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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

/// The bytes an entry holds, roughly: its matrices, vectors and texts.
fn size_of(scores: &OrderScores, units: &[Unit<'_>], vectors: &[Vec<f32>]) -> usize {
    let matrices = scores.precedence.len()
        + scores.successor.len()
        + scores.coherence.len()
        + scores.opening.len()
        + scores.closing.len()
        + scores.reader.len()
        + scores.reader_next.len();
    let vector_bytes: usize = vectors.iter().map(|v| v.len() * 4).sum();
    let text_bytes: usize = units
        .iter()
        .flat_map(|u| u.iter())
        .map(|s| s.len() + 24)
        .sum();
    matrices * 8 + vector_bytes + text_bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scores(n: usize) -> Arc<OrderScores> {
        Arc::new(OrderScores {
            n,
            precedence: vec![0.5; n * n],
            successor: vec![0.0; n * n],
            coherence: vec![0.0; n * n],
            opening: vec![0.0; n],
            closing: vec![0.0; n],
            reader: Vec::new(),
            reader_next: Vec::new(),
        })
    }

    #[test]
    fn a_hit_needs_the_same_level_texts_and_vectors() {
        let memo = ScoresMemo::default();
        let units: Vec<Unit<'_>> = vec![vec!["One."], vec!["Two.", "Three."]];
        let vectors = vec![vec![0.5f32, 0.25], vec![1.0, 0.0]];
        memo.put(Level::Paragraph, &units, &vectors, scores(2));
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
    fn the_least_recently_used_set_goes_first_and_the_budget_holds() {
        let memo = ScoresMemo::default();
        // Each set of 1,000 units holds 3 · 10⁶ f64s (24 MB): two fit in the budget, not three.
        let n = 1000;
        let texts: Vec<String> = (0..3).map(|k| format!("Set {k}.")).collect();
        let sets: Vec<Vec<Unit<'_>>> = texts.iter().map(|t| vec![vec![t.as_str()]; n]).collect();
        let vectors = vec![vec![0f32; 2]; n];
        memo.put(Level::Sentence, &sets[0], &vectors, scores(n));
        memo.put(Level::Sentence, &sets[1], &vectors, scores(n));
        // Using the first makes the second the least recently used.
        assert!(memo.get(Level::Sentence, &sets[0], &vectors).is_some());
        memo.put(Level::Sentence, &sets[2], &vectors, scores(n));
        assert_eq!(memo.len(), 2);
        assert!(memo.get(Level::Sentence, &sets[0], &vectors).is_some());
        assert!(memo.get(Level::Sentence, &sets[1], &vectors).is_none());
        assert!(memo.get(Level::Sentence, &sets[2], &vectors).is_some());
        // A set larger than the whole budget is not kept.
        let huge = vec![vec!["Huge."]; 2000];
        memo.put(
            Level::Sentence,
            &huge,
            &vec![vec![0f32; 2]; 2000],
            scores(2000),
        );
        assert!(memo
            .get(Level::Sentence, &huge, &vec![vec![0f32; 2]; 2000])
            .is_none());
        assert_eq!(memo.len(), 2);
    }
}
