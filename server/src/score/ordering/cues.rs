//! The cue features of units and pairs of units, defined by the metadata's spec and computed the
//! same way as the Python trainer (`models/train/ordering/cues.py`; `server/tests/ordering.rs`
//! checks a fixture it writes), and a unit's vector from its sentences' vectors.

use super::meta::{CueFeature, CueSpec, PairSpec};
use crate::score::Unit;
use std::collections::HashMap;

/// ASCII whitespace as the Python side splits on (space, tab, LF, CR, FF, VT).
fn is_ascii_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c' | '\x0b')
}

/// The sentence's tokens as the cue features see them: split on ASCII whitespace, ASCII letters
/// lower-cased, characters other than ASCII letters and digits stripped from both ends, cut at the
/// first apostrophe (`'` or `’`), empty tokens dropped.
pub fn tokens(sentence: &str) -> Vec<String> {
    let keep = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    sentence
        .split(is_ascii_ws)
        .filter_map(|w| {
            let lower = w.to_ascii_lowercase();
            let t = lower.trim_matches(|c: char| !keep(c));
            let t = t.split(['\'', '\u{2019}']).next().unwrap_or("");
            (!t.is_empty()).then(|| t.to_string())
        })
        .collect()
}

fn trim_ascii_ws(s: &str) -> &str {
    s.trim_matches(is_ascii_ws)
}

/// The cue vector of a unit given as its sentences (a sentence-level unit has one).
pub fn unit_cues(spec: &CueSpec, sentences: &[&str]) -> Vec<f32> {
    let (Some(first), Some(last)) = (sentences.first(), sentences.last()) else {
        return vec![0.0; spec.features.len()];
    };
    let head = tokens(first);
    let n_tokens: usize = sentences.iter().map(|s| tokens(s).len()).sum();
    let (first_text, last_text) = (trim_ascii_ws(first), trim_ascii_ws(last));
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    spec.features
        .iter()
        .map(|f| {
            let v: f64 = match f {
                CueFeature::StartsWith { phrases, .. } => flag(phrases.iter().any(|p| {
                    let words: Vec<&str> = p.split(' ').collect();
                    head.len() >= words.len() && head.iter().zip(&words).all(|(t, w)| t == w)
                })),
                CueFeature::Within {
                    skip,
                    window,
                    words,
                    ..
                } => {
                    let end = (*window).min(head.len());
                    let slice = head.get(*skip..end).unwrap_or(&[]);
                    flag(slice.iter().any(|t| words.iter().any(|w| w == t)))
                }
                CueFeature::EndsWith { chars, .. } => {
                    flag(chars.iter().any(|c| last_text.ends_with(c.as_str())))
                }
                CueFeature::BeginsWith { chars, .. } => {
                    flag(chars.iter().any(|c| first_text.starts_with(c.as_str())))
                }
                CueFeature::LogWords { scale, .. } => scale * (n_tokens as f64).ln_1p(),
                CueFeature::LogSents { scale, .. } => scale * (sentences.len() as f64).ln_1p(),
            };
            v as f32
        })
        .collect()
}

/// What the pair cues need of one unit: its content tokens as ids ([`Interner`]), each set
/// sorted without repeats so that a pair's counts are merges of two short lists.
#[derive(Debug, Clone, Default)]
struct Profile {
    all: Vec<u32>,
    /// The first [`PairSpec::head`] content tokens of the first sentence, in order (repeats kept).
    head: Vec<u32>,
    first: Vec<u32>,
    last: Vec<u32>,
    indef: Vec<u32>,
    def: Vec<u32>,
}

/// Numbers the distinct content tokens of one set of units, so that comparing two units compares
/// integers rather than hashing strings for each of the set's `n²` pairs.
#[derive(Default)]
struct Interner {
    ids: HashMap<String, u32>,
}

impl Interner {
    fn id(&mut self, token: String) -> u32 {
        let next = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
        *self.ids.entry(token).or_insert(next)
    }

    /// The ids of `tokens`, in order.
    fn ids(&mut self, tokens: Vec<String>) -> Vec<u32> {
        tokens.into_iter().map(|t| self.id(t)).collect()
    }

