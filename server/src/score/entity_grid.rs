//! Entity continuity after Lapata & Barzilay (seed 004): an entity grid over the units of a
//! document, read one pair of units at a time.
//!
//! **Entities** are stems that the tokenizer ([`tokenize`](super::tokens::tokenize)) guesses to be
//! a noun, a name or an acronym *somewhere* in the document (a stem seen once after a determiner
//! counts as a noun everywhere). An entity that occurs in at least two units is *salient*; the others form a
//! separate feature group, as in Barzilay & Lapata.
//!
//! **Roles** are approximated without a parser, per mention:
//! - `X` (other): the mention sits in a prepositional phrase — the nearest word before it that is
//!   neither a determiner nor another content word is a preposition ("in the old house");
//! - `S` (subject): otherwise, if no verb cue precedes it in its sentence (`!after_verb`, plus a few
//!   common verbs and a present-tense verb right after a noun: "the parser *reads*");
//! - `O` (object): otherwise;
//! - `–`: absent. A unit of several sentences takes its most prominent role, S > O > X.
//!
//! **Features** of a pair (`from`, `to`): the counts of the 15 role transitions other than `––`
//! (SS, SO, …, –X) over the salient entities, the roles of non-salient entities in either unit, the
//! rarity-weighted count of shared entities, shared names, and the article pattern of shared
//! entities ("a parser" → "the parser" reads forward; "the parser" → "a parser" backward). Every
//! count enters as `ln(1 + n)`. A logistic model per level turns the features into the probability
//! that `to` directly follows `from`, which is the transition score. All features are computed per
//! pair, so the score of any order is decomposable over adjacent pairs.

use super::logistic::{sigmoid, Logistic};
use super::memo::Memo;
use super::tokens::{tokens, WordClass};
use super::vocabulary::Vocabulary;
use super::{Level, Pairwise, Reason, Scorer, Unit};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use unicode_segmentation::UnicodeSegmentation;

/// The weights shipped with Segue, trained by `segue train tier0` on the train split.
const EMBEDDED: &str = include_str!("../../models/tier0/entity_grid.json");

/// A grammatical role in the grid, ordered by prominence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// Not mentioned in the unit (`–`).
    Absent = 0,
    /// Mentioned in another position, e.g. inside a prepositional phrase (`X`).
    Other = 1,
    /// Mentioned after the verb (`O`).
    Object = 2,
    /// Mentioned before the verb (`S`).
    Subject = 3,
}

impl Role {
    /// The one-letter symbol of the role (`S`, `O`, `X`, `-`).
    pub fn symbol(self) -> char {
        match self {
            Role::Absent => '-',
            Role::Other => 'X',
            Role::Object => 'O',
            Role::Subject => 'S',
        }
    }
}

/// Roles in feature order (most prominent first).
const ROLE_ORDER: [Role; 4] = [Role::Subject, Role::Object, Role::Other, Role::Absent];

/// Number of pair features of the entity grid.
pub const FEATURE_COUNT: usize = 15 + 6 + 4;

/// Names of the pair features, in order; stored with the weights and checked when they load.
pub fn feature_names() -> Vec<String> {
    let mut names = Vec::with_capacity(FEATURE_COUNT);
    for a in ROLE_ORDER {
        for b in ROLE_ORDER {
            if a == Role::Absent && b == Role::Absent {
                continue;
            }
            names.push(format!("salient {}{}", a.symbol(), b.symbol()));
        }
    }
    for r in &ROLE_ORDER[..3] {
        names.push(format!("other {}-", r.symbol()));
    }
    for r in &ROLE_ORDER[..3] {
        names.push(format!("other -{}", r.symbol()));
    }
    names.push("shared weighted".into());
    names.push("shared names".into());
    names.push("indefinite then definite".into());
    names.push("definite then indefinite".into());
    names
}

/// Trained entity-grid weights: one logistic model per level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntityGridWeights {
    /// What the weights are and how they were made (for the model card).
    #[serde(default)]
    pub source: String,
    /// Model for sentence → sentence transitions.
    pub sentence: Logistic,
    /// Model for paragraph → paragraph transitions.
    pub paragraph: Logistic,
}

impl EntityGridWeights {
    /// The model for `level`.
    pub fn at(&self, level: Level) -> &Logistic {
        match level {
            Level::Sentence => &self.sentence,
            Level::Paragraph => &self.paragraph,
        }
    }

