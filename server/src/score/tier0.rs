//! The combined built-in score: a logistic model over the lexical cosines, the entity-grid logit
//! and cheap discourse cues, trained on the train split to tell a unit's true successor from other
//! units of the same document (see `eval::train`).
//!
//! Features of a pair `from → to`:
//! - the `lexical` and `lexical-noun` cosines, the entity-grid log-odds, and a cosine weighted by
//!   the document's own inverse unit frequency (words that recur everywhere in the document count
//!   less); square roots of the cosines and a "no shared word" flag let the linear model bend;
//! - at the paragraph level, the same weighted cosine between the last sentence of `from` and the
//!   first sentence of `to` (the boundary the reader crosses);
//! - `to` opens with a connective (*however*, *therefore*, *also*, *for example*, *then*, …, grouped
//!   by kind) or an anaphoric pronoun or determiner (*it*, *they*, *this*, *such*, …): such a unit
//!   leans on what comes before it (the model weighs this with the overlap: a connective with no
//!   shared words counts against the pair); *first* and its kin instead tend to open a sequence;
//! - `from` ends with a colon or a question; both units are quoted speech; the length ratio.
//!
//! Every feature is computed per pair, so the score of an order stays decomposable.

use super::cues::{opening_cue, Cue};
use super::entity_grid::{
    check_model, neutral_model, EntityGrid, EntityGridWeights, GridPairs, LazyTable,
};
use super::lexical::{unit_key, Lexical, TermVector};
use super::logistic::{sigmoid, Logistic};
use super::memo::Memo;
use super::static_vectors::StaticVectors;
use super::tokens::tokens;
use super::vocabulary::Vocabulary;
use super::{Level, Pairwise, Reason, Scorer, Unit};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, OnceLock};
use unicode_segmentation::UnicodeSegmentation;

/// The weights shipped with Segue, trained by `segue train tier0` on the train split.
const EMBEDDED: &str = include_str!("../../models/tier0/tier0.json");

/// Number of pair features of the combined model.
pub const FEATURE_COUNT: usize = 23;

/// Names of the pair features, in order; stored with the weights and checked when they load.
pub fn feature_names() -> Vec<String> {
    [
        "lexical",
        "lexical-noun",
        "entity-grid logit",
        "to opens: contrast",
        "to opens: result",
        "to opens: addition",
        "to opens: example",
        "to opens: sequence",
        "to opens: first",
        "to opens: personal pronoun",
        "to opens: demonstrative",
        "from ends: colon",
        "from ends: question",
        "both quoted",
        "length log-ratio",
        "length abs log-ratio",
        "anaphor x lexical-noun",
        "connective x lexical",
        "idf cosine",
        "boundary idf cosine",
        "sqrt lexical",
        "sqrt idf cosine",
        "no shared word",
    ]
    .iter()
    .map(|s| (*s).to_string())
    .collect()
}

/// Trained combined weights: one logistic model per level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tier0Weights {
    /// What the weights are and how they were made (for the model card).
    #[serde(default)]
    pub source: String,
    /// Model for sentence → sentence transitions.
    pub sentence: Logistic,
    /// Model for paragraph → paragraph transitions.
    pub paragraph: Logistic,
}

impl Tier0Weights {
    /// The model for `level`.
    pub fn at(&self, level: Level) -> &Logistic {
        match level {
            Level::Sentence => &self.sentence,
            Level::Paragraph => &self.paragraph,
        }
    }

    /// Parses weights from JSON and checks that the feature names match this version of the code.
    pub fn from_json(json: &str) -> Result<Self, String> {
        let w: Tier0Weights = serde_json::from_str(json).map_err(|e| e.to_string())?;
        let names = feature_names();
        for (level, m) in [("sentence", &w.sentence), ("paragraph", &w.paragraph)] {
            check_model(m, &names).map_err(|e| format!("{level} model: {e}"))?;
        }
        Ok(w)
    }

    /// Weights that score every pair 0.5 (a fallback, and the starting point of training).
    pub fn neutral() -> Self {
        let m = neutral_model(feature_names());
        Tier0Weights {
            source: "neutral".into(),
            sentence: m.clone(),
            paragraph: m,
        }
    }
}

/// The combined tier-0 scorer.
#[derive(Debug, Clone)]
pub struct Tier0 {
    plain: Lexical,
    nouns: Lexical,
    grid: EntityGrid,
    weights: Tier0Weights,
}

