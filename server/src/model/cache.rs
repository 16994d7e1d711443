//! A bounded, concurrent cache of sentence embeddings.
//!
//! Keys are a hash of the model id and the sentence text with whitespace normalised, so an edit
//! re-embeds only the sentences it changed. The text is kept beside the vector and compared on a
//! hit, so a hash collision is a miss, never a wrong vector. When the cache grows past its
//! capacity, the least recently used tenth is evicted (an approximate LRU: each entry carries the
//! tick of its last use). Hits, misses and evictions are counted.

use dashmap::DashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Default capacity: 16,384 sentences (about 25 MiB of 384-dimensional vectors).
pub const DEFAULT_CAPACITY: usize = 16_384;

/// One embedding, shared.
pub type Vector = Arc<[f32]>;

struct Entry {
    text: Box<str>,
    vector: Vector,
    last_used: AtomicU64,
}

/// Counters of a cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct CacheStats {
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that needed the model.
    pub misses: u64,
    /// Entries dropped to stay within capacity.
    pub evictions: u64,
    /// Entries held now.
    pub len: usize,
    /// Most entries held.
    pub capacity: usize,
}

impl CacheStats {
    /// Hits over lookups, 0 when there were none.
    pub fn hit_rate(&self) -> f64 {
        let total = self.hits + self.misses;
        if total == 0 {
            0.0
        } else {
            self.hits as f64 / total as f64
        }
    }
}

/// The embedding cache of one model.
pub struct EmbeddingCache {
    model_id: &'static str,
    map: DashMap<u64, Entry>,
    capacity: usize,
    tick: AtomicU64,
    hits: AtomicU64,
    misses: AtomicU64,
    evictions: AtomicU64,
}

impl std::fmt::Debug for EmbeddingCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddingCache")
            .field("model_id", &self.model_id)
            .field("stats", &self.stats())
            .finish()
    }
}

/// The text a cache key is made from: trimmed, with every run of whitespace one space.
pub fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl EmbeddingCache {
    /// An empty cache for `model_id` holding at most `capacity` vectors (0 disables caching).
    pub fn new(model_id: &'static str, capacity: usize) -> Self {
        EmbeddingCache {
            model_id,
            map: DashMap::new(),
            capacity,
            tick: AtomicU64::new(0),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            evictions: AtomicU64::new(0),
        }
    }

    /// The key of a normalised text.
    pub fn key(&self, normalised: &str) -> u64 {
        // DefaultHasher::new() has fixed keys: stable within and across runs of one build.
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.model_id.hash(&mut h);
        normalised.hash(&mut h);
        h.finish()
    }

    /// The cached vector of a normalised text, counting a hit or a miss.
    pub fn get(&self, normalised: &str) -> Option<Vector> {
        let found = self.map.get(&self.key(normalised)).and_then(|e| {
            (&*e.text == normalised).then(|| {
                e.last_used
                    .store(self.tick.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
                e.vector.clone()
            })
        });
        match found {
            Some(_) => self.hits.fetch_add(1, Ordering::Relaxed),
            None => self.misses.fetch_add(1, Ordering::Relaxed),
        };
        found
    }

    /// Stores the vector of a normalised text, evicting old entries when full.
    pub fn insert(&self, normalised: &str, vector: Vector) {
        if self.capacity == 0 {
            return;
        }
        if self.map.len() >= self.capacity {
            self.evict();
        }
        let entry = Entry {
            text: normalised.into(),
            vector,
            last_used: AtomicU64::new(self.tick.fetch_add(1, Ordering::Relaxed)),
        };
        self.map.insert(self.key(normalised), entry);
    }

    /// Drops the least recently used tenth (at least one entry).
    fn evict(&self) {
        let mut ticks: Vec<(u64, u64)> = self
            .map
            .iter()
            .map(|e| (e.value().last_used.load(Ordering::Relaxed), *e.key()))
            .collect();
        let n = (self.capacity / 10).max(1).min(ticks.len());
        if n == 0 {
            return;
        }
        ticks.select_nth_unstable(n - 1);
        for &(_, key) in &ticks[..n] {
            if self.map.remove(&key).is_some() {
                self.evictions.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Empties the cache (counters are kept).
    pub fn clear(&self) {
        self.map.clear();
    }

    /// The counters now.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            evictions: self.evictions.load(Ordering::Relaxed),
            len: self.map.len(),
            capacity: self.capacity,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32) -> Vector {
        Arc::from(vec![x, 0.0])
    }

    #[test]
    fn counts_hits_and_misses_and_normalises_whitespace() {
        let c = EmbeddingCache::new("m", 10);
        let k = normalise("  A  cat\tsat. ");
        assert_eq!(k, "A cat sat.");
        assert!(c.get(&k).is_none());
        c.insert(&k, v(1.0));
        assert_eq!(c.get(&normalise("A cat   sat.")).unwrap()[0], 1.0);
        let s = c.stats();
        assert_eq!((s.hits, s.misses, s.len), (1, 1, 1));
        assert!((s.hit_rate() - 0.5).abs() < 1e-12);
    }

    #[test]
    fn evicts_the_least_recently_used_when_full() {
        let c = EmbeddingCache::new("m", 10);
        for i in 0..10 {
            c.insert(&format!("s{i}"), v(i as f32));
        }
        // Touch s0 so that s1 is the oldest.
        assert!(c.get("s0").is_some());
        c.insert("new", v(99.0));
        let s = c.stats();
        assert_eq!(s.evictions, 1);
        assert_eq!(s.len, 10);
        assert!(c.get("s0").is_some());
        assert!(c.get("s1").is_none());
        assert!(c.get("new").is_some());
    }

    #[test]
    fn keys_differ_by_model() {
        let a = EmbeddingCache::new("a", 10);
        let b = EmbeddingCache::new("b", 10);
        assert_ne!(a.key("x"), b.key("x"));
    }

    #[test]
    fn zero_capacity_caches_nothing() {
        let c = EmbeddingCache::new("m", 0);
        c.insert("x", v(1.0));
        assert!(c.get("x").is_none());
    }
}
