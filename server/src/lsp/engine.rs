//! Incremental, cancellable analysis of one open document.
//!
//! An [`Engine`] belongs to one document and keeps a cache of transition scores between runs,
//! keyed by (scorer, level, hash of the *from* unit's clean text, hash of the *to* unit's clean
//! text, context). A run ([`Engine::run`]) segments the text (with the engine's [`Segmenter`],
//! which after a keystroke in a Markdown paragraph parses that paragraph only), looks every
//! adjacent transition up in the cache, and asks the scorer only for the ones it misses:
//!
//! - for a scorer whose pair scores depend on the two units alone ([`ContextPolicy::Pairwise`]:
//!   `lexical`, `lexical-noun`) the context is 0, and the scorer prepares only the units of the
//!   missed pairs, so an edit re-scores just the transitions into and out of the edited units;
//! - for a scorer that reads document-wide statistics ([`ContextPolicy::Document`]: `tier0` and
//!   `entity-grid` use entity salience and rarity over all units of the level, and unknown scorers
//!   are assumed to), the context is the two units' fingerprints when the scorer gives them
//!   ([`Scorer::unit_contexts`]: `tier0` hashes, per unit, the level statistics its words read),
//!   else a hash of every unit text at that level. With fingerprints an edit re-scores the
//!   transitions around the edited unit and those of units whose words' statistics it changed;
//!   without, every transition of a level in which a unit changed. A miss prepares the full
//!   level with its containers, exactly as [`crate::score::analysis::analyze`] does
//!   ([`Scorer::prepare_in`]; cheap after the first run: the
//!   scorers memoize what they read from each sentence and unit, [`crate::text::memo`], and
//!   `tier0`'s and the entity grid's tables count the level's statistics but read a unit only
//!   when a pair that needs it is scored, so only the units around the missed pairs). Edits
//!   that change no unit text (markup, code blocks, whitespace, line wrapping, a disable comment)
//!   re-score nothing.
//!
//! Only the judged transitions carry a reason; the skip pairs are cached by score alone.
//!
//! The sentence and paragraph levels are prepared and scored in parallel (`rayon::join`), and so
//! are their units' cache keys (the fingerprints read the whole level); the section openings and
//! the line index are made while the levels are scored. A level with many missing pairs (an
//! edit that changed the number of units changes all of `tier0`'s) is scored in chunks on the
//! pool, each with the caller's model cancellation token.
//! Either way a run gives the same scores as `analyze` on the same text (tested), so the editor and
//! `segue check` agree. Cancellation is cooperative: the caller passes a closure that says whether a
//! newer edit superseded this run; it is checked between stages and every [`CANCEL_CHECK_EVERY`]
//! scored transitions. Inside a tier-1 scorer, the models check the [`crate::model::CancelToken`]
//! the caller installed with [`crate::model::cancel::scope`] before every inference batch (the
//! engine passes it on to the threads it scores the levels on), so a superseded model stage stops
//! after the batch in progress.
//!
//! The result, [`Analyzed`], is an immutable snapshot shared by diagnostics, hover and code actions;
//! reorder proposals ([`crate::order::reorder`], shared with `segue reorder`) are computed on
//! first request and memoized in it.

use crate::model::cancel::scope;
use crate::order::reorder::Judge;
pub use crate::order::reorder::{Container, Proposal};
use crate::score::analysis::{
    document_level, paragraph_containers, paragraph_pairs, paragraph_units, sentence_containers,
    sentence_pairs, sentence_units, skip_pairs, unit_link, Analysis, Figures, Transition, UnitRef,
    Whole,
};
use crate::score::findings::{
    companion_analysis, findings_with, Calibration, Finding, Sensitivity,
};
use crate::score::novelty::novelty;
use crate::score::{IntrusionSource, Level, Pairwise, Reason, Scorer, Unit};
use crate::text::{Document, Format, LineIndex, Segmenter};
use ahash::{AHashMap as HashMap, AHasher};
use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// How often (in scored transitions) a run checks for cancellation.
pub const CANCEL_CHECK_EVERY: usize = 32;

/// The run was superseded by a newer edit or settings change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("analysis cancelled: a newer edit superseded it")]
pub struct Cancelled;

pub use crate::score::ContextPolicy;

/// What to analyze.
#[derive(Clone)]
pub struct Job {
    /// Document version this text belongs to.
    pub version: i32,
    /// The text.
    pub text: Arc<str>,
    /// The format to segment it as; `None` when the document is not checked.
    pub format: Option<Format>,
    /// Why the document is not checked, when it is not (shown in hover and logs).
    pub skip: Option<String>,
    /// The reporting scorer.
    pub scorer: Arc<dyn Scorer>,
    /// The judge of reorder proposals (code actions).
    pub judge: Judge,
    /// Cache policy for the scorer.
    pub policy: ContextPolicy,
    /// Score percentiles for the findings rule.
    pub calibration: Arc<Calibration>,
    /// Sensitivity for the findings rule.
    pub sensitivity: Sensitivity,
}

/// Counters of one run, for logs and the latency test.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct RunStats {
    /// Transitions whose score came from the cache.
    pub reused: usize,
    /// Transitions the scorer computed.
    pub scored: usize,
    /// Units the scorer prepared.
    pub prepared_units: usize,
    /// Whether the whole text was segmented (not only the paragraph an edit was in,
    /// [`Segmenter`]).
    pub parsed_whole: bool,
    /// Wall time of the run in microseconds.
    pub micros: u64,
}

/// An analyzed snapshot of one document version.
pub struct Analyzed {
    /// The document version analyzed.
    pub version: i32,
    /// The scheduling generation that produced it (for pull-diagnostic result ids).
    pub generation: u64,
    /// The analyzed text.
    pub text: Arc<str>,
    /// Line index of `text`.
    pub line_index: LineIndex,
    /// The format, or `None` when the document is not checked.
    pub format: Option<Format>,
    /// Why the document was not checked, if it was not.
    pub skip: Option<String>,
    /// The segmented document (empty when not checked).
    pub document: Document,
    /// Every transition's score.
    pub analysis: Analysis,
    /// The weak transitions.
    pub findings: Vec<Finding>,
    /// The scorer that produced the scores.
    pub scorer: Arc<dyn Scorer>,
    /// The judge of reorder proposals.
    pub judge: Judge,
    /// The cache policy used.
    pub policy: ContextPolicy,
    /// Counters of the run.
    pub stats: RunStats,
    proposals: Mutex<HashMap<Container, Option<Arc<Proposal>>>>,
}