impl Tier0 {
    /// The scorer with the weights shipped in `models/tier0/`.
    pub fn trained() -> Self {
        Tier0::from_weights(
            EntityGrid::trained().weights().clone(),
            Tier0Weights::from_json(EMBEDDED).unwrap_or_else(|_| Tier0Weights::neutral()),
        )
    }

    /// The scorer with the given entity-grid and combination weights.
    pub fn from_weights(grid: EntityGridWeights, weights: Tier0Weights) -> Self {
        Tier0 {
            plain: Lexical::plain(),
            nouns: Lexical::nouns(),
            grid: EntityGrid::from_weights(grid),
            weights,
        }
    }

    /// The entity-grid scorer whose log-odds the combination reads.
    pub fn entity_grid(&self) -> &EntityGrid {
        &self.grid
    }

    /// The scorer's combination weights.
    pub fn weights(&self) -> &Tier0Weights {
        &self.weights
    }

    /// Prepares the concrete table (training reads its features). The level-wide parts (the
    /// vocabulary, the idf weights, the entity grid's counts) are counted here; what a pair reads
    /// from each of its two units when the pair is first scored, so a table of which only a few
    /// pairs are read (the language server's after an edit) costs little more than the counts.
    pub(crate) fn table<'a>(&'a self, units: &[Unit<'_>], level: Level) -> Tier0Pairs<'a> {
        let vocabulary = Vocabulary::of(units);
        let n = vocabulary.len();
        Tier0Pairs {
            scorer: self,
            grid: self.grid.table_with(units, &vocabulary, level),
            idf: idf(&vocabulary),
            parts: (0..n).map(|_| OnceLock::new()).collect(),
            vocabulary,
            level,
            model: self.weights.at(level),
            scores: LazyTable::new(n),
        }
    }
}

impl Scorer for Tier0 {
    fn name(&self) -> &'static str {
        "tier0"
    }
    fn description(&self) -> &'static str {
        "combined built-in score: lexical cohesion, entity continuity and discourse cues (trained)"
    }
    fn tier(&self) -> u8 {
        0
    }
    fn prepare<'a>(&'a self, units: &[Unit<'_>], level: Level) -> Box<dyn Pairwise + 'a> {
        Box::new(self.table(units, level))
    }
    fn has_intrusion(&self) -> bool {
        super::intrusion::Model::Static.available() && StaticVectors::shipped().is_some()
    }
    fn intrusion_source(&self, level: Level) -> super::IntrusionSource {
        // `Tier0Pairs::intrusion` is the static-vector model on every unit of the level.
        if super::intrusion::Model::Static.level(level).is_some()
            && StaticVectors::shipped().is_some()
        {
            super::IntrusionSource::Table
        } else {
            super::IntrusionSource::None
        }
    }
    fn unit_contexts(&self, units: &[Unit<'_>], level: Level) -> Option<Vec<u64>> {
        Some(super::contexts::tier0_contexts(units, level))
    }
}

/// What the combined model reads from one unit's own text.
#[derive(Debug, Clone, Default)]
struct UnitCues {
    /// The opening cue and the words that make it up, as written.
    opening: Option<(Cue, String)>,
    colon: bool,
    question: bool,
    quoted: bool,
    words: usize,
}

const QUOTES: &[char] = &['"', '“', '”', '‘', '’', '\'', '«', '»', '„'];

/// Units whose cues [`UnitCues::of`] keeps (per generation; see [`Memo`]).
const MEMO_UNITS: usize = 16_384;

impl UnitCues {
    /// [`UnitCues::read`], memoized per unit text for the whole process.
    fn of(unit: &Unit<'_>) -> Arc<UnitCues> {
        static MEMO: OnceLock<Memo<Arc<UnitCues>>> = OnceLock::new();
        MEMO.get_or_init(|| Memo::new(MEMO_UNITS))
            .get_or(&unit_key(unit), |_| Arc::new(UnitCues::read(unit)))
    }

    fn read(unit: &Unit<'_>) -> UnitCues {
        let first = unit
            .iter()
            .find(|s| !s.trim().is_empty())
            .copied()
            .unwrap_or("");
        let last = unit
            .iter()
            .rev()
            .find(|s| !s.trim().is_empty())
            .copied()
            .unwrap_or("");
        let opening = opening_cue(first);
        let tail = last
            .trim_end()
            .trim_end_matches(|c: char| QUOTES.contains(&c) || c == ')');
        UnitCues {
            opening,
            colon: tail.ends_with(':'),
            question: tail.ends_with('?'),
            quoted: first.trim_start().starts_with(QUOTES),
            words: unit.iter().map(|s| s.unicode_words().count()).sum(),
        }
    }

    fn is(&self, cue: Cue) -> bool {
        self.opening.as_ref().is_some_and(|(c, _)| *c == cue)
    }
}

/// The combined transition table of one document at one level.
pub(crate) struct Tier0Pairs<'a> {
    scorer: &'a Tier0,
    grid: GridPairs<'a>,
    /// Per local stem id of `vocabulary`: its inverse unit frequency in the level.
    idf: Vec<f64>,
    /// What the features read from each unit, built on first use ([`Tier0Pairs::part`]).
    parts: Vec<OnceLock<UnitParts>>,
    vocabulary: Arc<Vocabulary>,
    level: Level,
    model: &'a Logistic,
    scores: LazyTable,
}

