//! Stem numbering: every stem the tokenizer produces gets a stable integer id for the life of the
//! process, so the per-level counts the scorers read (unit frequencies, first occurrences, entity
//! flags) are kept in plain arrays indexed by id instead of maps keyed by strings.
//!
//! Ids are handed out in order of first sight and never reused; they say nothing about a
//! document (a level numbers its own stems in order of first occurrence, [`super::vocabulary`]),
//! so no score depends on them, only on which stems are equal.

use ahash::AHashMap as HashMap;
use std::sync::{Mutex, OnceLock};

/// The process-wide table of stems seen so far.
fn table() -> &'static Mutex<HashMap<Box<str>, u32>> {
    static TABLE: OnceLock<Mutex<HashMap<Box<str>, u32>>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(HashMap::default()))
}

/// The id of `stem`, numbering it on first sight.
pub(crate) fn id(stem: &str) -> u32 {
    let Ok(mut table) = table().lock() else {
        // A poisoned table only means another thread panicked mid-insert; the map is intact.
        return id_after_poison(stem);
    };
    if let Some(&id) = table.get(stem) {
        return id;
    }
    let id = u32::try_from(table.len()).unwrap_or(u32::MAX);
    table.insert(Box::from(stem), id);
    id
}

fn id_after_poison(stem: &str) -> u32 {
    let mut table = table()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let next = u32::try_from(table.len()).unwrap_or(u32::MAX);
    *table.entry(Box::from(stem)).or_insert(next)
}

/// How many stems have ids (every id is below this).
pub(crate) fn count() -> usize {
    table()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_stems_share_an_id_and_ids_stay_below_the_count() {
        let a = id("perf2-test-parser");
        let b = id("perf2-test-reader");
        assert_ne!(a, b);
        assert_eq!(id("perf2-test-parser"), a);
        assert!((a.max(b) as usize) < count());
    }
}