impl std::fmt::Debug for Analyzed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analyzed")
            .field("version", &self.version)
            .field("generation", &self.generation)
            .field("scorer", &self.scorer.name())
            .field("findings", &self.findings.len())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct PairKey {
    scorer: &'static str,
    level: Level,
    from: u64,
    to: u64,
    context: u64,
}

#[derive(Debug, Clone)]
struct CachedPair {
    score: f64,
    /// `None` for pairs scored without their reason (skip and window pairs).
    reason: Option<Reason>,
    last_run: u64,
}

/// A level's whole-document scores: the scorer's score of the units in document order, its
/// figures (BBScore's `B`) and each unit's intrusion score, where the scorer has them.
#[derive(Debug, Clone, Default)]
struct DocumentScores {
    whole: Option<f64>,
    figures: Vec<(&'static str, f64)>,
    intrusion: Option<Vec<Option<f64>>>,
}

impl DocumentScores {
    /// The scores of a table prepared from all of a level's units, in document order.
    fn of(table: &dyn Pairwise, level: Level) -> Self {
        let mut whole = Whole::new();
        let mut figures = Figures::new();
        document_level(table, level, &mut whole, &mut figures);
        DocumentScores {
            whole: whole.first().map(|&(_, w)| w),
            figures: figures.into_iter().map(|(_, k, v)| (k, v)).collect(),
            intrusion: table.intrusion(),
        }
    }
}

/// A level's [`DocumentScores`], cached by the scorer and the texts of all the level's units.
#[derive(Debug, Clone)]
struct CachedDocument {
    scorer: &'static str,
    units: u64,
    scores: DocumentScores,
}

/// Per-document analysis state: the transition-score cache, and the last whole-document scores
/// per level for scorers that have them ([`Scorer::scores_documents`], [`Scorer::has_intrusion`]).
#[derive(Debug, Default)]
pub struct Engine {
    scores: HashMap<PairKey, CachedPair>,
    documents: HashMap<Level, CachedDocument>,
    /// The last text's parser blocks: an edit inside one paragraph parses that paragraph only.
    segmenter: Segmenter,
    run: u64,
}

impl Engine {
    /// A fresh engine with an empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of cached transition scores.
    pub fn cached(&self) -> usize {
        self.scores.len()
    }

    /// Analyzes `job.text`. `cancelled` is polled between stages; a `true` answer abandons the
    /// run (scores computed so far stay cached: they are keyed by content, so still valid).
    pub fn run(
        &mut self,
        job: &Job,
        generation: u64,
        cancelled: &(dyn Fn() -> bool + Sync),
    ) -> Result<Analyzed, Cancelled> {
        let started = Instant::now();
        self.run += 1;
        let mut stats = RunStats::default();
        let check = || if cancelled() { Err(Cancelled) } else { Ok(()) };
        let document = match job.format {
            Some(format) if job.skip.is_none() => self.segmenter.parse(&job.text, format),
            _ => Document::default(),
        };
        stats.parsed_whole = !self.segmenter.reused();
        check()?;
        let scorer = job.scorer.as_ref();
        let (sentence_refs, sentence_units) = sentence_units(&document);
        let sentence_pairs = sentence_pairs(&document, &sentence_refs);
        let (paragraph_refs, paragraph_units) = paragraph_units(&document);
        let paragraph_pairs = paragraph_pairs(&document, &paragraph_refs);
        // Score the adjacent pairs and the skip pairs (a unit left out), in one plan per level.
        let sentence_all = wanted(&sentence_pairs);
        let paragraph_all = wanted(&paragraph_pairs);
        // Each unit's text hash and context, for both levels at once (the contexts read the
        // whole level).
        let (sentence_keys, paragraph_keys) = rayon::join(
            || UnitKeys::of(job, Level::Sentence, &sentence_units),
            || UnitKeys::of(job, Level::Paragraph, &paragraph_units),
        );
        let sentence_plan = self.plan(
            job,
            Level::Sentence,
            &sentence_units,
            sentence_keys,
            sentence_all,
            sentence_containers(&document),
        );
        let paragraph_plan = self.plan(
            job,
            Level::Paragraph,
            &paragraph_units,
            paragraph_keys,
            paragraph_all,
            paragraph_containers(&document),
        );
        // The two levels are independent: prepare and score them in parallel, each with the
        // job's model cancellation token (it is per thread).
        let sentence_token = crate::model::cancel::current();
        let paragraph_token = sentence_token.clone();
        // The section openings and the line index read the document and the text only: they
        // are made meanwhile.
        let ((sentence_new, paragraph_new), (openings, line_index)) = rayon::join(
            || {
                rayon::join(
                    || scope(sentence_token, || compute(scorer, &sentence_plan, &check)),
                    || scope(paragraph_token, || compute(scorer, &paragraph_plan, &check)),
                )
            },
            || {
                (
                    crate::score::opening::openings(&document),
                    LineIndex::new(&job.text),
                )
            },
        );
        let (sentence_new, sentence_doc) = sentence_new?;
        let (paragraph_new, paragraph_doc) = paragraph_new?;
        let sentence_scores = self.store(sentence_plan, sentence_new, &mut stats);
        let paragraph_scores = self.store(paragraph_plan, paragraph_new, &mut stats);
        check()?;
        let mut whole = Whole::new();
        let mut figures = Figures::new();
        let mut intrusion = [None, None];
        for (k, level, units, computed) in [
            (0, Level::Sentence, &sentence_units, sentence_doc),
            (1, Level::Paragraph, &paragraph_units, paragraph_doc),
        ] {
            match source(scorer, level) {
                Source::Document => {
                    let doc = self.document(scorer, level, units, computed, &check)?;
                    whole.extend(doc.whole.map(|w| (level, w)));
                    figures.extend(doc.figures.iter().map(|&(k, v)| (level, k, v)));
                    intrusion[k] = doc.intrusion;
                    check()?;
                }
                Source::Nothing => {
                    self.documents.remove(&level);
                }
            }
        }
        let [sentence_intrusion, paragraph_intrusion] = intrusion;
        check()?;
        let analysis = Analysis {
            scorer: scorer.name(),
            tier: scorer.tier(),
            sentences: transitions(
                Level::Sentence,
                &sentence_refs,
                &sentence_units,
                &sentence_pairs,
                sentence_scores,
                sentence_intrusion.as_deref(),
                &document.code,
            ),
            paragraphs: transitions(
                Level::Paragraph,
                &paragraph_refs,
                &paragraph_units,
                &paragraph_pairs,
                paragraph_scores,
                paragraph_intrusion.as_deref(),
                &document.code,
            ),
            whole,
            figures,
            openings,
        };
        // A scorer whose verdict weighs a built-in companion's (`embedding` with `tier0`) gets the
        // companion's analysis of the same text: a whole tier-0 pass, a few milliseconds per
        // thousand words, on the model stage only.
        let companion = companion_analysis(&document, scorer.name());
        check()?;
        let found = findings_with(
            &analysis,
            companion.as_ref(),
            &job.calibration,
            job.sensitivity,
        );
        // Keep what this run or the previous one used; drop the rest.
        let run = self.run;
        self.scores.retain(|_, c| c.last_run + 1 >= run);
        stats.micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        Ok(Analyzed {
            version: job.version,
            generation,
            line_index,
            text: job.text.clone(),
            format: job.format,
            skip: job.skip.clone(),
            document,
            analysis,
            findings: found,
            scorer: job.scorer.clone(),
            judge: job.judge.clone(),
            policy: job.policy,
            stats,
            proposals: Mutex::new(HashMap::new()),
        })
    }

