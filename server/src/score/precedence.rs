//! The trained ordering model as a scorer (`ordering`, tier 1): how well one unit follows another
//! according to [`crate::score::ordering`]: the learned successor and precedence probabilities, the
//! embedding cosine and the opening/closing cues, combined with the weights set on dev data.
//!
//! The table is the model's order objective folded into transitions ([`ChainTable`]), so the
//! decoders of [`crate::order::decode`] (and `segue eval --task ordering`, `segue reorder`) find
//! exactly the order the model prefers. A transition's value is relative to the other transitions
//! of the same set of units (one affine map per table), so it ranks orders of that set; it is not
//! calibrated across documents.
//!
//! The heads read a whole set at once and their cost grows with its square. An analysis reads
//! transitions only inside a container (a paragraph's own sentences, a section's paragraphs), so
//! through [`Scorer::prepare_in`] the scorers embed the level's sentences in one encoder call and
//! then score each container as a set of its own ([`ContainerPairs`]): the cost grows with the
//! number of containers, a transition scores as in the table `segue reorder` decodes for its
//! container, and transitions between containers score 0. The paragraph reader, which costs a
//! pass of the encoder per set, joins there only when it would read the whole level (a short
//! document); otherwise each container gets the heads' objective, as a long document's level did
//! when it was one set. A set of more than [`MAX_SET`] units (a huge container, or a long
//! document's sentences prepared as one set by `segue eval`) is scored in overlapping windows of
//! [`MAX_SET`] units, [`MAX_SET`] / 2 apart ([`WindowedPairs`]): every pair of units at most
//! [`MAX_SET`] / 2 apart is scored inside a window that holds both, and pairs further apart score 0.
//!
//! A missing or corrupt model keeps the scorer out of the registry (with a warning, see
//! `cli::scorers::scorers_with`). If the encoder or a head fails while scoring, the scorer warns once
//! on stderr and scores that document with `lexical` instead.

use super::lexical::Lexical;
use super::{Level, Pairwise, Reason, Scorer, Unit};
use crate::model::Encoder;
use crate::score::ordering::{
    unit_vector, ChainTable, OrderWeights, OrderingError, OrderingModel, ReaderUse,
};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::Arc;

/// The largest set scored as one; larger sets are scored in overlapping windows of this size. Above
/// the longest dev document (491 sentences), so the dev figures are those of whole-set tables;
/// the cost of a set grows with its square up to here, and linearly with the set beyond.
pub const MAX_SET: usize = 512;

/// Distance between the starts of consecutive windows.
const WINDOW_STRIDE: usize = MAX_SET / 2;

/// The first unit of each window over a set of `n` units: one window when `n` ≤ [`MAX_SET`], else
/// starts [`WINDOW_STRIDE`] apart, the last window ending at the last unit.
pub fn window_starts(n: usize) -> Vec<usize> {
    if n <= MAX_SET {
        return vec![0];
    }
    let mut starts: Vec<usize> = (0..n - MAX_SET).step_by(WINDOW_STRIDE).collect();
    starts.push(n - MAX_SET);
    starts
}

/// Which terms of the objective the scorer uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Everything, with the shipped weights (`ordering`): the heads and, for sets small enough,
    /// the paragraph reader `ordering.json` names.
    Full,
    /// The heads' objective without the set model (`ordering-head`, an ablation for evaluation
    /// and for large sets where the set model's cost matters).
    Head,
    /// Only the precedence-derived terms (`ordering-pairwise`, an ablation for evaluation).
    Pairwise,
}

/// The `ordering` scorer.
#[derive(Debug)]
pub struct OrderingScorer {
    encoder: Arc<Encoder>,
    model: Arc<OrderingModel>,
    variant: Variant,
    fallback: Lexical,
    warned: AtomicBool,
    warned_reader: AtomicBool,
}

impl OrderingScorer {
    /// The full scorer over a loaded encoder and ordering model.
    pub fn new(encoder: Arc<Encoder>, model: Arc<OrderingModel>) -> Self {
        OrderingScorer {
            encoder,
            model,
            variant: Variant::Full,
            fallback: Lexical::plain(),
            warned: AtomicBool::new(false),
            warned_reader: AtomicBool::new(false),
        }
    }