/// What the combined model reads from one unit: its term vectors (plain and noun-weighted), its
/// cues, and its idf-weighted vectors (whole unit, first and last sentence).
struct UnitParts {
    plain: Arc<TermVector>,
    nouns: Arc<TermVector>,
    cues: Arc<UnitCues>,
    bags: Bags,
}

/// A sparse vector over term ids, sorted by id.
#[derive(Debug, Clone, Default)]
struct Bag {
    terms: Vec<(u32, f64)>,
    norm: f64,
}

impl Bag {
    fn new(mut terms: Vec<(u32, f64)>) -> Bag {
        terms.sort_by_key(|t| t.0);
        terms.dedup_by(|b, a| {
            if a.0 == b.0 {
                a.1 += b.1;
                true
            } else {
                false
            }
        });
        let norm = terms.iter().map(|t| t.1 * t.1).sum::<f64>().sqrt();
        Bag { terms, norm }
    }

    fn cosine(&self, other: &Bag) -> f64 {
        if self.norm == 0.0 || other.norm == 0.0 {
            return 0.0;
        }
        let (a, b) = (&self.terms, &other.terms);
        let (mut i, mut j, mut dot) = (0, 0, 0.0);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    dot += a[i].1 * b[j].1;
                    i += 1;
                    j += 1;
                }
            }
        }
        (dot / (self.norm * other.norm)).clamp(0.0, 1.0)
    }
}

/// A unit's content-word vectors weighted by the document's own inverse unit frequency: the
/// whole unit, its first sentence and its last sentence.
#[derive(Debug, Clone, Default)]
struct Bags {
    whole: Bag,
    first: Bag,
    last: Bag,
}

/// The inverse unit frequency of every stem of the level, by local id.
fn idf(vocabulary: &Vocabulary) -> Vec<f64> {
    let n = vocabulary.len() as f64;
    (0..vocabulary.stems() as u32)
        .map(|id| {
            let df = vocabulary.stem(id).map_or(1, |s| s.units.max(1));
            (1.0 + n / f64::from(df)).ln()
        })
        .collect()
}

impl Bags {
    /// The vectors of unit `u` of `vocabulary`, under the level's `idf` weights.
    fn of(vocabulary: &Vocabulary, idf: &[f64], u: usize) -> Bags {
        let bag = |words: &mut dyn Iterator<Item = &u32>| {
            Bag::new(
                words
                    .map(|&id| (id, idf.get(id as usize).copied().unwrap_or(0.0)))
                    .collect(),
            )
        };
        let sentences: Vec<&[u32]> = vocabulary.unit(u).map(|(_, ids)| ids).collect();
        Bags {
            whole: bag(&mut sentences.iter().copied().flatten()),
            first: bag(&mut sentences.first().copied().into_iter().flatten()),
            last: bag(&mut sentences.last().copied().into_iter().flatten()),
        }
    }
}