    /// The whole-document scores of one level (all `units` in document order): from the cache
    /// while no unit text at that level changed, else `computed` (scored from the table this run
    /// prepared for the level's transitions, when it prepared the whole level), else from a freshly
    /// prepared table (the encoder's own cache makes that cheap: only changed units are embedded).
    /// A table prepared while the run was cancelled is not kept (its model may have stopped
    /// mid-way and fallen back).
    fn document(
        &mut self,
        scorer: &dyn Scorer,
        level: Level,
        units: &[Unit<'_>],
        computed: Option<DocumentScores>,
        check: &dyn Fn() -> Result<(), Cancelled>,
    ) -> Result<DocumentScores, Cancelled> {
        let mut h = AHasher::default();
        for u in units {
            unit_hash(u).hash(&mut h);
        }
        let key = h.finish();
        if let Some(c) = self.documents.get(&level) {
            if c.scorer == scorer.name() && c.units == key {
                return Ok(c.scores.clone());
            }
        }
        let scores = computed
            .unwrap_or_else(|| DocumentScores::of(scorer.prepare(units, level).as_ref(), level));
        check()?;
        self.documents.insert(
            level,
            CachedDocument {
                scorer: scorer.name(),
                units: key,
                scores: scores.clone(),
            },
        );
        Ok(scores)
    }

    /// Looks the transitions of `wanted` (index pairs into `units`) up in the cache.
    fn plan<'u>(
        &mut self,
        job: &Job,
        level: Level,
        units: &[Unit<'u>],
        keys: UnitKeys,
        wanted: Wanted,
        containers: Vec<Range<usize>>,
    ) -> Plan<'u> {
        let Wanted {
            pairs,
            reasons: with_reason,
        } = wanted;
        let UnitKeys { hashes, contexts } = keys;
        let context = |a: usize, b: usize| match &contexts {
            None => 0,
            Some(Err(level)) => *level,
            Some(Ok(units)) => {
                let mut h = AHasher::default();
                (units.get(a), units.get(b)).hash(&mut h);
                h.finish()
            }
        };
        let keys: Vec<PairKey> = pairs
            .iter()
            .map(|&(a, b)| PairKey {
                scorer: job.scorer.name(),
                level,
                from: hashes.get(a).copied().unwrap_or(0),
                to: hashes.get(b).copied().unwrap_or(0),
                context: context(a, b),
            })
            .collect();
        let run = self.run;
        let mut out = Vec::with_capacity(pairs.len());
        let mut missing = Vec::new();
        for (k, key) in keys.iter().enumerate() {
            let reason = with_reason.get(k).copied().unwrap_or(true);
            match self.scores.get_mut(key) {
                // A pair scored without its reason is scored again when it needs one.
                Some(c) if c.reason.is_some() || !reason => {
                    c.last_run = run;
                    out.push(Some((c.score, c.reason.clone())));
                }
                _ => {
                    out.push(None);
                    missing.push(k);
                }
            }
        }
        // Which units to prepare, and where each unit index lands in the table.
        let whole_level = !missing.is_empty() && job.policy == ContextPolicy::Document;
        let (table_units, local): (Vec<Unit<'u>>, HashMap<usize, usize>) = if missing.is_empty() {
            (Vec::new(), HashMap::new())
        } else {
            match job.policy {
                ContextPolicy::Document => {
                    (units.to_vec(), (0..units.len()).map(|i| (i, i)).collect())
                }
                ContextPolicy::Pairwise => {
                    let mut local = HashMap::new();
                    let mut table_units = Vec::new();
                    for &k in &missing {
                        let Some(&(a, b)) = pairs.get(k) else {
                            continue;
                        };
                        for i in [a, b] {
                            if let (std::collections::hash_map::Entry::Vacant(e), Some(u)) =
                                (local.entry(i), units.get(i))
                            {
                                e.insert(table_units.len());
                                table_units.push(u.clone());
                            }
                        }
                    }
                    (table_units, local)
                }
            }
        };
        Plan {
            level,
            pairs,
            reasons: with_reason,
            keys,
            out,
            missing,
            table_units,
            whole_level,
            containers,
            local,
        }
    }