    /// The same scorer restricted to `variant`.
    pub fn with_variant(mut self, variant: Variant) -> Self {
        self.variant = variant;
        self
    }

    /// The ordering model.
    pub fn model(&self) -> &Arc<OrderingModel> {
        &self.model
    }

    /// The heads' weights the scorer uses at `level` (sets scored with the reader use
    /// [`OrderingModel::reader_weights`] instead).
    pub fn weights(&self, level: Level) -> Option<OrderWeights> {
        let w = self.model.weights(level)?;
        Some(match self.variant {
            Variant::Full | Variant::Head => w,
            Variant::Pairwise => w.pairwise_only(),
        })
    }

    /// The unit vectors of `units`: each sentence embedded (through the encoder's cache), a
    /// paragraph's the renormalised mean of its sentences'.
    pub fn vectors(&self, units: &[Unit<'_>]) -> Result<Vec<Vec<f32>>, OrderingError> {
        let flat: Vec<&str> = units.iter().flat_map(|u| u.iter().copied()).collect();
        let embedded = self.encoder.embed(&flat)?;
        let dim = self.encoder.dim();
        let mut next = embedded.iter();
        Ok(units
            .iter()
            .map(|u| {
                let vs: Vec<_> = next.by_ref().take(u.len()).collect();
                unit_vector(&vs, dim)
            })
            .collect())
    }

    /// The model's transition table for `units` at `level`.
    pub fn table(&self, units: &[Unit<'_>], level: Level) -> Result<ChainTable, OrderingError> {
        let vectors = self.vectors(units)?;
        self.table_of(units, &vectors, level, true)
    }

    /// The model's transition table for `units` at `level`, with their unit vectors; without
    /// `reader`, the heads' objective whatever the variant and the size of the set.
    fn table_of(
        &self,
        units: &[Unit<'_>],
        vectors: &[Vec<f32>],
        level: Level,
        reader: bool,
    ) -> Result<ChainTable, OrderingError> {
        if self.variant == Variant::Full && reader {
            let objective = self.model.objective(level, units, vectors)?;
            if let ReaderUse::Failed(why) = &objective.reader {
                if !self.warned_reader.swap(true, AtomicOrdering::Relaxed) {
                    eprintln!("segue: warning: the ordering model's set model cannot be used ({why}); ordering without it");
                }
            }
            return Ok(objective.scores.chain(&objective.weights));
        }
        let weights = self
            .weights(level)
            .ok_or(OrderingError::NoHead(level.name()))?;
        Ok(self.model.scores(level, units, vectors)?.chain(&weights))
    }

    /// The tables of each container of `units` ([`Scorer::prepare_in`]): every sentence of the
    /// level goes through the encoder in one call, then each container of two units or more is
    /// scored as a set of its own (in windows when it holds more than [`MAX_SET`]), with the
    /// paragraph reader only when it would read the whole level ([`reads_level`]).
    fn contained<'a>(
        &'a self,
        units: &[Unit<'_>],
        level: Level,
        containers: &[Range<usize>],
    ) -> Result<ContainerPairs<'a>, OrderingError> {
        let vectors = self.vectors(units)?;
        let sets = sets(units.len(), containers);
        plan(&self.model, units, level, &sets);
        let reader = reads_level(&self.model, units.len());
        let tables = sets
            .iter()
            .map(|set| {
                let (units, vectors) = (&units[set.clone()], &vectors[set.clone()]);
                let windows = windows(units.len(), |w| {
                    self.table_of(&units[w.clone()], &vectors[w], level, reader)
                })?;
                Ok(one_table(units.len(), windows, None))
            })
            .collect::<Result<Vec<_>, OrderingError>>()?;
        Ok(ContainerPairs::new(
            units.len(),
            &sets,
            tables,
            Some(self.fallback.prepare(units, level)),
        ))
    }
}

struct OrderingPairs<'a> {
    table: ChainTable,
    lexical: Box<dyn Pairwise + 'a>,
}

impl Pairwise for OrderingPairs<'_> {
    fn len(&self) -> usize {
        self.table.len()
    }