impl Tier0Pairs<'_> {
    /// What the features read from unit `u` (`None` past the last unit), read on first use.
    fn part(&self, u: usize) -> Option<&UnitParts> {
        let part = self.parts.get(u)?;
        Some(part.get_or_init(|| {
            let text = self.vocabulary.unit_text(u);
            UnitParts {
                plain: self.scorer.plain.vector(&text),
                nouns: self.scorer.nouns.vector(&text),
                cues: UnitCues::of(&text),
                bags: Bags::of(&self.vocabulary, &self.idf, u),
            }
        }))
    }

    /// The pair features of `from → to` (see [`feature_names`]).
    pub(crate) fn features(&self, from: usize, to: usize) -> [f64; FEATURE_COUNT] {
        let mut f = [0.0; FEATURE_COUNT];
        let (Some(pa), Some(pb)) = (self.part(from), self.part(to)) else {
            return f;
        };
        let (a, b) = (&pa.cues, &pb.cues);
        let lex = pa.plain.cosine(&pb.plain);
        let noun = pa.nouns.cosine(&pb.nouns);
        f[0] = lex;
        f[1] = noun;
        f[2] = self.grid.logit(from, to);
        let flag = |c: Cue| f64::from(u8::from(b.is(c)));
        f[3] = flag(Cue::Contrast);
        f[4] = flag(Cue::Result);
        f[5] = flag(Cue::Addition);
        f[6] = flag(Cue::Example);
        f[7] = flag(Cue::Sequence);
        f[8] = flag(Cue::Opening);
        f[9] = flag(Cue::Personal);
        f[10] = flag(Cue::Demonstrative);
        f[11] = f64::from(u8::from(a.colon));
        f[12] = f64::from(u8::from(a.question));
        f[13] = f64::from(u8::from(a.quoted && b.quoted));
        let ratio = ((b.words as f64 + 1.0) / (a.words as f64 + 1.0)).ln();
        f[14] = ratio;
        f[15] = ratio.abs();
        let anaphor = f[9].max(f[10]);
        let connective = f[3].max(f[4]).max(f[5]).max(f[6]).max(f[7]);
        f[16] = anaphor * noun;
        f[17] = connective * lex;
        f[18] = pa.bags.whole.cosine(&pb.bags.whole);
        if self.level == Level::Paragraph {
            f[19] = pa.bags.last.cosine(&pb.bags.first);
        }
        f[20] = lex.sqrt();
        f[21] = f[18].sqrt();
        f[22] = f64::from(u8::from(lex <= 0.0));
        f
    }
}

impl Pairwise for Tier0Pairs<'_> {
    fn len(&self) -> usize {
        self.parts.len()
    }

    fn intrusion(&self) -> Option<Vec<Option<f64>>> {
        use rayon::prelude::*;
        let table = StaticVectors::shipped()?;
        let vectors: Vec<Vec<f32>> = (0..self.parts.len())
            .into_par_iter()
            .with_min_len(super::intrusion::min_task(
                self.parts.len(),
                self.parts.len(),
            ))
            .map(|u| table.unit(&self.vocabulary.unit_text(u)))
            .collect();
        super::intrusion::scores_with(super::intrusion::Model::Static, &vectors, self.level)
    }

    fn transition(&self, from: usize, to: usize) -> f64 {
        if from >= self.parts.len() || to >= self.parts.len() {
            return 0.0;
        }
        self.scores.get(from, to, || {
            let p = sigmoid(self.model.logit(&self.features(from, to)));
            if p.is_finite() {
                p.clamp(0.0, 1.0)
            } else {
                0.5
            }
        })
    }

    fn reason(&self, from: usize, to: usize) -> Reason {
        let (Some(a), Some(b)) = (self.part(from), self.part(to)) else {
            return Reason::default();
        };
        let mut shared = self.grid.reason(from, to).shared;
        let mut stems: Vec<String> = shared.iter().map(|s| stem_of(s)).collect();
        for word in a.nouns.shared(&b.nouns) {
            let stem = stem_of(&word);
            if !stems.contains(&stem) {
                stems.push(stem);
                shared.push(word);
            }
        }
        let note = match (&b.cues.opening, a.cues.colon) {
            (Some((Cue::Opening, w)), _) => Some(format!(
                "it opens with ‘{w}’, which usually starts a sequence"
            )),
            // "You …", "We …" address the reader: nothing to refer back to.
            (Some((Cue::Personal, w)), colon) if super::cues::speaker_or_reader(w) => {
                colon.then(|| "the one before it ends with a colon".to_string())
            }
            (Some((Cue::Personal | Cue::Demonstrative, w)), _) => Some(format!(
                "it opens with ‘{w}’, which needs something before it to refer to"
            )),
            (Some((_, w)), _) => Some(format!(
                "it opens with ‘{w}’, which needs a clear link to what comes before"
            )),
            (None, true) => Some("the one before it ends with a colon".to_string()),
            (None, false) => None,
        };
        Reason { shared, note }
    }
}