    /// Stores computed scores in the cache and completes the plan's results: the score and
    /// reason of each of its pairs.
    fn store(
        &mut self,
        mut plan: Plan<'_>,
        computed: Scored,
        stats: &mut RunStats,
    ) -> Vec<(f64, Reason)> {
        stats.reused += plan.pairs.len() - plan.missing.len();
        stats.scored += computed.len();
        stats.prepared_units += plan.table_units.len();
        let run = self.run;
        for (k, score, reason) in computed {
            if let Some(key) = plan.keys.get(k) {
                self.scores.insert(
                    key.clone(),
                    CachedPair {
                        score,
                        reason: reason.clone(),
                        last_run: run,
                    },
                );
            }
            if let Some(slot) = plan.out.get_mut(k) {
                *slot = Some((score, reason));
            }
        }
        plan.out
            .into_iter()
            .map(|o| {
                let (score, reason) = o.unwrap_or((0.0, None));
                (score, reason.unwrap_or_default())
            })
            .collect()
    }
}

/// What a level's cache keys are made of: each unit's text hash and what beyond the two units a
/// pair's score depends on (nothing, the fingerprints the scorer gives each unit, or, when it
/// gives none, every unit of the level: `Err` with their hash).
struct UnitKeys {
    hashes: Vec<u64>,
    contexts: Option<Result<Vec<u64>, u64>>,
}

impl UnitKeys {
    fn of(job: &Job, level: Level, units: &[Unit<'_>]) -> UnitKeys {
        let hashes: Vec<u64> = units.iter().map(|u| unit_hash(u)).collect();
        let contexts = match job.policy {
            ContextPolicy::Pairwise => None,
            ContextPolicy::Document => Some(
                job.scorer
                    .unit_contexts(units, level)
                    .filter(|c| c.len() == units.len())
                    .ok_or_else(|| {
                        let mut h = AHasher::default();
                        hashes.hash(&mut h);
                        h.finish()
                    }),
            ),
        };
        UnitKeys { hashes, contexts }
    }
}

/// Where a run gets a level's intrusion scores and whole-document scores.
enum Source {
    /// Neither.
    Nothing,
    /// From a table of the whole level ([`Engine::document`]).
    Document,
}

fn source(scorer: &dyn Scorer, level: Level) -> Source {
    if scorer.scores_documents() {
        return Source::Document;
    }
    match scorer.intrusion_source(level) {
        IntrusionSource::None => Source::Nothing,
        IntrusionSource::Table => Source::Document,
    }
}

/// The pairs a run scores at one level, and which of them need a reason.
struct Wanted {
    pairs: Vec<(usize, usize)>,
    reasons: Vec<bool>,
}

/// The level's judged transitions `pairs` (with reasons) and their skip pairs ([`skip_pairs`]).
fn wanted(pairs: &[(usize, usize)]) -> Wanted {
    let mut all = pairs.to_vec();
    all.extend(skip_pairs(pairs).into_iter().map(|(_, p)| p));
    let mut reasons = vec![true; pairs.len()];
    reasons.resize(all.len(), false);
    Wanted {
        pairs: all,
        reasons,
    }
}

/// The cache lookups of one level and what is left to score.
struct Plan<'u> {
    level: Level,
    pairs: Vec<(usize, usize)>,
    /// Per pair, whether it needs a reason (the judged transitions, not the skip pairs).
    reasons: Vec<bool>,
    keys: Vec<PairKey>,
    out: Vec<Option<(f64, Option<Reason>)>>,
    missing: Vec<usize>,
    table_units: Vec<Unit<'u>>,
    /// Whether `table_units` are all the level's units in document order.
    whole_level: bool,
    /// The level's containers ([`Scorer::prepare_in`]), for a table of the whole level.
    containers: Vec<Range<usize>>,
    local: HashMap<usize, usize>,
}

/// Scored transitions of a plan: `(index into pairs, score, reason when it needs one)`.
type Scored = Vec<(usize, f64, Option<Reason>)>;

/// Scores a plan's missing transitions. When the plan prepares the whole level and the scorer has
/// whole-document scores, they come from the same table (`Some`), so a run prepares it once.
fn compute(
    scorer: &dyn Scorer,
    plan: &Plan<'_>,
    check: &(dyn Fn() -> Result<(), Cancelled> + Sync),
) -> Result<(Scored, Option<DocumentScores>), Cancelled> {
    if plan.missing.is_empty() {
        return Ok((Vec::new(), None));
    }
    check()?;
    let table = if plan.whole_level {
        scorer.prepare_in(&plan.table_units, plan.level, &plan.containers)
    } else {
        scorer.prepare(&plan.table_units, plan.level)
    };
    check()?;
    let document = (plan.whole_level && matches!(source(scorer, plan.level), Source::Document))
        .then(|| DocumentScores::of(table.as_ref(), plan.level));
    let table = table.as_ref();
    // A run that re-scores a whole level (an edit that changed the number of units changes
    // every `tier0` transition) spreads the pairs over the pool; each pair's score is its own,
    // so the order they are scored in changes nothing.
    if plan.missing.len() >= PARALLEL_FROM {
        use rayon::prelude::*;
        let token = crate::model::cancel::current();
        let chunks: Vec<Result<Scored, Cancelled>> = plan
            .missing
            .par_chunks(CANCEL_CHECK_EVERY * 8)
            .map(|chunk| {
                check()?;
                scope(token.clone(), || score_pairs(plan, table, chunk, check))
            })
            .collect();
        let mut out = Vec::with_capacity(plan.missing.len());
        for chunk in chunks {
            out.extend(chunk?);
        }
        return Ok((out, document));
    }
    Ok((score_pairs(plan, table, &plan.missing, check)?, document))
}

/// Fewest missing pairs for which [`compute`] scores in parallel.
const PARALLEL_FROM: usize = 1024;

/// Scores the plan's pairs `missing` (indices into its pairs) with `table`.
fn score_pairs(
    plan: &Plan<'_>,
    table: &dyn Pairwise,
    missing: &[usize],
    check: &(dyn Fn() -> Result<(), Cancelled> + Sync),
) -> Result<Scored, Cancelled> {
    let mut out = Vec::with_capacity(missing.len());
    for (n, &k) in missing.iter().enumerate() {
        if n % CANCEL_CHECK_EVERY == CANCEL_CHECK_EVERY - 1 {
            check()?;
        }
        let Some(&(a, b)) = plan.pairs.get(k) else {
            continue;
        };
        let (Some(&la), Some(&lb)) = (plan.local.get(&a), plan.local.get(&b)) else {
            continue;
        };
        let reason = plan
            .reasons
            .get(k)
            .copied()
            .unwrap_or(true)
            .then(|| table.reason(la, lb));
        out.push((k, table.transition(la, lb), reason));
    }
    Ok(out)
}

impl Analyzed {
    /// The transition into and out of the unit `at` (`None` where there is none).
    pub fn transitions_around(
        &self,
        level: Level,
        at: &UnitRef,
    ) -> (Option<&Transition>, Option<&Transition>) {
        let same = |u: &UnitRef| {
            u.section == at.section && u.paragraph == at.paragraph && u.sentence == at.sentence
        };
        let list = self.analysis.at(level);
        (
            list.iter().find(|t| same(&t.to)),
            list.iter().find(|t| same(&t.from)),
        )
    }