    /// Parses weights from JSON and checks that the feature names match this version of the code.
    pub fn from_json(json: &str) -> Result<Self, String> {
        let w: EntityGridWeights = serde_json::from_str(json).map_err(|e| e.to_string())?;
        let names = feature_names();
        for (level, m) in [("sentence", &w.sentence), ("paragraph", &w.paragraph)] {
            check_model(m, &names).map_err(|e| format!("{level} model: {e}"))?;
        }
        Ok(w)
    }

    /// Weights that score every pair 0.5, used only if the embedded weights were unreadable.
    fn neutral() -> Self {
        let m = neutral_model(feature_names());
        EntityGridWeights {
            source: "neutral fallback".into(),
            sentence: m.clone(),
            paragraph: m,
        }
    }
}

/// Checks that a model has the expected features and consistent lengths.
pub(crate) fn check_model(m: &Logistic, names: &[String]) -> Result<(), String> {
    if m.features != names {
        return Err(format!("features {:?} differ from {:?}", m.features, names));
    }
    let d = names.len();
    if m.mean.len() != d || m.scale.len() != d || m.weights.len() != d {
        return Err("mean, scale and weights must have one entry per feature".into());
    }
    if !m.bias.is_finite()
        || m.weights
            .iter()
            .chain(&m.mean)
            .chain(&m.scale)
            .any(|v| !v.is_finite())
    {
        return Err("non-finite parameter".into());
    }
    Ok(())
}

/// A model that predicts 0.5 everywhere.
pub(crate) fn neutral_model(features: Vec<String>) -> Logistic {
    let d = features.len();
    Logistic {
        features,
        mean: vec![0.0; d],
        scale: vec![1.0; d],
        weights: vec![0.0; d],
        bias: 0.0,
    }
}

/// Entity-grid scorer.
#[derive(Debug, Clone)]
pub struct EntityGrid {
    weights: EntityGridWeights,
}

impl EntityGrid {
    /// The scorer with the weights shipped in `models/tier0/entity_grid.json`.
    pub fn trained() -> Self {
        EntityGrid {
            weights: EntityGridWeights::from_json(EMBEDDED)
                .unwrap_or_else(|_| EntityGridWeights::neutral()),
        }
    }

    /// The scorer with the given weights.
    pub fn from_weights(weights: EntityGridWeights) -> Self {
        EntityGrid { weights }
    }

    /// The scorer's weights.
    pub fn weights(&self) -> &EntityGridWeights {
        &self.weights
    }

    /// Prepares the concrete table (the combined tier-0 scorer reads its logits).
    pub(crate) fn table<'a>(&'a self, units: &[Unit<'_>], level: Level) -> GridPairs<'a> {
        GridPairs::new(Grid::build(units), self.weights.at(level))
    }

    /// [`EntityGrid::table`] from the level's vocabulary, already counted.
    pub(crate) fn table_with<'a>(
        &'a self,
        units: &[Unit<'_>],
        vocabulary: &Arc<Vocabulary>,
        level: Level,
    ) -> GridPairs<'a> {
        GridPairs::new(Grid::counted(units, vocabulary), self.weights.at(level))
    }
}

impl Scorer for EntityGrid {
    fn name(&self) -> &'static str {
        "entity-grid"
    }
    fn description(&self) -> &'static str {
        "entity continuity: role transitions of repeated nouns, names and acronyms (Lapata & Barzilay)"
    }
    fn tier(&self) -> u8 {
        0
    }
    fn prepare<'a>(&'a self, units: &[Unit<'_>], level: Level) -> Box<dyn Pairwise + 'a> {
        Box::new(self.table(units, level))
    }
}

/// One entity in one unit.
#[derive(Debug, Clone, Copy)]
struct Cell {
    entity: u32,
    role: Role,
    definite: bool,
    indefinite: bool,
}

/// The entity grid of a document: for each unit, its entities with their roles.
///
/// The level-wide parts (which stems are entities, how many units mention each) are counted when
/// the grid is built; a unit's cells when a pair first reads them, so a table of which only a few
/// pairs are read (the language server's after an edit) reads only those units' mentions.
#[derive(Debug, Clone, Default)]
pub struct Grid {
    /// Cells of each unit, sorted by entity id (built on first use, [`Grid::cells`]).
    units: Vec<OnceLock<Vec<Cell>>>,
    /// Per entity: whether it occurs in at least two units.
    salient: Vec<bool>,
    /// Per entity: how many units mention it.
    df: Vec<u32>,
    /// Per entity: whether it was seen as a name or acronym.
    name: Vec<bool>,
    /// Per entity: its stem's local id in `vocabulary` (whose surface form reasons show).
    stem: Vec<u32>,
    /// The level's vocabulary the entities come from.
    vocabulary: Arc<Vocabulary>,
}