    fn transition(&self, from: usize, to: usize) -> f64 {
        self.table.transition(from, to)
    }

    fn reason(&self, from: usize, to: usize) -> Reason {
        Reason {
            shared: self.lexical.reason(from, to).shared,
            note: self.table.reason(from, to).note,
        }
    }
}

/// The heads' objective split into terms (successor, precedence, Borda, opening, closing), each
/// folded into its own transition table and scaled to [0, 1] per set, then mixed with its own
/// weight. `tier1` uses it with weights fitted for telling original from degraded orders; the heads
/// run once per set (or window) whatever the number of terms.
pub struct OrderingTerms {
    scorer: OrderingScorer,
    terms: [Vec<(OrderWeights, f64)>; 2],
}

impl std::fmt::Debug for OrderingTerms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrderingTerms")
            .field("terms", &self.terms)
            .finish_non_exhaustive()
    }
}

impl OrderingTerms {
    /// The terms over `scorer`'s heads: for each level, each term's weights (one field set) and
    /// its share of the mix (normalised here to sum to 1; terms with share 0 are not computed).
    pub fn new(
        scorer: OrderingScorer,
        sentence: Vec<(OrderWeights, f64)>,
        paragraph: Vec<(OrderWeights, f64)>,
    ) -> Self {
        let normalise = |terms: Vec<(OrderWeights, f64)>| {
            let sum: f64 = terms.iter().map(|(_, s)| s.max(0.0)).sum();
            terms
                .into_iter()
                .filter(|(_, s)| *s > 0.0 && sum > 0.0)
                .map(|(w, s)| (w, s / sum))
                .collect::<Vec<_>>()
        };
        OrderingTerms {
            scorer,
            terms: [normalise(sentence), normalise(paragraph)],
        }
    }

    fn terms(&self, level: Level) -> &[(OrderWeights, f64)] {
        match level {
            Level::Sentence => &self.terms[0],
            Level::Paragraph => &self.terms[1],
        }
    }