    /// The ids of `tokens` as a set: sorted, without repeats.
    fn set(&mut self, tokens: impl IntoIterator<Item = String>) -> Vec<u32> {
        let mut ids: Vec<u32> = tokens.into_iter().map(|t| self.id(t)).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}

fn content(spec: &PairSpec, toks: &[String]) -> Vec<String> {
    toks.iter()
        .filter(|t| t.chars().count() >= spec.min_len && !spec.stop_words.iter().any(|s| s == *t))
        .map(|t| match t.strip_suffix('s') {
            Some(stem) if t.chars().count() > 3 => stem.to_string(),
            _ => t.clone(),
        })
        .collect()
}

fn after(spec: &PairSpec, toks: &[String], dets: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        if dets.iter().any(|d| d == t) {
            let end = (k + 3).min(toks.len());
            out.extend(content(spec, &toks[k + 1..end]));
        }
    }
    out
}

fn profile(spec: &PairSpec, sentences: &[&str], interner: &mut Interner) -> Profile {
    let toks: Vec<Vec<String>> = if sentences.is_empty() {
        vec![Vec::new()]
    } else {
        sentences.iter().map(|s| tokens(s)).collect()
    };
    let every: Vec<String> = toks.iter().flatten().cloned().collect();
    let first = content(spec, toks.first().map_or(&[][..], Vec::as_slice));
    let last = content(spec, toks.last().map_or(&[][..], Vec::as_slice));
    Profile {
        all: interner.set(content(spec, &every)),
        head: interner.ids(first.iter().take(spec.head).cloned().collect()),
        first: interner.set(first),
        last: interner.set(last),
        indef: interner.set(after(spec, &every, &spec.indefinite)),
        def: interner.set(after(spec, &every, &spec.definite)),
    }
}

/// How many ids two sorted lists without repeats share.
fn shared(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut count) = (0, 0, 0);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        match x.cmp(y) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                count += 1;
                i += 1;
                j += 1;
            }
        }
    }
    count
}

fn pair(a: &Profile, b: &Profile) -> [f32; 4] {
    let head_given = if b.head.is_empty() {
        0.0
    } else {
        b.head
            .iter()
            .filter(|t| a.all.binary_search(t).is_ok())
            .count() as f64
            / b.head.len() as f64
    };
    let common = shared(&a.all, &b.all);
    let union = a.all.len() + b.all.len() - common;
    let jaccard = if union == 0 {
        0.0
    } else {
        common as f64 / union as f64
    };
    let m = a.last.len().min(b.first.len());
    let boundary = if m == 0 {
        0.0
    } else {
        shared(&a.last, &b.first) as f64 / m as f64
    };
    let introduced = if shared(&a.indef, &b.def) > 0 {
        1.0
    } else {
        0.0
    };
    [
        head_given as f32,
        jaccard as f32,
        boundary as f32,
        introduced,
    ]
}

/// The `[n, n, 4]` directed pair cues of a set of units, row-major (`(i·n + j)·4 + k`: unit `i`
/// before unit `j`); the diagonal is zero. Each unit's tokens are read once; a pair compares
/// the two units' sorted token ids.
pub fn pair_cues(spec: &PairSpec, units: &[Unit<'_>]) -> Vec<f32> {
    let mut interner = Interner::default();
    let profiles: Vec<Profile> = units
        .iter()
        .map(|u| profile(spec, u, &mut interner))
        .collect();
    let n = units.len();
    let mut out = vec![0f32; n * n * 4];
    for (i, a) in profiles.iter().enumerate() {
        for (j, b) in profiles.iter().enumerate() {
            if i != j {
                out[(i * n + j) * 4..(i * n + j + 1) * 4].copy_from_slice(&pair(a, b));
            }
        }
    }
    out
}

/// A unit's vector: the mean of its sentences' vectors, renormalised to unit length (a sentence's
/// own vector, renormalised). All zeros for an empty unit.
pub fn unit_vector<V: AsRef<[f32]>>(sentence_vectors: &[V], dim: usize) -> Vec<f32> {
    let mut mean = vec![0f32; dim];
    for v in sentence_vectors {
        for (m, x) in mean.iter_mut().zip(v.as_ref()) {
            *m += x;
        }
    }
    let norm = mean.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for m in &mut mean {
            *m /= norm;
        }
    }
    mean
}

// ---- the heads ---------------------------------------------------------------------------------