#[rustfmt::skip]
const PREPOSITIONS: &[&str] = &[
    "about", "above", "across", "after", "against", "along", "among", "around", "at", "before",
    "behind", "below", "beneath", "beside", "besides", "between", "beyond", "by", "despite",
    "during", "except", "for", "from", "in", "inside", "into", "near", "of", "off", "on", "onto",
    "outside", "over", "past", "per", "since", "through", "throughout", "to", "toward", "towards",
    "under", "unto", "upon", "via", "with", "within", "without",
];

#[rustfmt::skip]
const DEFINITE: &[&str] = &[
    "the", "this", "these", "that", "those", "its", "his", "her", "their", "our", "your", "my",
];

const INDEFINITE: &[&str] = &["a", "an", "another", "some", "any"];

const OTHER_DETERMINERS: &[&str] = &["each", "every", "no", "all", "both", "such"];

/// Common main verbs that the tokenizer's auxiliary cue misses.
#[rustfmt::skip]
const VERBS: &[&str] = &[
    "allow", "allows", "became", "began", "begin", "begins", "bring", "brings", "brought", "call",
    "calls", "came", "come", "comes", "contain", "contains", "create", "creates", "describe",
    "describes", "felt", "find", "finds", "found", "gave", "give", "gives", "go", "goes", "include",
    "includes", "keep", "keeps", "kept", "knew", "know", "knows", "left", "look", "looks", "mean",
    "means", "meant", "need", "needs", "provide", "provides", "put", "puts", "require", "requires",
    "return", "returns", "said", "saw", "say", "says", "see", "seem", "seems", "sees", "set",
    "sets", "show", "shows", "take", "takes", "tell", "tells", "think", "thinks", "thought", "told",
    "took", "want", "wants", "went", "work", "works", "write", "writes", "wrote",
];

/// One mention of a candidate entity in a sentence: how its token ([`tokens`], one for one) is
/// placed.
struct Mention {
    role: Role,
    definite: bool,
    indefinite: bool,
}

/// Sentences whose mentions [`mentions`] keeps (per generation; see [`Memo`]).
const MEMO_SENTENCES: usize = 16_384;

/// [`sentence_mentions`], memoized per sentence text for the whole process.
fn mentions(sentence: &str) -> Arc<[Mention]> {
    static MEMO: OnceLock<Memo<Arc<[Mention]>>> = OnceLock::new();
    MEMO.get_or_init(|| Memo::new(MEMO_SENTENCES))
        .get_or(sentence, |s| sentence_mentions(s).into())
}

/// Mentions of one sentence, every content word included (noun-hood is decided per document).
fn sentence_mentions(sentence: &str) -> Vec<Mention> {
    let words: Vec<String> = sentence.unicode_words().map(str::to_lowercase).collect();
    let tokens = tokens(sentence);
    // Per word: whether it is a content word, and whether a nominal one (one pass over the
    // tokens, so that a sentence of any length costs linear time).
    let (content, nominal): (Vec<bool>, Vec<bool>) = {
        let mut c = vec![false; words.len()];
        let mut n = vec![false; words.len()];
        for t in tokens.iter() {
            if let Some(slot) = c.get_mut(t.position) {
                *slot = true;
            }
            if t.class != WordClass::Other {
                if let Some(slot) = n.get_mut(t.position) {
                    *slot = true;
                }
            }
        }
        (c, n)
    };
    let mut verb_seen_at: Option<usize> = None;
    for (i, w) in words.iter().enumerate() {
        let prev_content = i > 0 && content.get(i - 1).copied().unwrap_or(false);
        let prev_nominal = i > 0 && nominal.get(i - 1).copied().unwrap_or(false);
        let present_after_noun = prev_content
            && prev_nominal
            && w.len() > 3
            && w.ends_with('s')
            && !w.ends_with("ss")
            && !w.ends_with("us")
            && !w.ends_with("is");
        if VERBS.binary_search(&w.as_str()).is_ok() || present_after_noun {
            verb_seen_at = Some(i);
            break;
        }
    }
    tokens
        .iter()
        .map(|t| {
            let pos = t.position;
            // Walk back over determiners and modifiers (up to three words) to the governing word.
            let mut governed_by_preposition = false;
            let mut determiner: Option<&str> = None;
            let mut k = pos;
            for _ in 0..3 {
                let Some(p) = k.checked_sub(1) else { break };
                let Some(w) = words.get(p) else { break };
                let w = w.as_str();
                if PREPOSITIONS.contains(&w) {
                    governed_by_preposition = true;
                    break;
                }
                let is_det = DEFINITE.contains(&w)
                    || INDEFINITE.contains(&w)
                    || OTHER_DETERMINERS.contains(&w)
                    || w.ends_with("'s")
                    || w.ends_with("’s");
                if is_det {
                    determiner = determiner.or(Some(w));
                    k = p;
                } else if determiner.is_none() && content.get(p).copied().unwrap_or(false) {
                    k = p;
                } else {
                    break;
                }
            }
            let before_verb = !t.after_verb && verb_seen_at.is_none_or(|v| pos < v);
            let role = if governed_by_preposition {
                Role::Other
            } else if before_verb {
                Role::Subject
            } else {
                Role::Object
            };
            Mention {
                role,
                definite: determiner.is_some_and(|d| {
                    DEFINITE.contains(&d) || d.ends_with("'s") || d.ends_with("’s")
                }),
                indefinite: determiner.is_some_and(|d| INDEFINITE.contains(&d)),
            }
        })
        .collect()
}