    /// The terms' tables for a set of at most [`MAX_SET`] units. The paragraph reader runs only
    /// when one of its terms has a share at `level` and it reads a set of this size (at either
    /// level: paragraphs are read as units, each cut to its per-sentence token limit); otherwise
    /// its terms' tables are constant.
    fn mix(&self, units: &[Unit<'_>], level: Level) -> Result<TermMix, OrderingError> {
        let vectors = self.scorer.vectors(units)?;
        self.mix_of(units, &vectors, level, true)
    }

    /// [`OrderingTerms::mix`] of units with their unit vectors; without `reader`, the reader's
    /// terms are constant whatever the size of the set.
    fn mix_of(
        &self,
        units: &[Unit<'_>],
        vectors: &[Vec<f32>],
        level: Level,
        reader: bool,
    ) -> Result<TermMix, OrderingError> {
        // `scores_with_reader` itself leaves the reader out of sets it does not read.
        let scores = if reader && self.terms(level).iter().any(|(w, _)| w.uses_reader()) {
            let (scores, used) = self
                .scorer
                .model
                .scores_with_reader(level, units, vectors)?;
            if let ReaderUse::Failed(why) = &used {
                if !self
                    .scorer
                    .warned_reader
                    .swap(true, AtomicOrdering::Relaxed)
                {
                    eprintln!("segue: warning: the ordering model's set model cannot be used ({why}); tier1 goes on without its terms");
                }
            }
            scores
        } else {
            self.scorer.model.scores(level, units, vectors)?
        };
        let tables: Vec<(ChainTable, f64)> = self
            .terms(level)
            .iter()
            .map(|(w, share)| (scores.chain(w), *share))
            .collect();
        Ok(TermMix::new(units.len(), tables))
    }

    /// The mixed tables of each container of `units`, as [`OrderingScorer::contained`] makes
    /// the ordering scorer's.
    fn contained<'a>(
        &'a self,
        units: &[Unit<'_>],
        level: Level,
        containers: &[Range<usize>],
    ) -> Result<ContainerPairs<'a>, OrderingError> {
        let vectors = self.scorer.vectors(units)?;
        let sets = sets(units.len(), containers);
        plan(&self.scorer.model, units, level, &sets);
        let reader = reads_level(&self.scorer.model, units.len());
        let tables = sets
            .iter()
            .map(|set| {
                let (units, vectors) = (&units[set.clone()], &vectors[set.clone()]);
                let windows = windows(units.len(), |w| {
                    self.mix_of(&units[w.clone()], &vectors[w], level, reader)
                })?;
                Ok(one_table(units.len(), windows, None))
            })
            .collect::<Result<Vec<_>, OrderingError>>()?;
        Ok(ContainerPairs::new(units.len(), &sets, tables, None))
    }

    /// The warning when the heads fail, once.
    fn warn(&self, e: &OrderingError) {
        if !crate::model::cancel::stopped()
            && !self.scorer.warned.swap(true, AtomicOrdering::Relaxed)
        {
            eprintln!("segue: warning: the ordering heads failed ({e}); their part of the score is left at 0");
        }
    }
}

/// Weighted term tables of one set, mixed once into one table: each transition is the
/// clamped sum of the terms' transitions times their shares. Only the first term's table is
/// kept besides, for reasons, so a set holds three `n × n` tables whatever the number of terms.
struct TermMix {
    n: usize,
    mixed: Vec<f64>,
    first: Option<ChainTable>,
}

impl TermMix {
    fn new(n: usize, tables: Vec<(ChainTable, f64)>) -> TermMix {
        if tables.is_empty() {
            // Every transition 0, as an empty sum: nothing to hold.
            return TermMix {
                n,
                mixed: Vec::new(),
                first: None,
            };
        }
        let mixed = (0..n * n)
            .map(|k| {
                tables
                    .iter()
                    .map(|(t, share)| share * t.transition(k / n, k % n))
                    .sum::<f64>()
                    .clamp(0.0, 1.0)
            })
            .collect();
        TermMix {
            n,
            mixed,
            first: tables.into_iter().next().map(|(t, _)| t),
        }
    }
}

impl Pairwise for TermMix {
    fn len(&self) -> usize {
        self.n
    }

    fn transition(&self, from: usize, to: usize) -> f64 {
        if from >= self.n || to >= self.n {
            return 0.0;
        }
        self.mixed.get(from * self.n + to).copied().unwrap_or(0.0)
    }

    /// The heads' precedence view (every term's table quotes the same one).
    fn reason(&self, from: usize, to: usize) -> Reason {
        self.first
            .as_ref()
            .map(|t| t.reason(from, to))
            .unwrap_or_default()
    }
}

impl Scorer for OrderingTerms {
    fn name(&self) -> &'static str {
        "ordering-terms"
    }

    fn description(&self) -> &'static str {
        "the ordering heads' objective terms, each scaled per set and mixed with fitted weights (a part of tier1)"
    }

    fn tier(&self) -> u8 {
        1
    }

    fn runs_on(&self) -> Option<String> {
        self.scorer.runs_on()
    }

    fn flow_judge(&self) -> Option<std::sync::Arc<crate::model::FlowJudge>> {
        self.scorer.flow_judge()
    }

    fn prepare<'a>(&'a self, units: &[Unit<'_>], level: Level) -> Box<dyn Pairwise + 'a> {
        plan(&self.scorer.model, units, level, &whole(units.len()));
        match windows(units.len(), |w| self.mix(&units[w], level)) {
            Ok(w) => one_table(
                units.len(),
                w,
                Some(self.scorer.fallback.prepare(units, level)),
            ),
            Err(e) => {
                self.warn(&e);
                Box::new(TermMix::new(units.len(), Vec::new()))
            }
        }
    }

    fn prepare_in<'a>(
        &'a self,
        units: &[Unit<'_>],
        level: Level,
        containers: &[Range<usize>],
    ) -> Box<dyn Pairwise + 'a> {
        match self.contained(units, level, containers) {
            Ok(pairs) => Box::new(pairs),
            Err(e) => {
                self.warn(&e);
                Box::new(TermMix::new(units.len(), Vec::new()))
            }
        }
    }
}

