//! One level's vocabulary: its units' tokens, each stem numbered in order of first occurrence in
//! the level, and what the level says about each stem (how many units use it, whether and when it
//! is first a nominal mention, whether it is ever a name).
//!
//! `tier0`'s fingerprints ([`super::contexts`]), novelty ([`super::novelty`]), the idf vectors of
//! `tier0` and the entity grid all read these counts. [`Vocabulary::of`] computes them once per
//! level and keeps the last few with the text of the level's sentences, so the passes of one
//! analysis share one count (found again by comparing texts, without hashing or looking up a
//! single sentence), and counting goes through arrays indexed by stem id ([`super::stems`])
//! rather than maps keyed by strings. A level counted afresh takes the tokens of the sentences it
//! shares with a kept level (the longest run of equal sentences at its start and at its end: after
//! an edit, every sentence but the edited ones; the other level of the same text, all of them)
//! from that level, and tokenizes ([`tokens`]) only the rest. The tables built from a level
//! read each unit's text back from it ([`Vocabulary::unit_text`]), so they can be built lazily,
//! one unit at a time.

use super::tokens::{tokens, Token, WordClass};
use super::Unit;
use std::sync::{Arc, Mutex, OnceLock};

/// What the level says about one stem.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stem {
    /// The stem's process-wide id ([`super::stems`]).
    pub(crate) id: u32,
    /// Units that use it.
    pub(crate) units: u32,
    /// Rank of its first nominal mention among the level's entities, if it has one (it is then
    /// an entity).
    pub(crate) nominal: Option<u32>,
    /// Whether some mention is a name or an acronym.
    pub(crate) name: bool,
    /// Where its first nominal mention is: (sentence of the level, token of the sentence).
    first_nominal: Option<(u32, u32)>,
}

/// The vocabulary of a level (see the module documentation). Stems are numbered `0..` in order
/// of first occurrence ("local ids").
#[derive(Debug, Default)]
pub(crate) struct Vocabulary {
    /// Each sentence's tokens, in level order.
    sentences: Vec<Arc<[Token]>>,
    /// The text of every sentence, in level order, one after the other.
    text: String,
    /// Per sentence: the start of its text in `text` (one more entry, the end).
    text_start: Vec<u32>,
    /// Per unit: the range of its sentences in `sentences`.
    unit_sentences: Vec<(u32, u32)>,
    /// The local id of every token, in level order.
    ids: Vec<u32>,
    /// Per sentence: the start of its tokens in `ids` (one more entry, the end).
    sentence_ids: Vec<u32>,
    /// Per unit: its distinct local ids, ascending (`distinct_start` delimits them).
    distinct: Vec<u32>,
    distinct_start: Vec<u32>,
    /// Per local id.
    stems: Vec<Stem>,
    /// Per entity rank: its local id.
    entities: Vec<u32>,
}

/// Vocabularies kept for reuse: both levels of a document or two.
const KEPT: usize = 4;