impl Grid {
    /// Builds the grid of `units` (each a list of sentences).
    pub fn build(units: &[Unit<'_>]) -> Grid {
        Grid::counted(units, &Vocabulary::of(units))
    }

    /// Builds the grid of `units` from their level's vocabulary: an entity is a stem with a
    /// nominal mention somewhere in the level, numbered in order of its first one.
    pub(crate) fn counted(units: &[Unit<'_>], vocabulary: &Arc<Vocabulary>) -> Grid {
        let mut grid = Grid {
            units: (0..units.len().min(vocabulary.len()))
                .map(|_| OnceLock::new())
                .collect(),
            vocabulary: vocabulary.clone(),
            ..Grid::default()
        };
        let entities = vocabulary.entities();
        grid.df = Vec::with_capacity(entities);
        grid.name = Vec::with_capacity(entities);
        grid.stem = Vec::with_capacity(entities);
        for e in 0..entities as u32 {
            let id = vocabulary.entity_stem(e).unwrap_or(u32::MAX);
            let stem = vocabulary.stem(id);
            grid.df.push(stem.map_or(0, |s| s.units));
            grid.name.push(stem.is_some_and(|s| s.name));
            grid.stem.push(id);
        }
        grid.salient = grid.df.iter().map(|&d| d >= 2).collect();
        grid
    }

    /// The cells of unit `u`, sorted by entity id (empty past the last unit).
    fn cells(&self, u: usize) -> Option<&[Cell]> {
        let cells = self.units.get(u)?;
        Some(cells.get_or_init(|| self.read_cells(u)))
    }

    /// Reads the cells of unit `u` from its sentences' mentions.
    fn read_cells(&self, u: usize) -> Vec<Cell> {
        let vocabulary = &self.vocabulary;
        let mut cells: Vec<Cell> = Vec::new();
        // Mentions are the sentence's tokens, one for one.
        for ((_, ids), sentence) in vocabulary.unit(u).zip(vocabulary.unit_text(u)) {
            for (m, &id) in mentions(sentence).iter().zip(ids) {
                let Some(entity) = vocabulary.stem(id).and_then(|s| s.nominal) else {
                    continue;
                };
                cells.push(Cell {
                    entity,
                    role: m.role,
                    definite: m.definite,
                    indefinite: m.indefinite,
                });
            }
        }
        cells.sort_by_key(|c| c.entity);
        let mut merged: Vec<Cell> = Vec::with_capacity(cells.len());
        for c in &cells {
            match merged.last_mut() {
                Some(last) if last.entity == c.entity => {
                    last.role = last.role.max(c.role);
                    last.definite |= c.definite;
                    last.indefinite |= c.indefinite;
                }
                _ => merged.push(Cell {
                    role: Role::Absent.max(c.role),
                    ..*c
                }),
            }
        }
        merged
    }

    /// Number of units.
    pub fn len(&self) -> usize {
        self.units.len()
    }

    /// Whether the grid has no units.
    pub fn is_empty(&self) -> bool {
        self.units.is_empty()
    }

    /// Entities present in both units: (entity, role in `from`, role in `to`, cells).
    fn shared(&self, from: usize, to: usize) -> Vec<(Cell, Cell)> {
        let (Some(a), Some(b)) = (self.cells(from), self.cells(to)) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].entity.cmp(&b[j].entity) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    out.push((a[i], b[j]));
                    i += 1;
                    j += 1;
                }
            }
        }
        out
    }

    /// The pair features of the transition `from → to` (see [`feature_names`]).
    pub fn features(&self, from: usize, to: usize) -> [f64; FEATURE_COUNT] {
        let mut f = [0.0; FEATURE_COUNT];
        let (Some(a), Some(b)) = (self.cells(from), self.cells(to)) else {
            return f;
        };
        let idx = |r: Role| ROLE_ORDER.iter().position(|&x| x == r).unwrap_or(3);
        // Salient transitions: index a*4+b over ROLE_ORDER, minus the skipped `--` (last).
        let mut grid = [0u32; 16];
        let mut other_from = [0u32; 3];
        let mut other_to = [0u32; 3];
        let shared = self.shared(from, to);
        for (ca, cb) in &shared {
            grid[idx(ca.role) * 4 + idx(cb.role)] += 1;
        }
        let shared_ids: Vec<u32> = shared.iter().map(|(c, _)| c.entity).collect();
        for c in a {
            if shared_ids.binary_search(&c.entity).is_ok() {
                continue;
            }
            if self
                .salient
                .get(c.entity as usize)
                .copied()
                .unwrap_or(false)
            {
                grid[idx(c.role) * 4 + 3] += 1;
            } else if c.role != Role::Absent {
                other_from[idx(c.role)] += 1;
            }
        }
        for c in b {
            if shared_ids.binary_search(&c.entity).is_ok() {
                continue;
            }
            if self
                .salient
                .get(c.entity as usize)
                .copied()
                .unwrap_or(false)
            {
                grid[3 * 4 + idx(c.role)] += 1;
            } else if c.role != Role::Absent {
                other_to[idx(c.role)] += 1;
            }
        }
        let ln = |n: f64| (1.0 + n).ln();
        for k in 0..15 {
            f[k] = ln(f64::from(grid[k]));
        }
        for k in 0..3 {
            f[15 + k] = ln(f64::from(other_from[k]));
            f[18 + k] = ln(f64::from(other_to[k]));
        }
        let units = self.units.len().max(2) as f64;
        let mut weighted = 0.0;
        let mut names = 0u32;
        let mut forward = 0u32;
        let mut backward = 0u32;
        for (ca, cb) in &shared {
            let df = f64::from(self.df.get(ca.entity as usize).copied().unwrap_or(2).max(1));
            weighted += (units / df).ln().max(0.0) + 0.1;
            if self.name.get(ca.entity as usize).copied().unwrap_or(false) {
                names += 1;
            }
            if ca.indefinite && !ca.definite && cb.definite && !cb.indefinite {
                forward += 1;
            }
            if ca.definite && !ca.indefinite && cb.indefinite && !cb.definite {
                backward += 1;
            }
        }
        f[21] = ln(weighted);
        f[22] = ln(f64::from(names));
        f[23] = ln(f64::from(forward));
        f[24] = ln(f64::from(backward));
        f
    }

    /// Surface forms of the entities shared by `from` and `to`, most prominent first.
    pub fn shared_surfaces(&self, from: usize, to: usize) -> Vec<String> {
        let mut shared = self.shared(from, to);
        shared.sort_by(|(a1, b1), (a2, b2)| {
            let p1 = (b1.role.max(a1.role), b1.role.min(a1.role));
            let p2 = (b2.role.max(a2.role), b2.role.min(a2.role));
            p2.cmp(&p1)
                .then_with(|| {
                    let n1 = self.name.get(a1.entity as usize).copied().unwrap_or(false);
                    let n2 = self.name.get(a2.entity as usize).copied().unwrap_or(false);
                    n2.cmp(&n1)
                })
                .then_with(|| a1.entity.cmp(&a2.entity))
        });
        shared
            .into_iter()
            .filter_map(|(c, _)| {
                let id = self.stem.get(c.entity as usize)?;
                self.vocabulary.surface(*id).map(str::to_string)
            })
            .collect()
    }
}