/// One set's table from its windows ([`windows`]): the only window's table itself, or the
/// windows together with `lexical` (shared words for the reasons; `None` when the caller quotes
/// them itself).
fn one_table<'a, T: Pairwise + 'a>(
    n: usize,
    mut windows: Vec<(usize, T)>,
    lexical: Option<Box<dyn Pairwise + 'a>>,
) -> Box<dyn Pairwise + 'a> {
    if windows.len() == 1 {
        let (_, table) = windows.remove(0);
        return Box::new(table);
    }
    Box::new(WindowedPairs {
        n,
        windows,
        lexical,
    })
}

/// Whether an analysis that scores a level of `n` units per container uses the paragraph
/// reader: only when the reader would read the whole level as one set (a short document). The
/// reader costs a pass of the encoder over every set it reads, far more than the heads; a long
/// document's containers are scored with the heads' objective, as the whole level was.
fn reads_level(model: &OrderingModel, n: usize) -> bool {
    model.reader_reads(n)
}

/// Tells the model's memo how much the heads are about to read of `units` at `level` (every
/// window of every set), so that the next scorer over the model finds it all
/// ([`OrderingModel::plan`]).
fn plan(model: &OrderingModel, units: &[Unit<'_>], level: Level, sets: &[Range<usize>]) {
    model.plan(level, planned(units, sets, |w| model.memo_bytes(w)));
}

/// The sum of `bytes` over the sets the heads read for `sets` of `units`: each set of at most
/// [`MAX_SET`] units whole, each larger one window by window.
fn planned(
    units: &[Unit<'_>],
    sets: &[Range<usize>],
    bytes: impl Fn(&[Unit<'_>]) -> usize,
) -> usize {
    sets.iter()
        .flat_map(|set| {
            window_starts(set.len())
                .into_iter()
                .map(move |s| set.start + s..set.start + (s + MAX_SET).min(set.len()))
        })
        .filter_map(|w| units.get(w))
        .map(bytes)
        .sum()
}

/// A set of `n` units as the only container ([`sets`]): none when it has fewer than two.
fn whole(n: usize) -> Vec<Range<usize>> {
    sets(n, std::slice::from_ref(&(0..n)))
}

/// The containers that need a table: those of at least two units, cut to the `n` units.
fn sets(n: usize, containers: &[Range<usize>]) -> Vec<Range<usize>> {
    containers
        .iter()
        .map(|c| c.start.min(n)..c.end.min(n))
        .filter(|c| c.len() >= 2)
        .collect()
}

/// A level's tables prepared per container ([`Scorer::prepare_in`]): each container scored as a
/// set of its own, so a transition scores as in its container's table alone; transitions
/// between containers (or out of a container of one unit) score 0.
struct ContainerPairs<'a> {
    n: usize,
    /// Per unit: the index of its container's table and its index inside that container.
    place: Vec<Option<(usize, usize)>>,
    tables: Vec<Box<dyn Pairwise + 'a>>,
    /// Shared words for reasons, over the whole level (`None`: reasons are the tables' own).
    lexical: Option<Box<dyn Pairwise + 'a>>,
}

impl<'a> ContainerPairs<'a> {
    /// The tables of `sets` (disjoint ranges of `n` units, one table each, in the same order).
    fn new(
        n: usize,
        sets: &[Range<usize>],
        tables: Vec<Box<dyn Pairwise + 'a>>,
        lexical: Option<Box<dyn Pairwise + 'a>>,
    ) -> Self {
        let mut place = vec![None; n];
        for (t, set) in sets.iter().enumerate() {
            for (k, unit) in set.clone().enumerate() {
                if let Some(slot) = place.get_mut(unit) {
                    *slot = Some((t, k));
                }
            }
        }
        ContainerPairs {
            n,
            place,
            tables,
            lexical,
        }
    }

    /// The table of the container that holds both units, with their indices inside it.
    fn table(&self, from: usize, to: usize) -> Option<(&dyn Pairwise, usize, usize)> {
        let (Some(&Some((t, a))), Some(&Some((u, b)))) = (self.place.get(from), self.place.get(to))
        else {
            return None;
        };
        (t == u).then_some(())?;
        self.tables.get(t).map(|table| (table.as_ref(), a, b))
    }
}

impl Pairwise for ContainerPairs<'_> {
    fn len(&self) -> usize {
        self.n
    }

    fn transition(&self, from: usize, to: usize) -> f64 {
        self.table(from, to)
            .map_or(0.0, |(table, a, b)| table.transition(a, b))
    }

    fn reason(&self, from: usize, to: usize) -> Reason {
        let own = self
            .table(from, to)
            .map(|(table, a, b)| table.reason(a, b))
            .unwrap_or_default();
        match &self.lexical {
            Some(lexical) => Reason {
                shared: lexical.reason(from, to).shared,
                note: own.note,
            },
            None => own,
        }
    }
}

/// The tables of a set too large to score as one: overlapping windows of at most [`MAX_SET`]
/// units, each with the start of its window, in order.
struct WindowedPairs<'a, T: Pairwise> {
    n: usize,
    windows: Vec<(usize, T)>,
    /// Shared words for the reasons (`None`: the windows' own reasons).
    lexical: Option<Box<dyn Pairwise + 'a>>,
}

impl<T: Pairwise> WindowedPairs<'_, T> {
    /// The window that holds both units, with the unit indices inside it: the last window that
    /// starts at or before the earlier unit and reaches the later one.
    fn window(&self, from: usize, to: usize) -> Option<(&T, usize, usize)> {
        let (lo, hi) = (from.min(to), from.max(to));
        self.windows
            .iter()
            .rev()
            .find(|(start, table)| *start <= lo && hi < start + table.len())
            .map(|(start, table)| (table, from - start, to - start))
    }
}

