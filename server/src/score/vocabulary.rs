//! One level's vocabulary: its units' tokens, each stem numbered in order of first occurrence in
//! the level, and what the level says about each stem (how many units use it, whether and when it
//! is first a nominal mention, whether it is ever a name).
//!
//! `tier0`'s fingerprints ([`super::contexts`]), novelty ([`super::novelty`]), the idf vectors of
//! `tier0` and the entity grid all read these counts. [`Vocabulary::of`] computes them once per
//! level and keeps the last few, keyed by the exact token lists of the level's sentences (the
//! memoized [`tokens`], compared by identity while the vocabulary holds them), so the passes of
//! one analysis share one count, and counting goes through arrays indexed by stem id
//! ([`super::stems`]) rather than maps keyed by strings.

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
    /// The vocabulary of `units`, reused when the last few levels counted include one with the
    /// same sentences.
    pub(crate) fn of(units: &[Unit<'_>]) -> Arc<Vocabulary> {
        static KEPT_VOCABULARIES: OnceLock<Mutex<Vec<Arc<Vocabulary>>>> = OnceLock::new();
        let kept = KEPT_VOCABULARIES.get_or_init(|| Mutex::new(Vec::new()));
        let sentences: Vec<Arc<[Token]>> = units.iter().flatten().map(|s| tokens(s)).collect();
        if let Ok(mut kept) = kept.lock() {
            if let Some(k) = kept.iter().position(|v| v.same_level(units, &sentences)) {
                let v = kept.remove(k);
                kept.push(v.clone());
                return v;
            }
        }
        let v = Arc::new(Vocabulary::count(units, sentences));
        if let Ok(mut kept) = kept.lock() {
            if kept.len() >= KEPT {
                kept.remove(0);
            }
            kept.push(v.clone());
        }
        v
    }

    /// Whether this vocabulary was counted from units of these sentences.
    fn same_level(&self, units: &[Unit<'_>], sentences: &[Arc<[Token]>]) -> bool {
        self.unit_sentences.len() == units.len()
            && self.sentences.len() == sentences.len()
            && self
                .unit_sentences
                .iter()
                .zip(units)
                .all(|(&(a, b), u)| (b - a) as usize == u.len())
            && self
                .sentences
                .iter()
                .zip(sentences)
                .all(|(a, b)| Arc::ptr_eq(a, b))
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

#[cfg(test)]
mod tests {
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
}