/// Sets of up to this many units cache every pair; larger sets (a whole document's sentences)
/// cache only the pairs near the diagonal ([`BAND`]), which is what the analysis reads
/// (adjacent transitions, the skip over a unit, intrusion windows), and compute the rest on
/// demand. A full `n × n` cache of a 500-sentence document is 2 MiB written before the first read.
const FULL_LIMIT: usize = 64;
/// How far from the diagonal a large set's cache reaches, in both directions.
const BAND: usize = 4;

/// A lazily filled cache of `f64` values over pairs of `n` units, safe to share between threads:
/// every pair for small sets, the band around the diagonal for large ones (see [`FULL_LIMIT`]).
pub(crate) struct LazyTable {
    n: usize,
    /// Cells per row: `n` (full) or `2 · BAND + 1` (band).
    width: usize,
    cells: Vec<AtomicU64>,
}

/// Bit pattern marking a cell not yet computed (a NaN no computation produces).
const EMPTY: u64 = 0x7FF8_DEAD_BEEF_0001;

impl LazyTable {
    /// A cache for `n` units.
    pub(crate) fn new(n: usize) -> Self {
        let width = if n <= FULL_LIMIT { n } else { 2 * BAND + 1 };
        let cells = (0..n * width).map(|_| AtomicU64::new(EMPTY)).collect();
        LazyTable { n, width, cells }
    }