/// The tables of a set of `n` units in windows of at most [`MAX_SET`] units, each from `table`
/// of the window's range of units.
fn windows<T>(
    n: usize,
    mut table: impl FnMut(Range<usize>) -> Result<T, OrderingError>,
) -> Result<Vec<(usize, T)>, OrderingError> {
    window_starts(n)
        .into_iter()
        .map(|start| Ok((start, table(start..(start + MAX_SET).min(n))?)))
        .collect()
}

impl<T: Pairwise> Pairwise for WindowedPairs<'_, T> {
    fn len(&self) -> usize {
        self.n
    }

    /// The transition inside the window that holds both units; 0 for units too far apart to share
    /// one.
    fn transition(&self, from: usize, to: usize) -> f64 {
        self.window(from, to)
            .map_or(0.0, |(table, a, b)| table.transition(a, b))
    }

    fn reason(&self, from: usize, to: usize) -> Reason {
        Reason {
            shared: self
                .lexical
                .as_ref()
                .map(|l| l.reason(from, to).shared)
                .unwrap_or_default(),
            note: self
                .window(from, to)
                .and_then(|(table, a, b)| table.reason(a, b).note),
        }
    }
}

impl Scorer for OrderingScorer {
    fn name(&self) -> &'static str {
        match self.variant {
            Variant::Full => "ordering",
            Variant::Head => "ordering-head",
            Variant::Pairwise => "ordering-pairwise",
        }
    }

    fn description(&self) -> &'static str {
        match self.variant {
            Variant::Full => "trained ordering model: learned successor and precedence probabilities, a fine-tuned reader of whole paragraphs (precedence and successor of every sentence pair), embedding cosine and opening/closing cues",
            Variant::Head => "trained ordering model without the paragraph reader: the heads' successor and precedence probabilities, embedding cosine and opening/closing cues",
            Variant::Pairwise => "trained ordering model, precedence terms only (P(a before b) of adjacent units and a Borda position potential)",
        }
    }

    fn tier(&self) -> u8 {
        1
    }

    fn flow_judge(&self) -> Option<std::sync::Arc<crate::model::FlowJudge>> {
        self.model.flow().ok().cloned()
    }

    fn prepare<'a>(&'a self, units: &[Unit<'_>], level: Level) -> Box<dyn Pairwise + 'a> {
        plan(&self.model, units, level, &whole(units.len()));
        match windows(units.len(), |w| self.table(&units[w], level)) {
            Ok(mut windows) if windows.len() == 1 => Box::new(OrderingPairs {
                table: windows.remove(0).1,
                lexical: self.fallback.prepare(units, level),
            }),
            Ok(windows) => Box::new(WindowedPairs {
                n: units.len(),
                windows,
                lexical: Some(self.fallback.prepare(units, level)),
            }),
            Err(e) => {
                self.warn(&e);
                self.fallback.prepare(units, level)
            }
        }
    }

    fn prepare_in<'a>(
        &'a self,
        units: &[Unit<'_>],
        level: Level,
        containers: &[Range<usize>],
    ) -> Box<dyn Pairwise + 'a> {
        match self.contained(units, level, containers) {
            Ok(pairs) => Box::new(pairs),
            Err(e) => {
                self.warn(&e);
                self.fallback.prepare(units, level)
            }
        }
    }
}