/// The stem a reason word matches on (the word itself, lower-cased, if it has no content token).
fn stem_of(word: &str) -> String {
    tokens(word)
        .first()
        .map(|t| t.stem.clone())
        .unwrap_or_else(|| word.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_weights_load_and_match_the_features() {
        let w = Tier0Weights::from_json(EMBEDDED).expect("embedded tier0 weights");
        assert_eq!(w.sentence.features.len(), FEATURE_COUNT);
        assert_eq!(feature_names().len(), FEATURE_COUNT);
        assert_ne!(
            w.paragraph.weights,
            vec![0.0; FEATURE_COUNT],
            "weights are trained"
        );
    }

    #[test]
    fn reads_opening_cues_and_colons() {
        let c = UnitCues::read(&vec!["On the other hand, the parser is slow."]);
        assert_eq!(
            c.opening,
            Some((Cue::Contrast, "On the other hand".to_string()))
        );
        let c = UnitCues::read(&vec!["“It works,” she said."]);
        assert!(c.is(Cue::Personal) && c.quoted);
        let c = UnitCues::read(&vec!["Thesis first.", "Do this:"]);
        assert!(c.opening.is_none() && c.colon);
        assert_eq!(c.words, 4);
    }

    #[test]
    fn scores_are_probabilities_with_reasons() {
        let units = vec![
            vec!["A parser reads Markdown files."],
            vec!["However, the parser skips code blocks in Markdown."],
            vec!["Bananas grow in warm climates."],
        ];
        let s = Tier0::trained();
        for level in [Level::Sentence, Level::Paragraph] {
            let p = s.prepare(&units, level);
            for i in 0..4 {
                for j in 0..4 {
                    assert!((0.0..=1.0).contains(&p.transition(i, j)));
                }
            }
            assert!(p.transition(0, 1) > p.transition(1, 2));
            let r = p.reason(0, 1);
            assert_eq!(
                r.shared.first().map(String::as_str),
                Some("parser"),
                "{r:?}"
            );
            assert_eq!(
                r.shared
                    .iter()
                    .filter(|w| w.to_lowercase() == "markdown")
                    .count(),
                1
            );
            assert!(
                r.note.as_deref().is_some_and(|n| n.contains("‘However’")),
                "{r:?}"
            );
            assert!(p.reason(9, 0).shared.is_empty());
        }
    }

    #[test]
    fn a_table_reads_only_the_units_of_the_pairs_it_scores() {
        let texts: Vec<String> = (0..40)
            .map(|i| format!("The parser number {i} reads Markdown file {i}."))
            .collect();
        let units: Vec<Unit> = texts.iter().map(|t| vec![t.as_str()]).collect();
        let s = Tier0::trained();
        for level in [Level::Sentence, Level::Paragraph] {
            let lazy = s.table(&units, level);
            let (score, reason) = (lazy.transition(10, 11), lazy.reason(10, 11));
            let read = |t: &Tier0Pairs<'_>| t.parts.iter().filter(|p| p.get().is_some()).count();
            assert_eq!(read(&lazy), 2);
            // The same score and reason as a table that read every unit first.
            let full = s.table(&units, level);
            for i in 0..units.len() {
                for j in 0..units.len() {
                    let _ = full.features(i, j);
                }
            }
            assert_eq!(read(&full), units.len());
            assert_eq!(full.transition(10, 11).to_bits(), score.to_bits());
            assert_eq!(full.reason(10, 11), reason);
        }
    }

    #[test]
    fn odd_input_never_panics() {
        let s = Tier0::trained();
        let units: Vec<Unit> = vec![vec![], vec![""], vec![":"], vec!["?!", "“"], vec!["It"]];
        for level in [Level::Sentence, Level::Paragraph] {
            let p = s.prepare(&units, level);
            for i in 0..6 {
                for j in 0..6 {
                    assert!((0.0..=1.0).contains(&p.transition(i, j)));
                    let _ = p.reason(i, j);
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_scores_in_range(texts in proptest::collection::vec(".{0,40}", 0..6)) {
            let s = Tier0::trained();
            let grid = EntityGrid::trained();
            let units: Vec<Unit> = texts.iter().map(|t| vec![t.as_str(), "The parser: it works?"]).collect();
            for level in [Level::Sentence, Level::Paragraph] {
                let p = s.prepare(&units, level);
                let g = grid.prepare(&units, level);
                for i in 0..=units.len() {
                    for j in 0..=units.len() {
                        proptest::prop_assert!((0.0..=1.0).contains(&p.transition(i, j)));
                        proptest::prop_assert!((0.0..=1.0).contains(&g.transition(i, j)));
                        let _ = (p.reason(i, j), g.reason(i, j));
                    }
                }
            }
        }
    }
}