    /// The cell of (`from`, `to`), if the cache holds that pair.
    fn cell(&self, from: usize, to: usize) -> Option<&AtomicU64> {
        if from >= self.n || to >= self.n {
            return None;
        }
        let column = if self.width == self.n {
            to
        } else {
            let offset = to as isize - from as isize;
            if offset.unsigned_abs() > BAND {
                return None;
            }
            (offset + BAND as isize) as usize
        };
        self.cells.get(from * self.width + column)
    }

    /// The value at (`from`, `to`), computed by `f` on first use (on every use for pairs the
    /// cache does not hold).
    pub(crate) fn get(&self, from: usize, to: usize, f: impl FnOnce() -> f64) -> f64 {
        let Some(cell) = self.cell(from, to) else {
            return f();
        };
        let bits = cell.load(Ordering::Relaxed);
        if bits != EMPTY {
            return f64::from_bits(bits);
        }
        let v = f();
        cell.store(v.to_bits(), Ordering::Relaxed);
        v
    }
}

/// The entity-grid transition table of one document at one level.
pub(crate) struct GridPairs<'a> {
    grid: Grid,
    model: &'a Logistic,
    logits: LazyTable,
}

impl<'a> GridPairs<'a> {
    fn new(grid: Grid, model: &'a Logistic) -> Self {
        let logits = LazyTable::new(grid.len());
        GridPairs {
            grid,
            model,
            logits,
        }
    }

    /// The model's log-odds that `to` directly follows `from`.
    pub(crate) fn logit(&self, from: usize, to: usize) -> f64 {
        if from >= self.grid.len() || to >= self.grid.len() {
            return 0.0;
        }
        self.logits.get(from, to, || {
            let z = self.model.logit(&self.grid.features(from, to));
            if z.is_finite() {
                z.clamp(-30.0, 30.0)
            } else {
                0.0
            }
        })
    }
}