    /// The reorder proposal for `container` ([`crate::order::reorder::propose`], the same as
    /// `segue reorder`), computed on first request and memoized. `None` when the container has
    /// fewer than two or too many units.
    pub fn proposal(&self, container: Container) -> Option<Arc<Proposal>> {
        if let Ok(memo) = self.proposals.lock() {
            if let Some(p) = memo.get(&container) {
                return p.clone();
            }
        }
        let computed = self
            .judge
            .propose(&self.document, &self.text, container)
            .map(Arc::new);
        if let Ok(mut memo) = self.proposals.lock() {
            memo.insert(container, computed.clone());
        }
        computed
    }
}

/// Hash of a unit's clean text (its sentences, in order).
fn unit_hash(unit: &[&str]) -> u64 {
    let mut h = AHasher::default();
    unit.len().hash(&mut h);
    for s in unit {
        s.hash(&mut h);
    }
    h.finish()
}

fn transitions(
    level: Level,
    refs: &[(UnitRef, bool)],
    units: &[Unit<'_>],
    pairs: &[(usize, usize)],
    scores: Vec<(f64, Reason)>,
    intrusion: Option<&[Option<f64>]>,
    code: &[String],
) -> Vec<Transition> {
    let novelty = novelty(units, code);
    // `scores` holds the adjacent pairs first, then the skip pairs in `skip_pairs` order.
    let skips: Vec<(usize, f64)> = skip_pairs(pairs)
        .into_iter()
        .zip(scores.iter().skip(pairs.len()))
        .map(|((k, _), (score, _))| (k, *score))
        .collect();
    let mut out: Vec<Option<Transition>> = pairs
        .iter()
        .zip(scores)
        .map(|(&(a, b), (score, reason))| {
            let (from, _) = refs.get(a)?;
            let (to, disabled) = refs.get(b)?;
            Some(Transition {
                level,
                from: *from,
                to: *to,
                score,
                reason,
                disabled: *disabled,
                skip: None,
                intrusion: intrusion.and_then(|v| v.get(b).copied().flatten()),
                link: units.get(b).and_then(|u| unit_link(units.get(a), u)),
                novelty: novelty.get(b).copied().flatten(),
            })
        })
        .collect();
    for (k, score) in skips {
        if let Some(Some(t)) = out.get_mut(k) {
            t.skip = Some(score);
        }
    }
    out.into_iter().flatten().collect()
}

/// Runs a job once with a throwaway engine and no cancellation (for files not open in the editor).
pub fn analyze_once(job: &Job) -> Analyzed {
    let mut engine = Engine::new();
    match engine.run(job, 0, &|| false) {
        Ok(a) => a,
        // Unreachable: the closure never cancels. Fall back to an empty analysis all the same.
        Err(Cancelled) => empty(job),
    }
}

/// An analysis with nothing in it, for a document that is not checked.
pub fn empty(job: &Job) -> Analyzed {
    Analyzed {
        version: job.version,
        generation: 0,
        line_index: LineIndex::new(&job.text),
        text: job.text.clone(),
        format: job.format,
        skip: job.skip.clone(),
        document: Document::default(),
        analysis: Analysis {
            scorer: job.scorer.name(),
            tier: job.scorer.tier(),
            sentences: Vec::new(),
            paragraphs: Vec::new(),
            whole: Vec::new(),
            figures: Vec::new(),
            openings: Vec::new(),
        },
        findings: Vec::new(),
        scorer: job.scorer.clone(),
        judge: job.judge.clone(),
        policy: job.policy,
        stats: RunStats::default(),
        proposals: Mutex::new(HashMap::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::analysis::analyze;
    use crate::score::ScorerSet;
    use crate::text::parse;

    fn job(text: &str, scorer: &str, policy: ContextPolicy) -> Job {
        let set = ScorerSet::builtin();
        Job {
            version: 1,
            text: Arc::from(text),
            format: Some(Format::Markdown),
            skip: None,
            scorer: set.get(scorer).expect("builtin scorer"),
            judge: Judge {
                scorer: set.get("tier0").expect("builtin scorer"),
                named: true,
            },
            policy,
            calibration: Arc::new(Calibration::shipped()),
            sensitivity: Sensitivity::Medium,
        }
    }

    const DOC: &str = "# Caches\n\nThe cache stores vectors. The cache evicts old vectors. Each cache entry holds vectors.\n\n\
        Penguins waddle across Antarctic ice. Krill feed the penguins.\n\n\
        The cache counts hits on vectors. The cache grows with vectors.\n\n# Other\n\nA section of its own. It has two sentences.\n";

    fn assert_same(a: &Analysis, b: &Analysis) {
        for level in [Level::Sentence, Level::Paragraph] {
            let (x, y) = (a.at(level), b.at(level));
            assert_eq!(x.len(), y.len(), "{level:?}");
            for (s, t) in x.iter().zip(y) {
                assert_eq!((s.from, s.to, s.disabled), (t.from, t.to, t.disabled));
                assert_eq!(s.skip.is_some(), t.skip.is_some());
                if let (Some(a), Some(b)) = (s.skip, t.skip) {
                    assert!((a - b).abs() < 1e-9, "skip {a} vs {b}");
                }
                assert!(
                    (s.score - t.score).abs() < 1e-9,
                    "{} vs {}",
                    s.score,
                    t.score
                );
                assert_eq!(s.reason.shared.len(), t.reason.shared.len());
                assert_eq!(s.intrusion, t.intrusion);
            }
        }
    }

    /// A scorer that prepares each container as a set of its own, as the ordering scorers do:
    /// every transition scores 1 / the number of units in the set it was prepared in.
    struct PerSet;

    struct PerSetPairs {
        /// Per unit, the size of its set (0 outside any).
        size: Vec<usize>,
        set: Vec<usize>,
    }

    impl Pairwise for PerSetPairs {
        fn len(&self) -> usize {
            self.size.len()
        }
        fn transition(&self, from: usize, to: usize) -> f64 {
            match (self.set.get(from), self.set.get(to), self.size.get(from)) {
                (Some(a), Some(b), Some(&n)) if a == b && n > 0 => 1.0 / n as f64,
                _ => 0.0,
            }
        }
        fn reason(&self, _: usize, _: usize) -> Reason {
            Reason::default()
        }
    }

    impl Scorer for PerSet {
        fn name(&self) -> &'static str {
            "per-set"
        }
        fn description(&self) -> &'static str {
            "test"
        }
        fn tier(&self) -> u8 {
            1
        }
        fn prepare<'a>(&'a self, units: &[Unit<'_>], _: Level) -> Box<dyn Pairwise + 'a> {
            let n = units.len();
            Box::new(PerSetPairs {
                size: vec![n; n],
                set: vec![0; n],
            })
        }
        fn prepare_in<'a>(
            &'a self,
            units: &[Unit<'_>],
            _: Level,
            containers: &[Range<usize>],
        ) -> Box<dyn Pairwise + 'a> {
            let mut pairs = PerSetPairs {
                size: vec![0; units.len()],
                set: (0..units.len()).map(|i| usize::MAX - i).collect(),
            };
            for (k, c) in containers.iter().enumerate() {
                for i in c.clone().filter(|&i| i < units.len()) {
                    pairs.size[i] = c.len();
                    pairs.set[i] = k;
                }
            }
            Box::new(pairs)
        }
    }

    #[test]
    fn prepares_the_containers_analyze_prepares() {
        let scorer: Arc<dyn Scorer> = Arc::new(PerSet);
        let mut engine = Engine::new();
        for text in [DOC.to_string(), DOC.replace("Krill feed", "Krill nourish")] {
            let j = Job {
                scorer: scorer.clone(),
                ..job(&text, "tier0", ContextPolicy::Document)
            };
            let got = engine.run(&j, 1, &|| false).expect("not cancelled");
            let want = analyze(&parse(&text, Format::Markdown), scorer.as_ref());
            // A paragraph of 3 sentences, a section of 3 paragraphs.
            assert_eq!(want.sentences[0].score, 1.0 / 3.0);
            assert_eq!(want.paragraphs[0].score, 1.0 / 3.0);
            assert_same(&got.analysis, &want);
        }
    }

    #[test]
    fn matches_analyze_for_every_builtin_scorer_across_edits() {
        let set = ScorerSet::builtin();
        for name in set.names() {
            let policy = set.get(name).expect("registered").context_policy();
            let mut engine = Engine::new();
            let edits = [
                DOC.to_string(),
                DOC.replace("Krill feed", "Krill nourish"),
                DOC.replace("Krill feed", "Krill nourish")
                    .replace("# Other", "# Other things"),
                DOC.replace(
                    "The cache grows with vectors.",
                    "The cache grows with vectors. So it does.",
                ),
            ];
            for text in &edits {
                let j = job(text, name, policy);
                let got = engine.run(&j, 1, &|| false).expect("not cancelled");
                let want = analyze(&parse(text, Format::Markdown), j.scorer.as_ref());
                assert_same(&got.analysis, &want);
            }
        }
    }

    /// Words the random edits draw from: some shared across the document's units (so an edit
    /// changes how many units use them), some new.
    const WORDS: &[&str] = &[
        "cache", "vectors", "penguins", "Krill", "ice", "the", "it", "However,", "parser", "NASA",
        "memory", "grows", "a", "This", "section",
    ];

    /// `text` after one random edit: a word replaced, inserted or deleted, a sentence added or
    /// removed, a paragraph break added, a keystroke (a letter typed or deleted anywhere: the
    /// segmenter's short way when it lands in a paragraph's words), a code block or a heading
    /// added at a line's start.
    fn random_edit(text: &str, rng: &mut impl rand::Rng) -> String {
        let bounds: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        let at = bounds[rng.gen_range(0..bounds.len())];
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        match rng.gen_range(0..12) {
            6 | 7 => {
                let mut out = text.to_string();
                out.insert(at, ['x', 'K', 'e', '7'][rng.gen_range(0..4)]);
                return out;
            }
            8 => {
                let mut out = text.to_string();
                if let Some((i, c)) = text[at..]
                    .char_indices()
                    .find(|(_, c)| c.is_ascii_alphanumeric())
                {
                    out.replace_range(at + i..at + i + c.len_utf8(), "");
                }
                return out;
            }
            9 => {
                let mut out = text.to_string();
                out.insert_str(line_start, "```\nthe cache code\n```\n\n");
                return out;
            }
            10 => {
                let mut out = text.to_string();
                out.insert_str(line_start, "## Penguins and caches\n\n");
                return out;
            }
            _ => {}
        }
        let words: Vec<&str> = text.split(' ').collect();
        let at = rng.gen_range(0..words.len());
        let word = WORDS[rng.gen_range(0..WORDS.len())];
        let mut out: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        match rng.gen_range(0..6) {
            0 if !out[at].contains('\n') && !out[at].contains('#') => out[at] = word.to_string(),
            1 => out.insert(at, word.to_string()),
            2 if out.len() > 20 && !out[at].contains('\n') && !out[at].contains('#') => {
                out.remove(at);
            }
            3 => out.insert(at, format!("{word} keeps the {word} here.")),
            4 => {
                let s = out.join(" ");
                return s.replacen(". ", ".\n\n", 1);
            }
            _ => {
                let s = out.join(" ");
                return match s.find(". ") {
                    Some(i) => format!("{}{}", &s[..i + 1], &s[(i + 1)..].replacen(". ", ".", 1)),
                    None => s,
                };
            }
        }
        out.join(" ")
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]
        /// After any sequence of edits, the engine (reusing what its caches hold) gives the
        /// scores, reasons and intrusion scores of a full analysis of the same text.
        #[test]
        fn matches_analyze_after_random_edit_sequences(seed in 0u64..u64::MAX) {
            use rand::SeedableRng;
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let set = ScorerSet::builtin();
            for name in ["tier0", "entity-grid", "lexical"] {
                let policy = set.get(name).expect("registered").context_policy();
                let mut engine = Engine::new();
                let mut text = DOC.to_string();
                for step in 0..10 {
                    let j = job(&text, name, policy);
                    let got = engine.run(&j, step, &|| false).expect("not cancelled");
                    let want = analyze(&parse(&text, Format::Markdown), j.scorer.as_ref());
                    assert_same(&got.analysis, &want);
                    for level in [Level::Sentence, Level::Paragraph] {
                        let reasons = |a: &Analysis| -> Vec<Reason> {
                            a.at(level).iter().map(|t| t.reason.clone()).collect()
                        };
                        proptest::prop_assert_eq!(reasons(&got.analysis), reasons(&want));
                    }
                    text = random_edit(&text, &mut rng);
                }
            }
        }
    }

    #[test]
    fn a_tier0_edit_rescores_only_the_transitions_whose_context_changed() {
        let text = format!(
            "{DOC}\nThe parser reads Markdown. It skips code blocks.\n\n\
             Rivers carry silt to the sea. The delta grows each year.\n\n\
             The parser keeps spans. Spans point into the source.\n\n\
             Bread needs flour and water. The dough rests overnight.\n"
        );
        let mut engine = Engine::new();
        let first = engine
            .run(&job(&text, "tier0", ContextPolicy::Document), 1, &|| false)
            .expect("run");
        // A word whose stem no other unit uses, changed into another such word: the statistics
        // of every other unit stay as they were.
        let edited = text.replace("Antarctic", "Arctic");
        let second = engine
            .run(&job(&edited, "tier0", ContextPolicy::Document), 2, &|| {
                false
            })
            .expect("run");
        let total = first.stats.scored;
        assert!(second.stats.scored > 0);
        assert!(
            second.stats.scored * 3 < total,
            "{:?} of {total}",
            second.stats
        );
        let want = analyze(
            &parse(&edited, Format::Markdown),
            ScorerSet::builtin().get("tier0").expect("tier0").as_ref(),
        );
        assert_same(&second.analysis, &want);
    }

    #[test]
    fn a_keystroke_in_a_paragraph_parses_that_paragraph_only() {
        let mut engine = Engine::new();
        let tier0 = |text: &str| job(text, "tier0", ContextPolicy::Document);
        engine.run(&tier0(DOC), 1, &|| false).expect("run");
        // One keystroke after another: typed inside a word, typed before one, deleted.
        for (k, edited) in [
            DOC.replace("Krill feed", "Krill fexed"),
            DOC.replace("Krill feed", "xKrill fexed"),
            DOC.replace("Krill feed", "xKrill fxed"),
        ]
        .iter()
        .enumerate()
        {
            let got = engine.run(&tier0(edited), k as u64 + 2, &|| false);
            let got = got.expect("run");
            assert!(engine.segmenter.reused(), "{edited}");
            let document = parse(edited, Format::Markdown);
            assert_eq!(got.document, document);
            let want = analyze(
                &document,
                ScorerSet::builtin().get("tier0").expect("tier0").as_ref(),
            );
            assert_same(&got.analysis, &want);
        }
        // A new paragraph is not a keystroke in one: the whole text is parsed.
        let split = DOC.replace("Krill feed", "\n\nKrill feed");
        engine.run(&tier0(&split), 9, &|| false).expect("run");
        assert!(!engine.segmenter.reused());
    }

    #[test]
    fn pairwise_scorers_rescore_only_touched_transitions() {
        let mut engine = Engine::new();
        let first = engine
            .run(&job(DOC, "lexical", ContextPolicy::Pairwise), 1, &|| false)
            .expect("run");
        // Every adjacent transition, plus one skip pair per unit with a neighbour on each side
        // (one in the first paragraph's three sentences, one in the first section's paragraphs).
        let skips = first
            .analysis
            .sentences
            .iter()
            .chain(&first.analysis.paragraphs)
            .filter(|t| t.skip.is_some())
            .count();
        assert_eq!(skips, 2);
        let total = first.analysis.sentences.len() + first.analysis.paragraphs.len() + skips;
        assert_eq!(first.stats.scored, total);
        let edited = DOC.replace("Krill feed", "Krill nourish");
        let second = engine
            .run(
                &job(&edited, "lexical", ContextPolicy::Pairwise),
                2,
                &|| false,
            )
            .expect("run");
        // One sentence changed: the sentence transition into it, and the two paragraph
        // transitions around its paragraph.
        assert_eq!(second.stats.scored, 3, "{:?}", second.stats);
        assert_eq!(second.stats.reused, total - 3);
    }

    #[test]
    fn document_scorers_reuse_scores_when_no_unit_text_changed() {
        let mut engine = Engine::new();
        let j = job(DOC, "tier0", ContextPolicy::Document);
        engine.run(&j, 1, &|| false).expect("run");
        // Re-wrapping a line changes no clean text.
        let rewrapped = DOC.replace("stores vectors. The", "stores vectors.\nThe");
        let again = engine
            .run(
                &job(&rewrapped, "tier0", ContextPolicy::Document),
                2,
                &|| false,
            )
            .expect("run");
        assert_eq!(again.stats.scored, 0, "{:?}", again.stats);
    }

    /// `tier0` with whole-document scores, counting how often it prepares a table.
    struct CountingDocumentScorer {
        inner: Arc<dyn Scorer>,
        prepared: std::sync::atomic::AtomicUsize,
    }

    /// A table with a whole-order score and one figure: the number of units.
    struct WithFigures<'a>(Box<dyn Pairwise + 'a>);