impl Vocabulary {
    /// The vocabulary of `units`, reused when the last few levels counted include one of the
    /// same units and sentences.
    pub(crate) fn of(units: &[Unit<'_>]) -> Arc<Vocabulary> {
        static KEPT_VOCABULARIES: OnceLock<Mutex<Vec<Arc<Vocabulary>>>> = OnceLock::new();
        let kept = KEPT_VOCABULARIES.get_or_init(|| Mutex::new(Vec::new()));
        let recent: Vec<Arc<Vocabulary>> = match kept.lock() {
            Ok(mut kept) => {
                // The most recent first: the level counted last is the one asked for again.
                if let Some(k) = kept.iter().rposition(|v| v.same_level(units)) {
                    let v = kept.remove(k);
                    kept.push(v.clone());
                    return v;
                }
                kept.clone()
            }
            Err(_) => Vec::new(),
        };
        let sentences = shared_tokens(units, &recent);
        let v = Arc::new(Vocabulary::count(units, sentences));
        if let Ok(mut kept) = kept.lock() {
            if kept.len() >= KEPT {
                kept.remove(0);
            }
            kept.push(v.clone());
        }
        v
    }

    /// Whether this vocabulary was counted from these units: the same number of units, of the
    /// same numbers of sentences, with the same texts.
    fn same_level(&self, units: &[Unit<'_>]) -> bool {
        self.unit_sentences.len() == units.len()
            && self.sentences.len() == units.iter().map(Vec::len).sum::<usize>()
            && self.text.len() == units.iter().flatten().map(|s| s.len()).sum::<usize>()
            && self
                .unit_sentences
                .iter()
                .zip(units)
                .all(|(&(a, b), u)| (b - a) as usize == u.len())
            && units
                .iter()
                .flatten()
                .enumerate()
                .all(|(k, s)| self.sentence_text(k) == Some(*s))
    }

    /// The text of sentence `k` of the level.
    fn sentence_text(&self, k: usize) -> Option<&str> {
        let (&a, &b) = (self.text_start.get(k)?, self.text_start.get(k + 1)?);
        self.text.get(a as usize..b as usize)
    }

    /// The sentences of unit `u`, as the level's units were given.
    pub(crate) fn unit_text(&self, u: usize) -> Unit<'_> {
        let (a, b) = self.unit_sentences.get(u).copied().unwrap_or((0, 0));
        (a..b)
            .filter_map(|k| self.sentence_text(k as usize))
            .collect()
    }

    fn count(units: &[Unit<'_>], sentences: Vec<Arc<[Token]>>) -> Vocabulary {
        let mut v = Vocabulary {
            unit_sentences: Vec::with_capacity(units.len()),
            sentence_ids: Vec::with_capacity(sentences.len() + 1),
            distinct_start: Vec::with_capacity(units.len() + 1),
            ..Vocabulary::default()
        };
        // Process-wide id → local id (u32::MAX: not seen in this level yet).
        let mut local = vec![u32::MAX; super::stems::count()];
        let mut last_unit: Vec<u32> = Vec::new();
        let mut at = 0u32;
        let mut sentence = 0u32;
        let mut seen: Vec<u32> = Vec::new();
        for (u, unit) in units.iter().enumerate() {
            let u = u as u32;
            v.unit_sentences.push((at, at + unit.len() as u32));
            at += unit.len() as u32;
            v.distinct_start.push(v.distinct.len() as u32);
            seen.clear();
            for tokens in sentences.iter().skip(sentence as usize).take(unit.len()) {
                v.sentence_ids.push(v.ids.len() as u32);
                for (k, t) in tokens.iter().enumerate() {
                    let g = t.stem_id as usize;
                    if g >= local.len() {
                        // Numbered after `local` was sized (another thread tokenized meanwhile).
                        local.resize(g + 1, u32::MAX);
                    }
                    let id = match local[g] {
                        u32::MAX => {
                            let id = v.stems.len() as u32;
                            local[g] = id;
                            v.stems.push(Stem {
                                id: t.stem_id,
                                units: 0,
                                nominal: None,
                                name: false,
                                first_nominal: None,
                            });
                            last_unit.push(u32::MAX);
                            id
                        }
                        id => id,
                    };
                    v.ids.push(id);
                    let stem = &mut v.stems[id as usize];
                    if last_unit[id as usize] != u {
                        last_unit[id as usize] = u;
                        stem.units += 1;
                        seen.push(id);
                    }
                    if t.class != WordClass::Other && stem.nominal.is_none() {
                        stem.nominal = Some(v.entities.len() as u32);
                        stem.first_nominal = Some((sentence, k as u32));
                        v.entities.push(id);
                    }
                    if matches!(t.class, WordClass::Name | WordClass::Acronym) {
                        stem.name = true;
                    }
                }
                sentence += 1;
            }
            seen.sort_unstable();
            v.distinct.extend_from_slice(&seen);
        }
        v.sentence_ids.push(v.ids.len() as u32);
        v.distinct_start.push(v.distinct.len() as u32);
        v.sentences = sentences;
        v.text = String::with_capacity(units.iter().flatten().map(|s| s.len()).sum());
        v.text_start = Vec::with_capacity(v.sentences.len() + 1);
        for s in units.iter().flatten() {
            v.text_start.push(v.text.len() as u32);
            v.text.push_str(s);
        }
        v.text_start.push(v.text.len() as u32);
        v
    }

    /// Number of units.
    pub(crate) fn len(&self) -> usize {
        self.unit_sentences.len()
    }

    /// What the level says about the stem with local id `id`.
    pub(crate) fn stem(&self, id: u32) -> Option<&Stem> {
        self.stems.get(id as usize)
    }

    /// Number of distinct stems in the level (local ids are below it).
    pub(crate) fn stems(&self) -> usize {
        self.stems.len()
    }

    /// The distinct local ids of unit `u`, ascending (in order of first occurrence in the level).
    pub(crate) fn distinct(&self, u: usize) -> &[u32] {
        match (self.distinct_start.get(u), self.distinct_start.get(u + 1)) {
            (Some(&a), Some(&b)) => self.distinct.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The sentences of unit `u`: each sentence's tokens with their local ids.
    pub(crate) fn unit(&self, u: usize) -> impl Iterator<Item = (&[Token], &[u32])> + '_ {
        let (a, b) = self.unit_sentences.get(u).copied().unwrap_or((0, 0));
        (a..b).map(move |s| self.sentence(s as usize))
    }

    fn sentence(&self, s: usize) -> (&[Token], &[u32]) {
        let tokens = self.sentences.get(s).map_or(&[][..], |t| &t[..]);
        let ids = match (self.sentence_ids.get(s), self.sentence_ids.get(s + 1)) {
            (Some(&a), Some(&b)) => self.ids.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        };
        (tokens, ids)
    }

    /// Number of entities (stems with a nominal mention somewhere in the level).
    pub(crate) fn entities(&self) -> usize {
        self.entities.len()
    }

    /// The local id of the entity of rank `e`.
    pub(crate) fn entity_stem(&self, e: u32) -> Option<u32> {
        self.entities.get(e as usize).copied()
    }

    /// The surface form of the first nominal mention of the stem with local id `id`.
    pub(crate) fn surface(&self, id: u32) -> Option<&str> {
        let (s, k) = self.stem(id)?.first_nominal?;
        self.sentences
            .get(s as usize)?
            .get(k as usize)
            .map(|t| t.surface.as_str())
    }
}

/// The tokens of every sentence of `units`, in level order: taken from the kept level that shares
/// the longest runs of equal sentences with them at the start and at the end, the rest tokenized
/// ([`tokens`]). Tokens are a pure function of the text, so the result is the same either way.
fn shared_tokens(units: &[Unit<'_>], kept: &[Arc<Vocabulary>]) -> Vec<Arc<[Token]>> {
    let texts: Vec<&str> = units.iter().flatten().copied().collect();
    let n = texts.len();
    // (prefix, suffix) of equal sentences with each kept level, the suffix not overlapping it.
    let runs = kept.iter().map(|v| {
        let m = v.sentences.len();
        let prefix = (0..n.min(m))
            .take_while(|&k| v.sentence_text(k) == texts.get(k).copied())
            .count();
        let suffix = (0..(n - prefix).min(m - prefix))
            .take_while(|&k| v.sentence_text(m - 1 - k) == texts.get(n - 1 - k).copied())
            .count();
        (prefix, suffix, v)
    });
    // The most recent first; tokens are the same whichever level they come from, so a level
    // that leaves at most one sentence to tokenize ends the search.
    let mut best: Option<(usize, usize, &Arc<Vocabulary>)> = None;
    for run in runs.rev() {
        if best.is_none_or(|(p, s, _)| run.0 + run.1 > p + s) {
            best = Some(run);
        }
        if best.is_some_and(|(p, s, _)| p + s + 1 >= n) {
            break;
        }
    }
    let mut out: Vec<Arc<[Token]>> = Vec::with_capacity(n);
    for (k, text) in texts.iter().enumerate() {
        let reused = best.and_then(|(prefix, suffix, v)| {
            let m = v.sentences.len();
            if k < prefix {
                v.sentences.get(k).cloned()
            } else if k >= n - suffix {
                v.sentences.get(m - (n - k)).cloned()
            } else {
                None
            }
        });
        out.push(reused.unwrap_or_else(|| tokens(text)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tokens::tokenize;
    use super::*;

    #[test]
    fn counts_units_entities_and_first_occurrences() {
        let units: Vec<Unit> = vec![
            vec!["The parser reads Markdown files.", "The parser is fast."],
            vec!["Markdown files have headings."],
            vec![],
        ];
        let v = Vocabulary::of(&units);
        assert_eq!(v.len(), 3);
        let stem_of = |id: u32| {
            let g = v.stem(id).map(|s| s.id);
            v.unit(0)
                .chain(v.unit(1))
                .flat_map(|(t, ids)| t.iter().zip(ids))
                .find(|(t, _)| Some(t.stem_id) == g)
                .map(|(t, _)| t.stem.clone())
        };
        // Stems in order of first occurrence: pars, read, markdown, file, fast, head.
        assert_eq!(stem_of(0).as_deref(), Some("parser"));
        let parser = v.stem(0).copied();
        assert_eq!(parser.map(|s| s.units), Some(1));
        let markdown = v.distinct(1).to_vec();
        assert!(markdown.iter().all(|&id| id != 0));
        let shared: Vec<u32> = v
            .distinct(0)
            .iter()
            .copied()
            .filter(|id| markdown.contains(id))
            .collect();
        assert_eq!(shared.len(), 2, "markdown, file");
        assert!(shared
            .iter()
            .all(|&id| v.stem(id).map(|s| s.units) == Some(2)));
        // "parser" follows "The": a nominal mention, the first entity, shown as written.
        assert_eq!(parser.and_then(|s| s.nominal), Some(0));
        assert_eq!(v.surface(0), Some("parser"));
        assert_eq!(v.entity_stem(0), Some(0));
        assert!(v.distinct(2).is_empty());
        // The same sentences give the same (kept) vocabulary.
        assert!(Arc::ptr_eq(&v, &Vocabulary::of(&units)));
        let mut other = units.clone();
        other[1] = vec!["Markdown files have titles."];
        assert!(!Arc::ptr_eq(&v, &Vocabulary::of(&other)));
    }

    #[test]
    fn a_level_counted_again_after_an_edit_or_grouped_otherwise_counts_as_a_fresh_one() {
        let units: Vec<Unit> = vec![
            vec![
                "Vocabulary test: the lexer splits words.",
                "The lexer is quick.",
            ],
            vec!["Vocabulary test: tokens carry stems."],
            vec!["Vocabulary test: stems get numbers."],
        ];
        let v = Vocabulary::of(&units);
        assert_eq!(v.unit_text(0), units[0]);
        assert_eq!(v.unit_text(2), units[2]);
        assert!(v.unit_text(3).is_empty());
        let fresh = |units: &[Unit]| {
            Vocabulary::count(
                units,
                units.iter().flatten().map(|s| tokenize(s).into()).collect(),
            )
        };
        let same = |a: &Vocabulary, b: &Vocabulary| {
            assert_eq!(a.len(), b.len());
            assert_eq!(a.stems(), b.stems());
            assert_eq!(a.entities(), b.entities());
            for u in 0..a.len() {
                assert_eq!(a.distinct(u), b.distinct(u));
                assert_eq!(a.unit_text(u), b.unit_text(u));
            }
            for id in 0..a.stems() as u32 {
                let (x, y) = (a.stem(id).copied(), b.stem(id).copied());
                let key = |s: Option<Stem>| s.map(|s| (s.id, s.units, s.nominal, s.name));
                assert_eq!(key(x), key(y));
                assert_eq!(a.surface(id), b.surface(id));
            }
        };
        // One sentence edited: the others' tokens come from the kept level.
        let mut edited = units.clone();
        edited[1] = vec!["Vocabulary test: tokens carry their stems."];
        let e = Vocabulary::of(&edited);
        assert!(!Arc::ptr_eq(&v, &e));
        same(&e, &fresh(&edited));
        // The same sentences grouped otherwise (the other level): all of them do.
        let whole: Vec<Unit> = vec![edited.iter().flatten().copied().collect()];
        let w = Vocabulary::of(&whole);
        assert_eq!(w.len(), 1);
        same(&w, &fresh(&whole));
    }
}
