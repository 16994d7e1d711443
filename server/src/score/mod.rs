//! Scorers: how well one unit (sentence or paragraph) follows another.
//!
//! Every scorer implements [`Scorer`]: given the units of a document at one [`Level`], it
//! [prepares](Scorer::prepare) a [`Pairwise`] table that scores the transition between *any* two
//! units in [0, 1] (higher = more coherent) and explains it with a [`Reason`]. Scores for arbitrary
//! pairs, not just adjacent ones, let the same table judge the document's own order, a shuffled copy
//! (`segue eval`) and candidate orders (`order`). The score of an order is the mean of its adjacent
//! transitions ([`order_score`]), so every built-in scorer is decomposable over adjacent pairs.
//!
//! Invariant: scorers see clean sentence text only, never markup, spans or LSP types.

pub mod analysis;
pub mod back_matter;
pub mod bbscore;
pub mod contexts;
pub mod cues;
pub mod embedding;
pub mod entity_grid;
pub mod findings;
pub mod instruction;
pub mod intrusion;
pub mod lexical;
pub mod logistic;
pub(crate) use crate::text::memo;
pub mod novelty;
pub mod opening;
pub mod ordering;
pub mod parallel;
pub mod precedence;
pub mod registry;
pub mod rule_runs;
pub mod rules;
pub mod static_vectors;
mod stems;
pub mod tier0;
pub mod tier1;
pub mod tokens;
pub mod verdict;
mod vocabulary;
pub mod wordpiece;

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;

/// Whether a scorer's pair scores depend on anything beyond the two units (what a front end that
/// caches transitions may keep when a unit changes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ContextPolicy {
    /// The score of a pair depends on the two units' texts only.
    Pairwise,
    /// The score of a pair may depend on every unit at its level.
    Document,
}

/// The granularity of the units being scored.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Sentence → sentence transitions.
    Sentence,
    /// Paragraph → paragraph transitions.
    Paragraph,
}

impl Level {
    /// The lower-case name (`sentence`, `paragraph`).
    pub fn name(self) -> &'static str {
        match self {
            Level::Sentence => "sentence",
            Level::Paragraph => "paragraph",
        }
    }
}

/// One unit to score: its sentences' clean text. A sentence-level unit has one sentence.
pub type Unit<'a> = Vec<&'a str>;

/// Why a transition scored as it did.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Reason {
    /// Words or entities the two units share, most telling first.
    pub shared: Vec<String>,
    /// A short phrase on what the scorer saw, for the human message.
    pub note: Option<String>,
}

impl Reason {
    /// A one-line human explanation for a transition from `from` (e.g. "the previous sentence").
    pub fn describe(&self, previous: &str) -> String {
        let mut msg = if self.shared.is_empty() {
            format!("shares no content words or entities with {previous}")
        } else {
            let words: Vec<String> = self
                .shared
                .iter()
                .take(3)
                .map(|w| format!("‘{w}’"))
                .collect();
            format!("shares only {} with {previous}", words.join(", "))
        };
        if let Some(note) = &self.note {
            msg.push_str("; ");
            msg.push_str(note);
        }
        msg
    }
}

