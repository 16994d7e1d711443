//! A bounded, process-wide memo of what is computed from one text (a prose block's sentence
//! bounds; a sentence's tokens, entity mentions and cues in the scorers).
//!
//! Segmentation and every built-in scorer read the same texts again and again: both levels read
//! the same sentences (a paragraph is its sentences), several scorers tokenize each sentence, and
//! the language server analyses the whole document again after every keystroke although one
//! sentence changed. A [`Memo`] keeps the result per text: the values are pure functions of the
//! text, so a memoized run gives exactly the results of an unmemoized one.
//!
//! The bound is generational: when the current generation holds [`Memo::new`]'s `capacity`
//! entries it becomes the old one (the previous old one is dropped), and a hit in the old
//! generation moves the entry back. At most twice the capacity is kept.

use ahash::AHashMap as HashMap;
use std::sync::Mutex;

/// A bounded map from a text to a value computed from it. Keys are whole texts, not
/// hashes, so two different sentences never share an entry.
pub(crate) struct Memo<V> {
    capacity: usize,
    generations: Mutex<Generations<V>>,
}

struct Generations<V> {
    current: HashMap<Box<str>, V>,
    old: HashMap<Box<str>, V>,
}

/// Overrides every memo's capacity (entries per generation): `SEGUE_MEMO`, read once.
const CAPACITY_VAR: &str = "SEGUE_MEMO";

/// The most entries per generation a memo made from now on gets, unless `SEGUE_MEMO` says
/// otherwise ([`cap_capacity`]).
static CAP: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(usize::MAX);

/// Caps the capacity of every memo made after the call (the memos are made on first use) at
/// `entries` per generation, unless `SEGUE_MEMO` is set. A front end that scores many unrelated
/// documents, each once (`segue score --jsonl`), gains little from a large memo: what one document
/// reads again is its own sentences.
pub(crate) fn cap_capacity(entries: usize) {
    CAP.store(entries.max(1), std::sync::atomic::Ordering::Relaxed);
}

/// The capacity a memo gets: `SEGUE_MEMO` when it is set to a number, else `default` (at most
/// the cap of [`cap_capacity`]).
fn capacity_or(default: usize) -> usize {
    static OVERRIDE: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    OVERRIDE
        .get_or_init(|| std::env::var(CAPACITY_VAR).ok()?.trim().parse().ok())
        .unwrap_or_else(|| default.min(CAP.load(std::sync::atomic::Ordering::Relaxed)))
}

impl<V: Clone> Memo<V> {
    /// An empty memo keeping at least `capacity` (and at most twice that many) entries;
    /// `SEGUE_MEMO` overrides `capacity` for every memo.
    pub(crate) fn new(capacity: usize) -> Self {
        Memo {
            capacity: capacity_or(capacity).max(1),
            generations: Mutex::new(Generations {
                current: HashMap::default(),
                old: HashMap::default(),
            }),
        }
    }

    /// The value for `key`, computed by `compute` (outside the lock) on a miss.
    pub(crate) fn get_or(&self, key: &str, compute: impl FnOnce(&str) -> V) -> V {
        if let Ok(mut g) = self.generations.lock() {
            if let Some(v) = g.current.get(key) {
                return v.clone();
            }
            if let Some((k, v)) = g.old.remove_entry(key) {
                let out = v.clone();
                self.insert(&mut g, k, v);
                return out;
            }
        }
        let value = compute(key);
        if let Ok(mut g) = self.generations.lock() {
            self.insert(&mut g, Box::from(key), value.clone());
        }
        value
    }

    fn insert(&self, g: &mut Generations<V>, key: Box<str>, value: V) {
        if g.current.len() >= self.capacity {
            g.old = std::mem::take(&mut g.current);
        }
        g.current.insert(key, value);
    }

    /// Number of entries held (both generations).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.generations
            .lock()
            .map_or(0, |g| g.current.len() + g.old.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn computes_once_per_text_and_stays_bounded() {
        let memo: Memo<usize> = Memo::new(2);
        let calls = Cell::new(0);
        let len = |s: &str| {
            calls.set(calls.get() + 1);
            s.len()
        };
        assert_eq!(memo.get_or("one", len), 3);
        assert_eq!(memo.get_or("one", len), 3);
        assert_eq!(calls.get(), 1);
        for s in ["two", "three", "four", "five", "six"] {
            memo.get_or(s, len);
        }
        assert!(memo.len() <= 4, "{}", memo.len());
        // Recent entries survive a generation change.
        let before = calls.get();
        memo.get_or("six", len);
        assert_eq!(calls.get(), before);
    }
}