    impl Pairwise for WithFigures<'_> {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn transition(&self, from: usize, to: usize) -> f64 {
            self.0.transition(from, to)
        }
        fn reason(&self, from: usize, to: usize) -> Reason {
            self.0.reason(from, to)
        }
        fn order_score(&self, order: &[usize]) -> Option<f64> {
            Some(order.len() as f64 / 100.0)
        }
        fn figures(&self) -> Vec<(&'static str, f64)> {
            vec![("units", self.0.len() as f64)]
        }
    }

    impl Scorer for CountingDocumentScorer {
        fn name(&self) -> &'static str {
            "counting"
        }
        fn description(&self) -> &'static str {
            "tier0 with whole-document scores (test)"
        }
        fn tier(&self) -> u8 {
            0
        }
        fn scores_documents(&self) -> bool {
            true
        }
        fn prepare<'a>(&'a self, units: &[Unit<'_>], level: Level) -> Box<dyn Pairwise + 'a> {
            self.prepared
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Box::new(WithFigures(self.inner.prepare(units, level)))
        }
    }

    #[test]
    fn whole_document_scores_come_from_the_table_prepared_for_transitions() {
        use std::sync::atomic::Ordering;
        let counting = || CountingDocumentScorer {
            inner: ScorerSet::builtin().get("tier0").expect("tier0"),
            prepared: Default::default(),
        };
        let scorer = Arc::new(counting());
        // `analyze` on its own instance, so that its tables are not counted.
        let reference = counting();
        let job_for = |text: &str| Job {
            scorer: scorer.clone(),
            ..job(text, "tier0", ContextPolicy::Document)
        };
        let mut engine = Engine::new();
        let first = engine.run(&job_for(DOC), 1, &|| false).expect("run");
        // One table per level, shared by the transitions and the document scores.
        assert_eq!(scorer.prepared.load(Ordering::SeqCst), 2);
        let want = analyze(&parse(DOC, Format::Markdown), &reference);
        assert_eq!(first.analysis.whole, want.whole);
        assert_eq!(first.analysis.figures, want.figures);
        assert!(!want.figures.is_empty());
        // Nothing changed: everything comes from the caches.
        let second = engine.run(&job_for(DOC), 2, &|| false).expect("run");
        assert_eq!(
            scorer.prepared.load(Ordering::SeqCst),
            2,
            "{:?}",
            second.stats
        );
        // An edit at the sentence level re-prepares both levels once each, and the figures follow.
        let edited = DOC.replace(
            "Krill feed the penguins.",
            "Krill feed the penguins. Seals too.",
        );
        let after = engine.run(&job_for(&edited), 3, &|| false).expect("run");
        assert_eq!(scorer.prepared.load(Ordering::SeqCst), 4);
        let want = analyze(&parse(&edited, Format::Markdown), &reference);
        assert_eq!(after.analysis.whole, want.whole);
        assert_eq!(after.analysis.figures, want.figures);
    }

    /// `tier0` whose tables give intrusion scores that depend on the whole level: unit i of n
    /// scores (i + 1) / n.
    struct IntrudingScorer(Arc<dyn Scorer>);

    struct WithIntrusion<'a>(Box<dyn Pairwise + 'a>);

    impl Pairwise for WithIntrusion<'_> {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn transition(&self, from: usize, to: usize) -> f64 {
            self.0.transition(from, to)
        }
        fn reason(&self, from: usize, to: usize) -> Reason {
            self.0.reason(from, to)
        }
        fn intrusion(&self) -> Option<Vec<Option<f64>>> {
            let n = self.0.len();
            Some((0..n).map(|i| Some((i + 1) as f64 / n as f64)).collect())
        }
    }

    impl Scorer for IntrudingScorer {
        fn name(&self) -> &'static str {
            "intruding"
        }
        fn description(&self) -> &'static str {
            "tier0 with intrusion scores (test)"
        }
        fn tier(&self) -> u8 {
            0
        }
        fn has_intrusion(&self) -> bool {
            true
        }
        fn prepare<'a>(&'a self, units: &[Unit<'_>], level: Level) -> Box<dyn Pairwise + 'a> {
            Box::new(WithIntrusion(self.0.prepare(units, level)))
        }
    }

    #[test]
    fn intrusion_scores_follow_every_edit_under_both_policies() {
        let scorer: Arc<dyn Scorer> = Arc::new(IntrudingScorer(
            ScorerSet::builtin().get("tier0").expect("tier0"),
        ));
        for policy in [ContextPolicy::Pairwise, ContextPolicy::Document] {
            let mut engine = Engine::new();
            // An added sentence changes every later unit's score (n changes), though most
            // transitions come from the cache.
            let edits = [
                DOC.to_string(),
                DOC.replace("Krill feed the penguins.", "Krill feed them. Seals too."),
                DOC.to_string(),
            ];
            for (k, text) in edits.iter().enumerate() {
                let j = Job {
                    scorer: scorer.clone(),
                    ..job(text, "tier0", policy)
                };
                let got = engine.run(&j, k as u64, &|| false).expect("run");
                let want = analyze(&parse(text, Format::Markdown), scorer.as_ref());
                assert!(want.sentences.iter().all(|t| t.intrusion.is_some()));
                for level in [Level::Sentence, Level::Paragraph] {
                    let intrusion = |a: &Analysis| -> Vec<Option<f64>> {
                        a.at(level).iter().map(|t| t.intrusion).collect()
                    };
                    assert_eq!(intrusion(&got.analysis), intrusion(&want), "{policy:?}");
                }
                if policy == ContextPolicy::Document {
                    assert_same(&got.analysis, &want);
                }
            }
        }
    }

    #[test]
    fn cancellation_midway_leaves_a_usable_cache() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let mut engine = Engine::new();
        let j = job(DOC, "lexical", ContextPolicy::Pairwise);
        // Cancel at the third check: after segmentation, inside scoring.
        let calls = AtomicUsize::new(0);
        let r = engine.run(&j, 1, &|| calls.fetch_add(1, Ordering::SeqCst) >= 2);
        assert_eq!(r.err(), Some(Cancelled));
        let done = engine.run(&j, 2, &|| false).expect("run");
        let want = analyze(&parse(DOC, Format::Markdown), j.scorer.as_ref());
        assert_same(&done.analysis, &want);
    }

    #[test]
    fn cancellation_stops_a_run() {
        let mut engine = Engine::new();
        let r = engine.run(&job(DOC, "tier0", ContextPolicy::Document), 1, &|| true);
        assert_eq!(r.err(), Some(Cancelled));
    }

    #[test]
    fn proposes_a_better_order_for_a_shuffled_section() {
        let text = "# Caches\n\nThe cache stores vectors in memory.\n\nPenguins waddle across the Antarctic ice.\n\n\
            The cache evicts old vectors from memory.\n\nPenguins eat krill under the Antarctic ice.\n";
        let mut engine = Engine::new();
        let a = engine
            .run(&job(text, "lexical", ContextPolicy::Pairwise), 1, &|| false)
            .expect("run");
        let p = a.proposal(Container::Section(0)).expect("proposal");
        assert_eq!(p.spans.len(), 4);
        assert!(p.worthwhile(), "{p:?}");
        let mut sorted = p.order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![0, 1, 2, 3]);
        // Memoized.
        assert!(Arc::ptr_eq(
            &p,
            &a.proposal(Container::Section(0)).expect("memo")
        ));
        assert!(a.proposal(Container::Section(7)).is_none());
    }
}