impl OrderingScorer {
    /// The warning when the scorer fails, once.
    fn warn(&self, e: &OrderingError) {
        if !crate::model::cancel::stopped() && !self.warned.swap(true, AtomicOrdering::Relaxed) {
            eprintln!(
                "segue: warning: the ordering scorer failed ({e}); scoring with `lexical` instead"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_cover_every_pair_of_nearby_units() {
        assert_eq!(window_starts(0), vec![0]);
        assert_eq!(window_starts(MAX_SET), vec![0]);
        assert_eq!(window_starts(MAX_SET + 1), vec![0, 1]);
        assert_eq!(window_starts(3 * MAX_SET), vec![0, 256, 512, 768, 1024]);
        for n in [MAX_SET + 1, MAX_SET + 100, 2 * MAX_SET + 7, 5 * MAX_SET - 3] {
            let starts = window_starts(n);
            assert_eq!(starts.last().copied(), Some(n - MAX_SET), "n = {n}");
            assert!(starts
                .windows(2)
                .all(|w| w[1] > w[0] && w[1] - w[0] <= WINDOW_STRIDE));
            for i in 0..n {
                let j = (i + WINDOW_STRIDE).min(n - 1);
                assert!(
                    starts.iter().any(|&s| s <= i && j < s + MAX_SET),
                    "n = {n}: {i} and {j} share no window"
                );
            }
        }
    }

    /// A window table over `len` units whose raw value of `a → b` is `start + a + b` (global
    /// indices), so a lookup shows which window answered.
    fn window(start: usize, len: usize, bias: f64) -> (usize, ChainTable) {
        let raw = (0..len * len)
            .map(|k| (start + k / len + k % len) as f64 + bias)
            .collect();
        (start, ChainTable::new(len, raw, vec![0.5; len * len]))
    }

    #[test]
    fn windowed_pairs_answer_from_the_window_that_holds_both_units() {
        let lexical = Lexical::plain();
        let texts: Vec<String> = (0..12).map(|i| format!("Unit {i}.")).collect();
        let units: Vec<Unit<'_>> = texts.iter().map(|t| vec![t.as_str()]).collect();
        let pairs = WindowedPairs {
            n: 12,
            windows: vec![window(0, 8, 0.0), window(4, 8, 100.0)],
            lexical: Some(lexical.prepare(&units, Level::Sentence)),
        };
        assert_eq!(pairs.len(), 12);
        // Both windows hold 4 and 6; the later one answers, in its own indices.
        let (_, a, b) = pairs.window(4, 6).expect("a window");
        assert_eq!((a, b), (0, 2));
        let (_, a, b) = pairs.window(1, 3).expect("a window");
        assert_eq!((a, b), (1, 3));
        assert!(pairs.window(2, 9).is_none() && pairs.window(9, 2).is_none());
        assert_eq!(pairs.transition(2, 9), 0.0);
        // Inside one window the transitions are its table's, scaled to [0, 1] by that window.
        let only_first = ChainTable::new(
            8,
            (0..64).map(|k| (k / 8 + k % 8) as f64).collect(),
            vec![0.5; 64],
        );
        assert_eq!(pairs.transition(1, 3), only_first.transition(1, 3));
        // 7 → 8 lies only in the second window: its raw value there is 4 + 3 + 4 + 100.
        let second = &pairs.windows[1].1;
        assert_eq!(pairs.transition(7, 8), second.transition(3, 4));
        assert!(pairs.transition(7, 8) > 0.0);
        for (from, to) in [(0, 1), (5, 4), (10, 11), (7, 8)] {
            let v = pairs.transition(from, to);
            assert!((0.0..=1.0).contains(&v), "{from} → {to}: {v}");
        }
        assert!(pairs.reason(10, 11).note.is_some());
        assert!(pairs.reason(0, 11).note.is_none());
    }

    #[test]
    fn a_plan_counts_every_window_of_every_set() {
        let texts: Vec<String> = (0..2 * MAX_SET).map(|i| format!("Unit {i}.")).collect();
        let units: Vec<Unit<'_>> = texts.iter().map(|t| vec![t.as_str()]).collect();
        let squares = |w: &[Unit<'_>]| w.len() * w.len();
        // A set of 3, one of MAX_SET + 10 (two windows of MAX_SET), and a container beyond
        // the units, cut to them.
        let sets = sets(
            units.len(),
            &[0..3, 3..MAX_SET + 13, MAX_SET + 13..3 * MAX_SET],
        );
        let rest = 2 * MAX_SET - (MAX_SET + 13);
        assert_eq!(
            planned(&units, &sets, squares),
            9 + 2 * MAX_SET * MAX_SET + rest * rest
        );
        assert_eq!(planned(&units, &whole(1), squares), 0);
    }

    #[test]
    fn containers_of_two_units_or_more_get_a_table() {
        assert_eq!(
            sets(10, &[0..1, 1..4, 4..4, 4..6, 8..12]),
            vec![1..4, 4..6, 8..10]
        );
        let three = 0..3;
        assert!(sets(0, std::slice::from_ref(&three)).is_empty());
    }

    #[test]
    fn container_pairs_answer_inside_a_container_only() {
        let lexical = Lexical::plain();
        let texts: Vec<String> = (0..7).map(|i| format!("Unit {i} of the cache.")).collect();
        let units: Vec<Unit<'_>> = texts.iter().map(|t| vec![t.as_str()]).collect();
        // Units 1–3 and 4–5 are containers; 0 and 6 stand alone.
        let table = |n: usize, bias: f64| -> Box<dyn Pairwise> {
            let raw = (0..n * n)
                .map(|k| (k / n * 3 + k % n) as f64 + bias)
                .collect();
            Box::new(ChainTable::new(n, raw, vec![0.7; n * n]))
        };
        let sets = sets(7, &[0..1, 1..4, 4..6, 6..7]);
        let first = table(3, 0.0);
        let expect = [first.transition(0, 1), first.transition(2, 1)];
        let pairs = ContainerPairs::new(
            7,
            &sets,
            vec![table(3, 0.0), table(2, 5.0)],
            Some(lexical.prepare(&units, Level::Sentence)),
        );
        assert_eq!(pairs.len(), 7);
        assert_eq!(pairs.transition(1, 2), expect[0]);
        assert_eq!(pairs.transition(3, 2), expect[1]);
        assert!(pairs.transition(4, 5) > 0.0 || pairs.transition(5, 4) > 0.0);
        for (from, to) in [(0, 1), (3, 4), (5, 6), (2, 5), (6, 0), (1, 9), (9, 1)] {
            assert_eq!(pairs.transition(from, to), 0.0, "{from} → {to}");
        }
        // Reasons: the shared words of the whole level, the container's own note.
        let inside = pairs.reason(1, 2);
        assert!(inside.note.is_some() && !inside.shared.is_empty());
        let across = pairs.reason(3, 4);
        assert!(across.note.is_none() && !across.shared.is_empty());
    }
}