/// Transition scores between any two units of one document at one level.
pub trait Pairwise: Send + Sync {
    /// Number of units.
    fn len(&self) -> usize;
    /// Whether there are no units.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// How well unit `to` follows unit `from`, in [0, 1].
    fn transition(&self, from: usize, to: usize) -> f64;
    /// Why the transition from `from` to `to` scored as it did.
    fn reason(&self, from: usize, to: usize) -> Reason;
    /// The score of the whole `order` in [0, 1] (higher = more coherent), for scorers that are not
    /// a mean of adjacent transitions (BBScore's Brownian-bridge likelihood of the trajectory).
    /// `None`, the default, means [`order_score`] takes the mean of adjacent transitions.
    fn order_score(&self, order: &[usize]) -> Option<f64> {
        let _ = order;
        None
    }
    /// Document-level figures of the units in their prepared order, for reports (BBScore's `B`);
    /// empty by default.
    fn figures(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
    /// Each unit's intrusion score in its prepared order (how likely it does not belong where it
    /// stands, [`intrusion`]), for scorers that have an intrusion model; `None`, the default,
    /// leaves findings to the fixed interruption rule.
    fn intrusion(&self) -> Option<Vec<Option<f64>>> {
        None
    }
}

/// A coherence scorer.
pub trait Scorer: Send + Sync {
    /// Stable name, used on the command line, in settings and as part of diagnostic codes.
    fn name(&self) -> &'static str;
    /// One line on what the scorer measures.
    fn description(&self) -> &'static str;
    /// 0 for built-in scorers, 1 for scorers that need a model.
    fn tier(&self) -> u8;
    /// Precomputes whatever the scorer needs about `units` at `level`.
    fn prepare<'a>(&'a self, units: &[Unit<'_>], level: Level) -> Box<dyn Pairwise + 'a>;
    /// Like [`Scorer::prepare`], for a caller that reads transitions only between two units of
    /// the same container (`containers`: disjoint ranges of indices into `units`, such as a
    /// paragraph's own sentences or a section's paragraphs; see
    /// [`analysis::sentence_containers`]). A scorer whose transitions are relative to the set they
    /// were prepared over (the ordering scorers, `tier1` through its ordering terms) then
    /// prepares each container as a set of its own, as `order::reorder` does, so the cost grows
    /// with the containers rather than with the square of the level; transitions between
    /// containers score 0. The default, for every other scorer, is the whole-level table of
    /// [`Scorer::prepare`].
    fn prepare_in<'a>(
        &'a self,
        units: &[Unit<'_>],
        level: Level,
        containers: &[Range<usize>],
    ) -> Box<dyn Pairwise + 'a> {
        let _ = containers;
        self.prepare(units, level)
    }
    /// Where a model scorer runs (model and execution provider), for hovers and logs; `None` for
    /// built-in scorers.
    fn runs_on(&self) -> Option<String> {
        None
    }
    /// Whether the scorer has whole-document scores or figures ([`Pairwise::order_score`],
    /// [`Pairwise::figures`]: BBScore). Front ends that score transitions from a cache prepare
    /// the whole document once more only for these.
    fn scores_documents(&self) -> bool {
        false
    }
    /// Whether its tables give intrusion scores ([`Pairwise::intrusion`]), which depend on every
    /// unit of a level: front ends that score transitions from a cache then prepare the whole
    /// level too.
    fn has_intrusion(&self) -> bool {
        false
    }
    /// Whether its pair scores depend on the two units alone ([`ContextPolicy::Pairwise`]) or
    /// may read the whole level ([`ContextPolicy::Document`], the safe default).
    fn context_policy(&self) -> ContextPolicy {
        ContextPolicy::Document
    }
    /// Where its intrusion scores at `level` come from: [`IntrusionSource::Table`] (the default
    /// for scorers with [`Scorer::has_intrusion`]) needs a table prepared from the whole level.
    fn intrusion_source(&self, level: Level) -> IntrusionSource {
        let _ = level;
        if self.has_intrusion() {
            IntrusionSource::Table
        } else {
            IntrusionSource::None
        }
    }
    /// For scorers whose pair scores read statistics of the whole level (`tier0`: word and entity
    /// frequencies): one fingerprint per unit of `units` covering every such statistic that a
    /// transition into or out of that unit reads, so that a transition between two units with
    /// the same texts and the same fingerprints scores the same and gives the same reason in any
    /// document. A front end that caches transitions then re-scores after an edit only those
    /// whose fingerprints changed. `None` (the default): any change at the level may change
    /// every transition.
    fn unit_contexts(&self, units: &[Unit<'_>], level: Level) -> Option<Vec<u64>> {
        let _ = (units, level);
        None
    }
    /// The flow judge that reads this scorer's reorder candidates in context
    /// ([`crate::model::flow`]), for the model scorers that come with one; `None` (the default)
    /// when reorder proposals are decided by the scorer's own table alone.
    fn flow_judge(&self) -> Option<std::sync::Arc<crate::model::FlowJudge>> {
        None
    }
}

/// Where a scorer's intrusion scores at one level come from ([`Scorer::intrusion_source`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntrusionSource {
    /// It has none at this level.
    None,
    /// [`Pairwise::intrusion`] of a table prepared from every unit of the level.
    Table,
}

/// The score of `order` (indices into the prepared units): the table's own
/// [`Pairwise::order_score`] when it has one, else the mean adjacent-transition score.
/// An order with fewer than two units scores 1.
pub fn order_score(pairs: &dyn Pairwise, order: &[usize]) -> f64 {
    if let Some(score) = pairs.order_score(order) {
        return score;
    }
    if order.len() < 2 {
        return 1.0;
    }
    let sum: f64 = order.windows(2).map(|w| pairs.transition(w[0], w[1])).sum();
    sum / (order.len() - 1) as f64
}

/// The scorers available by name, in a stable order.
#[derive(Clone, Default)]
pub struct ScorerSet {
    scorers: BTreeMap<&'static str, Arc<dyn Scorer>>,
}

impl ScorerSet {
    /// The built-in (tier 0) scorers.
    pub fn builtin() -> Self {
        let mut set = ScorerSet::default();
        set.register(Arc::new(lexical::Lexical::plain()));
        set.register(Arc::new(lexical::Lexical::nouns()));
        set.register(Arc::new(entity_grid::EntityGrid::trained()));
        set.register(Arc::new(tier0::Tier0::trained()));
        set
    }

    /// Adds a scorer. Panics in debug builds on a name clash (a programming error).
    pub fn register(&mut self, scorer: Arc<dyn Scorer>) {
        let prev = self.scorers.insert(scorer.name(), scorer);
        debug_assert!(prev.is_none(), "scorer name registered twice");
    }

    /// The scorer called `name`.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Scorer>> {
        self.scorers.get(name).cloned()
    }

    /// All scorers in name order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Scorer>> {
        self.scorers.values()
    }

    /// Names of all scorers.
    pub fn names(&self) -> Vec<&'static str> {
        self.scorers.keys().copied().collect()
    }

    /// Keeps only scorers of tier ≤ `max_tier`.
    pub fn up_to_tier(mut self, max_tier: u8) -> Self {
        self.scorers.retain(|_, s| s.tier() <= max_tier);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_scorers_have_unique_described_names() {
        let set = ScorerSet::builtin();
        assert_eq!(set.names().len(), 4);
        for s in set.iter() {
            assert!(!s.description().is_empty());
            assert!(s
                .name()
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '-' || c.is_ascii_digit()));
            assert_eq!(s.tier(), 0);
        }
    }

    #[test]
    fn scorers_declare_their_context_policy() {
        let set = ScorerSet::builtin();
        let policy = |name: &str| set.get(name).expect("built in").context_policy();
        // Pair-local: the lexical overlaps. Document-wide statistics: the entity grid's and
        // tier0's (salience, novelty, intrusion).
        assert_eq!(policy("lexical"), ContextPolicy::Pairwise);
        assert_eq!(policy("lexical-noun"), ContextPolicy::Pairwise);
        assert_eq!(policy("entity-grid"), ContextPolicy::Document);
        assert_eq!(policy("tier0"), ContextPolicy::Document);
    }
}