impl Pairwise for GridPairs<'_> {
    fn len(&self) -> usize {
        self.grid.len()
    }

    fn transition(&self, from: usize, to: usize) -> f64 {
        if from >= self.grid.len() || to >= self.grid.len() {
            return 0.0;
        }
        sigmoid(self.logit(from, to))
    }

    fn reason(&self, from: usize, to: usize) -> Reason {
        Reason {
            shared: self.grid.shared_surfaces(from, to),
            note: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lazy_table_caches_every_pair_of_small_sets_and_the_band_of_large_ones() {
        use std::cell::Cell;
        for n in [5, FULL_LIMIT + 30] {
            let table = LazyTable::new(n);
            let computed = Cell::new(0);
            for _ in 0..2 {
                for i in 0..n {
                    for j in 0..n {
                        let v = table.get(i, j, || {
                            computed.set(computed.get() + 1);
                            (i * 1000 + j) as f64
                        });
                        assert_eq!(v, (i * 1000 + j) as f64);
                    }
                }
            }
            if n <= FULL_LIMIT {
                assert_eq!(computed.get(), n * n, "n = {n}: every pair once");
            } else {
                // Pairs in the band once; the others on each of the two passes.
                let band: usize = (0..n)
                    .map(|i| (0..n).filter(|&j| i.abs_diff(j) <= BAND).count())
                    .sum();
                assert_eq!(computed.get(), band + 2 * (n * n - band), "n = {n}");
            }
        }
    }

    #[test]
    fn one_enormous_sentence_is_read_in_linear_time() {
        // 60,000 words and no verb: each word used to scan every token of the sentence, which
        // took minutes here; one pass is instant.
        let sentence = "penguin tomato garden ".repeat(20_000);
        let found = mentions(&sentence);
        assert_eq!(found.len(), 60_000);
        assert!(found.iter().all(|m| m.role == Role::Subject));
    }

    #[test]
    fn embedded_weights_load_and_match_the_features() {
        let w = EntityGridWeights::from_json(EMBEDDED).expect("embedded entity-grid weights");
        assert_eq!(w.sentence.features.len(), FEATURE_COUNT);
        assert_eq!(feature_names().len(), FEATURE_COUNT);
        assert_ne!(
            w.sentence.weights,
            vec![0.0; FEATURE_COUNT],
            "weights are trained"
        );
    }

    #[test]
    fn verbs_are_sorted_for_binary_search() {
        assert!(VERBS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn roles_follow_position_cues() {
        let sentence = "The parser reads the file from the disk.";
        let (m, t) = (mentions(sentence), tokens(sentence));
        let role = |s: &str| {
            t.iter()
                .zip(m.iter())
                .find(|(t, _)| t.surface == s)
                .map(|(_, m)| m.role)
        };
        assert_eq!(role("parser"), Some(Role::Subject));
        assert_eq!(role("file"), Some(Role::Object));
        assert_eq!(role("disk"), Some(Role::Other));
    }

    #[test]
    fn grid_links_shared_entities_and_explains_them() {
        let units = vec![
            vec!["A parser was written for the Markdown files."],
            vec!["The parser reads Markdown quickly."],
            vec!["Bananas grow in warm climates."],
        ];
        let grid = Grid::build(&units);
        let shared = grid.shared_surfaces(0, 1);
        assert!(shared.iter().any(|s| s == "parser"), "{shared:?}");
        assert!(grid.shared_surfaces(1, 2).is_empty());
        let f = grid.features(0, 1);
        assert!(f[23] > 0.0, "indefinite then definite: {f:?}");
        assert!(grid.features(1, 0)[24] > 0.0);
        let s = EntityGrid::trained();
        let p = s.prepare(&units, Level::Sentence);
        for i in 0..3 {
            for j in 0..3 {
                let t = p.transition(i, j);
                assert!((0.0..=1.0).contains(&t));
            }
        }
        assert!(p.transition(0, 1) > p.transition(1, 2));
        assert_eq!(p.transition(7, 1), 0.0);
        assert!(p.reason(5, 9).shared.is_empty());
    }

    #[test]
    fn a_grid_reads_the_mentions_of_the_units_it_is_asked_about_only() {
        let units = vec![
            vec!["A parser was written for the Markdown files."],
            vec!["The parser reads Markdown quickly."],
            vec!["Bananas grow in warm climates."],
            vec!["The bananas ripen in the sun."],
        ];
        let grid = Grid::build(&units);
        let features = grid.features(2, 3);
        let read = grid.units.iter().filter(|c| c.get().is_some()).count();
        assert_eq!(read, 2);
        // Counted over the whole level all the same: "parser" is salient (two units).
        assert_eq!(grid.salient.iter().filter(|&&s| s).count(), 3, "{grid:?}");
        let full = Grid::build(&units);
        for u in 0..units.len() {
            let _ = full.cells(u);
        }
        assert_eq!(full.features(2, 3), features);
    }

    #[test]
    fn empty_and_odd_input_never_panics() {
        let s = EntityGrid::trained();
        let units: Vec<Unit> = vec![vec![], vec![""], vec!["!!! ???"], vec!["ÉÉ ÉÉ 42 ’’"]];
        for level in [Level::Sentence, Level::Paragraph] {
            let p = s.prepare(&units, level);
            for i in 0..4 {
                for j in 0..4 {
                    assert!((0.0..=1.0).contains(&p.transition(i, j)));
                    let _ = p.reason(i, j);
                }
            }
        }
        assert_eq!(s.prepare(&[], Level::Sentence).len(), 0);
    }
}
