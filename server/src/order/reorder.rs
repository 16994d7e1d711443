//! Reorder proposals: which spans move when a section's paragraphs or a paragraph's sentences are
//! reordered, and the best order the decoder finds for them. Plain data: the CLI turns a proposal
//! into a rewritten file or a diff, the language server into a `WorkspaceEdit`.
//!
//! **Unit extents.** A reorderable unit covers more than its prose so that what belongs to it
//! moves with it:
//! - a paragraph runs from its disable comment (if any) or its first byte to the last non-blank
//!   byte before the next paragraph of the section, so code blocks, tables and math that follow a
//!   paragraph move with it; the section's last paragraph ends with its own prose, and what
//!   follows it (`\end{document}`, a closing comment) stays at the section's end;
//! - a sentence is widened over markup glued to it (`**`, `_`, `)`, `"` …: non-whitespace right
//!   before or after it), so emphasis that wraps a sentence moves with the sentence. Only the
//!   paragraph's own sentences are reordered, never the items of an attached list or quote.
//!
//! Everything between units (blank lines, spaces) stays in place, see [`super::permute`].

use super::decode::{best_order, Problem};
use super::flow;
use super::overrule::{overrules, Evidence, OverruleModel};
use crate::score::{order_score, Level, Pairwise, Scorer, Unit};
use crate::text::{Document, Span};
use std::sync::Arc;
use std::time::Duration;

/// A container whose units can be reordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Container {
    /// The paragraphs of section `.0`.
    Section(usize),
    /// The sentences of a paragraph.
    Paragraph {
        /// Section index.
        section: usize,
        /// Paragraph index within the section.
        paragraph: usize,
    },
}

impl Container {
    /// The level of the units this container holds.
    pub fn level(self) -> Level {
        match self {
            Container::Section(_) => Level::Paragraph,
            Container::Paragraph { .. } => Level::Sentence,
        }
    }
}

/// Smallest gain in mean transition score for which a reorder is offered.
pub const MIN_GAIN: f64 = 0.02;
/// How many units a container needs for an order to be proposed: the range on which the judges'
/// margins and overrule models are calibrated (`segue eval --task reorder`). Beyond it no judge
/// has been shown to know better than the author.
pub const UNITS: std::ops::RangeInclusive<usize> = 3..=8;

/// Why a container is left in the author's order, whatever a judge thinks of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Kept {
    /// Fewer or more units than [`UNITS`].
    #[error("it has {0} units; Segue reorders 3 to 8")]
    Size(usize),
    /// A unit is not running prose: a list, a lead-in, a line that does not end as a sentence
    /// does, or (for a section) a paragraph after a code block, table or other block, or (for a
    /// paragraph) a block among its sentences, which would stay where it is while they move.
    #[error("it holds lists, code, lead-ins or lines that do not end as sentences do; Segue reorders running prose only")]
    NotProse,
    /// A quotation runs from one unit into the next (a turn of dialogue that goes on after the
    /// narrator's words, a speech over several paragraphs): moving the units would part its
    /// opening mark from its closing one.
    #[error("a quotation runs across its units; moving them would break it")]
    Quotation,
    /// No such container.
    #[error("there is no such section or paragraph")]
    Missing,
}

/// Whether `container` is one Segue proposes orders for: [`UNITS`] units, every one running
/// prose (no list, no lead-in, each sentence ending as a sentence does; in a section, no
/// paragraph after a code block or table; in a paragraph, no block among its sentences). These
/// are the containers the judges are calibrated on; anything else keeps the author's order.
pub fn reorderable(doc: &Document, container: Container) -> Result<(), Kept> {
    let prose = |p: &crate::text::Paragraph| {
        !p.list
            && p.own_sentences == p.sentences.len()
            && p.sentences
                .iter()
                .all(|s| s.ending() == crate::text::Ending::Complete)
    };
    let (units, all_prose, quotes_closed) = match container {
        Container::Section(s) => {
            let paras = &doc.sections.get(s).ok_or(Kept::Missing)?.paragraphs;
            (
                paras.len(),
                paras.iter().all(|p| prose(p) && !p.after_block),
                paras
                    .iter()
                    .all(|p| quotes_balance(p.sentences.iter().map(|s| s.text.as_str()))),
            )
        }
        Container::Paragraph { section, paragraph } => {
            let p = doc
                .sections
                .get(section)
                .and_then(|s| s.paragraphs.get(paragraph))
                .ok_or(Kept::Missing)?;
            (
                p.sentences.len(),
                prose(p) && !p.blocks_inside,
                p.sentences
                    .iter()
                    .all(|s| quotes_balance(std::iter::once(s.text.as_str()))),
            )
        }
    };
    if !UNITS.contains(&units) {
        return Err(Kept::Size(units));
    }
    if !all_prose {
        return Err(Kept::NotProse);
    }
    if !quotes_closed {
        return Err(Kept::Quotation);
    }
    Ok(())
}

/// Whether every quotation opened in `texts` (read as one run of text) is closed in them: as
/// many opening as closing marks, for double quotes (straight, which pair up, and curly) and
/// single ones. A single mark between two letters is an apostrophe ("Dinah'll", "don't") and
/// counts as neither. A possessive after a plural ("the dogs' bowls") reads as a closing mark,
/// which keeps the author's order where a quotation could have been broken: the safe side.
fn quotes_balance<'a>(texts: impl Iterator<Item = &'a str>) -> bool {
    let (mut straight_double, mut curly_double, mut single) = (0usize, 0isize, 0isize);
    for text in texts {
        let chars: Vec<char> = text.chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            let before = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
            let after = chars.get(i + 1).copied();
            let letter = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
            match c {
                '"' => straight_double += 1,
                '“' => curly_double += 1,
                '”' => curly_double -= 1,
                '\'' | '‘' | '’' if letter(before) && letter(after) => {}
                '‘' => single += 1,
                '’' => single -= 1,
                '\'' => {
                    if before.is_none_or(|b| b.is_whitespace() || "([{—–-".contains(b)) {
                        single += 1;
                    } else {
                        single -= 1;
                    }
                }
                _ => {}
            }
        }
    }
    straight_double % 2 == 0 && curly_double == 0 && single == 0
}
/// Time budget of the decoder for containers beyond the exact decoder's reach.
pub const DECODE_BUDGET: Duration = Duration::from_millis(200);

/// The clean texts of the container's units, for scoring.
pub fn unit_texts(doc: &Document, container: Container) -> Option<Vec<Unit<'_>>> {
    match container {
        Container::Section(s) => Some(
            doc.sections
                .get(s)?
                .paragraphs
                .iter()
                .map(|p| p.sentences.iter().map(|t| t.text.as_str()).collect())
                .collect(),
        ),
        Container::Paragraph { section, paragraph } => {
            let p = doc.sections.get(section)?.paragraphs.get(paragraph)?;
            Some(
                p.sentences
                    .iter()
                    .take(p.own_sentences)
                    .map(|t| vec![t.text.as_str()])
                    .collect(),
            )
        }
    }
}

/// The source extents of the container's units (see the module docs), in source order.
pub fn unit_extents(doc: &Document, source: &str, container: Container) -> Option<Vec<Span>> {
    match container {
        Container::Section(s) => {
            let section = doc.sections.get(s)?;
            let starts: Vec<usize> = section
                .paragraphs
                .iter()
                .map(|p| {
                    p.disable_comment
                        .map_or(p.span.start, |c| c.start.min(p.span.start))
                })
                .collect();
            let mut out = Vec::with_capacity(starts.len());
            for (i, p) in section.paragraphs.iter().enumerate() {
                // What stands after the section's last paragraph (`\end{document}`, a closing
                // comment) closes the section, not that paragraph: it stays where it is.
                let region_end = starts
                    .get(i + 1)
                    .map_or(p.span.end, |&next| next.max(p.span.end));
                let region = source.get(p.span.end..region_end).unwrap_or("");
                let end = p.span.end + region.trim_end().len();
                out.push(Span::new(starts[i], end));
            }
            Some(out)
        }
        Container::Paragraph { section, paragraph } => {
            let p = doc.sections.get(section)?.paragraphs.get(paragraph)?;
            let own = &p.sentences[..p.own_sentences.min(p.sentences.len())];
            let mut out: Vec<Span> = Vec::with_capacity(own.len());
            for (i, s) in own.iter().enumerate() {
                let floor = out.last().map_or(p.span.start, |prev: &Span| prev.end);
                let ceiling = own.get(i + 1).map_or(p.span.end, |next| next.span.start);
                let before = source.get(floor..s.span.start).unwrap_or("");
                let glued_before =
                    before.len() - before.trim_end_matches(|c: char| !c.is_whitespace()).len();
                let after = source
                    .get(s.span.end..ceiling.max(s.span.end))
                    .unwrap_or("");
                let glued_after =
                    after.len() - after.trim_start_matches(|c: char| !c.is_whitespace()).len();
                out.push(Span::new(
                    s.span.start - glued_before,
                    s.span.end + glued_after,
                ));
            }
            Some(out)
        }
    }
}

/// What a proposal changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// One unit moves; everything else keeps its order.
    Move {
        /// The unit that moves (index in the current order).
        unit: usize,
        /// The unit it lands right after, or `None` when it moves to the front.
        after: Option<usize>,
    },
    /// Several units move.
    Reorder,
}

/// A proposed reordering of a container's units.
#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    /// The container.
    pub container: Container,
    /// Source extents of the units in their current order.
    pub spans: Vec<Span>,
    /// The proposed order: slot `i` gets unit `order[i]`.
    pub order: Vec<usize>,
    /// What the order changes: one unit moved, or several.
    pub change: Change,
    /// Mean adjacent transition score of the current order.
    pub before: f64,
    /// Mean adjacent transition score of the proposed order.
    pub after: f64,
    /// The gain the judge must see before the author's order is overruled ([`margin`]), for
    /// judges without an overrule model.
    pub margin: f64,
    /// How confident the judge's overrule model is that the current order is not what the author
    /// meant ([`super::overrule`]); `None` for judges without one (the margin decides).
    pub confidence: Option<f64>,
    /// The confidence from which a proposal is offered.
    pub threshold: Option<f64>,
    /// How much more confident (logits) the model must be for a proposal that changes the
    /// container's first unit ([`OverruleModel::first_unit_logit`]).
    pub first_unit_logit: f64,
    /// Whether the order is proven optimal for the scorer.
    pub exact: bool,
    /// Whether the proposed order would separate a unit that leans on what comes before it
    /// ("It's…", "Such…", "However, …") from the unit its author put before it: its first words
    /// would point at something else; or it would move a first unit that keeps its place (an
    /// answer, a sentence that takes up the block before it, a condition, the rest of a cut
    /// sentence: [`refused`]), so such an order is never offered.
    pub dangling: bool,
    /// The flow judge's reading, where the judge's overrule model reads it: the flow judge chose
    /// the order among the table's best candidates ([`super::flow`]), and `before` and `after`
    /// are its probabilities that the current and the proposed order read as an author's.
    pub flow: Option<FlowCheck>,
}

/// The flow judge's logits for the current and the proposed order ([`super::flow`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowCheck {
    /// The flow logit of the current order.
    pub before: f64,
    /// The flow logit of the proposed order.
    pub after: f64,
}

impl Proposal {
    /// How much the proposed order improves on the current one.
    pub fn gain(&self) -> f64 {
        self.after - self.before
    }

    /// Whether the proposal changes anything.
    pub fn moves(&self) -> bool {
        self.order.iter().enumerate().any(|(i, &u)| i != u)
    }

    /// What the proposal does, in words, for titles: "Reorder paragraphs in this section: move
    /// the paragraph ‘Routes are…’ after ‘Flask uses routing…’". The part before the colon is
    /// stable (editor clients find the action by it); the rest names the move when one unit
    /// moves.
    pub fn summary(&self, source: &str) -> String {
        let (what, unit) = match self.container {
            Container::Section(_) => ("Reorder paragraphs in this section", "paragraph"),
            Container::Paragraph { .. } => ("Reorder sentences in this paragraph", "sentence"),
        };
        let opening = |i: usize| {
            let text = self.spans.get(i).map_or("", |s| s.slice(source));
            let words: Vec<&str> = text.split_whitespace().collect();
            let more = if words.len() > 5 { "…" } else { "" };
            format!("‘{}{more}’", words[..words.len().min(5)].join(" "))
        };
        match self.change {
            Change::Move { unit: moved, after } => match after {
                None => format!("{what}: move the {unit} {} to the start", opening(moved)),
                Some(after) => format!(
                    "{what}: move the {unit} {} after {}",
                    opening(moved),
                    opening(after)
                ),
            },
            Change::Reorder => what.to_string(),
        }
    }

    /// Whether the proposal changes the unit that opens the container.
    pub fn moves_first(&self) -> bool {
        changes_first(&self.order)
    }

    /// The unit the proposal moves, when it moves one: where a code action is offered.
    pub fn moved_unit(&self) -> Option<usize> {
        match self.change {
            Change::Move { unit, .. } => Some(unit),
            Change::Reorder => None,
        }
    }

    /// Whether the proposal is worth offering: it moves something, gains at least [`MIN_GAIN`],
    /// and the judge's overrule model is confident enough that the author's order is an accident
    /// (for judges without a model: the gain reaches the judge's margin).
    pub fn worthwhile(&self) -> bool {
        if !self.moves() || self.dangling {
            return false;
        }
        let gain = self
            .flow
            .map_or_else(|| self.gain(), |f| f.after - f.before);
        if gain < MIN_GAIN {
            return false;
        }
        match (self.confidence, self.threshold) {
            (Some(p), Some(t)) => overrules(p, t, self.first_unit_logit, self.moves_first()),
            _ => self.gain() >= self.margin,
        }
    }
}

/// Whether `order` (slot `i` gets unit `order[i]`) puts another unit first than the one that
/// opens the container now.
pub fn changes_first(order: &[usize]) -> bool {
    order.first().is_some_and(|&u| u != 0)
}

/// The reorder margins shipped with Segue (`models/reorder.json`, measured by
/// `segue eval --task reorder` on the dev part of the real-prose corpus).
const MARGINS: &str = include_str!("../../models/reorder.json");

/// The margin for judges with no measured margin: high enough that they rarely overrule the
/// author.
pub const DEFAULT_MARGIN: f64 = 0.15;

/// Reorder margins per judge and level: the gain in mean transition score below which the
/// author's order stands.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Margins {
    /// Where the margins were measured.
    pub source: String,
    /// scorer name → level name → margin.
    pub margins: std::collections::BTreeMap<String, std::collections::BTreeMap<String, f64>>,
    /// scorer name → level name → overrule model, for the judges that have one (trained by
    /// `models/train/reorder/train.py`); where one exists it decides instead of the margin.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub overrule:
        std::collections::BTreeMap<String, std::collections::BTreeMap<String, OverruleModel>>,
    /// scorer name → level name → why Segue does not let the judge propose at that level unless
    /// a user names it (`models/train/reorder/train.py`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub withheld: std::collections::BTreeMap<String, std::collections::BTreeMap<String, Withheld>>,
}

/// A judge's dev figures when they fall short of the bar for proposing by default: dev has too
/// few containers of the level ([`MIN_CALIBRATION_CONTAINERS`]) to show that it rarely proposes
/// for an author's own order, or its proposals bring shuffled copies closer to the author's order
/// no more than half the time, or a useful proposal is less than twice as likely as one on the
/// author's own order. In real documents almost every container is as its author wrote it, so
/// such a judge proposes mostly worse orders.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Withheld {
    /// Containers of the level in the calibration (dev) part.
    #[serde(default)]
    pub containers: usize,
    /// Share of untouched containers that got a proposal (%).
    pub untouched: f64,
    /// Share of shuffled copies that got a proposal bringing them closer to the author's order (%).
    pub useful: f64,
    /// Share of proposals on shuffled copies that brought them closer to the author's order (%).
    pub closer: f64,
}

/// Fewest containers of a level the calibration needs to show that a judge rarely proposes for an
/// author's own order (5 % of them may get a proposal); `models/train/reorder/train.py` uses the
/// same number.
pub const MIN_CALIBRATION_CONTAINERS: usize = 300;

impl Withheld {
    /// Why the judge is withheld, in words, its containers called `containers` ("sections",
    /// "paragraphs").
    pub fn explain(&self, containers: &str) -> String {
        if self.containers < MIN_CALIBRATION_CONTAINERS && self.closer > 50.0 {
            return format!(
                "it was calibrated on only {} {containers}, too few to show that it rarely \
                 proposes a new order for one as its author wrote it",
                self.containers
            );
        }
        format!(
            "on real documents it proposed new orders for {:.0} % of {containers} as their \
             authors wrote them, and only {:.0} % of its proposals on shuffled copies moved them \
             towards the author's order",
            self.untouched, self.closer
        )
    }
}

impl std::fmt::Display for Withheld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.explain("containers"))
    }
}

impl Margins {
    /// The margins shipped with Segue.
    pub fn shipped() -> &'static Margins {
        static SHIPPED: std::sync::OnceLock<Margins> = std::sync::OnceLock::new();
        SHIPPED.get_or_init(|| serde_json::from_str(MARGINS).unwrap_or_default())
    }

    /// The margin of `scorer` at `level`, if measured.
    pub fn get(&self, scorer: &str, level: Level) -> Option<f64> {
        self.margins.get(scorer)?.get(level.name()).copied()
    }

    /// Why `scorer` does not propose at `level` by default, if it does not.
    pub fn withheld(&self, scorer: &str, level: Level) -> Option<&Withheld> {
        self.withheld.get(scorer)?.get(level.name())
    }

    /// The overrule model of `scorer` at `level`, if it has a usable one.
    pub fn overrule(&self, scorer: &str, level: Level) -> Option<&OverruleModel> {
        self.overrule
            .get(scorer)?
            .get(level.name())
            .filter(|m| m.is_usable())
    }
}

/// The scorer that judges reorder proposals, and whether the user named it. Segue's own choice
/// proposes only at the levels its calibration trusts ([`Margins::withheld`]); a judge the user
/// named proposes wherever its rule says so.
#[derive(Clone)]
pub struct Judge {
    /// The scorer whose table ranks orders.
    pub scorer: Arc<dyn Scorer>,
    /// Whether the user named it (`--scorer`, the `scorer` setting).
    pub named: bool,
}

impl Judge {
    /// Why the judge proposes nothing at `level`, if it does not.
    pub fn withheld(&self, level: Level) -> Option<&'static Withheld> {
        if self.named {
            return None;
        }
        Margins::shipped().withheld(self.scorer.name(), level)
    }

    /// The proposal for `container` ([`propose`]), or `None` where the judge is withheld at its
    /// level or the container keeps the author's order.
    pub fn propose(&self, doc: &Document, source: &str, container: Container) -> Option<Proposal> {
        if self.withheld(container.level()).is_some() {
            return None;
        }
        propose(doc, source, container, self.scorer.as_ref())
    }
}

/// The shipped margin of `scorer` at `level` ([`DEFAULT_MARGIN`] when it has none).
pub fn margin(scorer: &str, level: Level) -> f64 {
    Margins::shipped()
        .get(scorer, level)
        .unwrap_or(DEFAULT_MARGIN)
}

/// The best order the decoder finds for a table of the container's units. The one place the
/// reorder features call the decoder.
pub fn propose_order(pairs: &dyn Pairwise) -> (Vec<usize>, bool) {
    let d = best_order(&Problem::new(pairs), DECODE_BUDGET);
    (d.order, d.exact)
}

/// Share of the whole reorder's gain that a single move must reach to be proposed instead: the
/// smallest change that gets most of the gain.
pub const MOVE_SHARE: f64 = 0.7;

/// A judge's verdict on a table of units in their current order.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The order to propose (the identity when nothing beats the current order).
    pub order: Vec<usize>,
    /// What it changes.
    pub change: Change,
    /// Score of the current order.
    pub before: f64,
    /// Score of the proposed order.
    pub after: f64,
    /// Whether the whole reorder the decoder found is proven optimal.
    pub exact: bool,
}

/// Calls `f(unit, slot, order)` for every order of `n` units that moves one unit to another
/// slot, unit by unit and slot by slot (an adjacent swap is met twice: as `unit` moving one slot
/// on and as its neighbour moving one slot back).
pub fn each_move(n: usize, mut f: impl FnMut(usize, usize, &[usize])) {
    for unit in 0..n {
        let rest: Vec<usize> = (0..n).filter(|&u| u != unit).collect();
        for slot in 0..n {
            if slot == unit {
                continue;
            }
            let mut order = rest.clone();
            order.insert(slot, unit);
            f(unit, slot, &order);
        }
    }
}

/// The best single move of a unit: `(order, score)`, or `None` for fewer than two units.
fn best_move(table: &dyn Pairwise) -> Option<(Vec<usize>, f64, Change)> {
    let mut best: Option<(Vec<usize>, f64, Change)> = None;
    each_move(table.len(), |unit, slot, order| {
        let score = order_score(table, order);
        if best.as_ref().is_none_or(|(_, s, _)| score > *s + 1e-12) {
            let after = slot.checked_sub(1).map(|i| order[i]);
            best = Some((order.to_vec(), score, Change::Move { unit, after }));
        }
    });
    best
}

/// What the judge would propose for units in the order `table` holds them: the best single
/// move when it reaches [`MOVE_SHARE`] of the best reorder's gain, else the best reorder; the
/// identity when neither beats the current order.
pub fn decide(table: &dyn Pairwise) -> Decision {
    let n = table.len();
    let identity: Vec<usize> = (0..n).collect();
    let before = order_score(table, &identity);
    let (full, exact) = propose_order(table);
    let full_score = order_score(table, &full);
    let moved = best_move(table);
    let full_gain = full_score - before;
    let keep = Decision {
        order: identity,
        change: Change::Reorder,
        before,
        after: before,
        exact,
    };
    match moved {
        Some((order, score, change))
            if score - before > 1e-12 && score - before >= MOVE_SHARE * full_gain =>
        {
            Decision {
                order,
                change,
                before,
                after: score,
                exact,
            }
        }
        _ if full_gain > 1e-12 => Decision {
            change: single_move(&full).unwrap_or(Change::Reorder),
            order: full,
            before,
            after: full_score,
            exact,
        },
        _ => keep,
    }
}

/// The move an order makes when it moves only one unit.
pub fn single_move(order: &[usize]) -> Option<Change> {
    let n = order.len();
    for unit in 0..n {
        let rest: Vec<usize> = order.iter().copied().filter(|&u| u != unit).collect();
        if rest.windows(2).all(|w| w[0] < w[1]) {
            let slot = order.iter().position(|&u| u == unit)?;
            if slot == unit {
                continue;
            }
            return Some(Change::Move {
                unit,
                after: slot.checked_sub(1).map(|i| order[i]),
            });
        }
    }
    None
}

/// Whether a unit's first sentence leans on what comes before it: an explicit link (a
/// connective, an anaphor, a demonstrative, a contraction such as "It's"), an opening cue other
/// than an opener ("First, …") or quoted speech, or the rest of a cut sentence ([`continues`]).
fn opens_on_a_link(unit: &Unit<'_>) -> bool {
    use crate::score::cues::{explicit_link, opening_cue, Cue};
    continues(unit)
        || unit.first().is_some_and(|s| {
            explicit_link(s).is_some()
                || opening_cue(s).is_some_and(|(c, _)| !matches!(c, Cue::Opening | Cue::Quotation))
        })
}

/// Whether a unit's first sentence opens in lower case: the rest of a sentence that a table or
/// a display cut off ("and where the types $T$ in recursive types can be different in each
/// component."), which belongs where its author left it.
pub fn continues(unit: &Unit<'_>) -> bool {
    unit.first()
        .and_then(|s| s.chars().find(|c| c.is_alphanumeric()))
        .is_some_and(char::is_lowercase)
}

/// Whether `order` (of a container's `units`) leaves a link without what it leans on: a unit
/// that opens on a link, or that follows a question it answers ([`follows_a_question`]), keeps
/// the unit its author put before it. The author's first unit may move: a link with nothing
/// before it is what a misplaced unit looks like. (Keeping a paragraph's linked first sentence
/// in place too was measured and not adopted: the research log, 2026-11-27.)
pub fn dangles(units: &[Unit<'_>], order: &[usize]) -> bool {
    order.iter().enumerate().any(|(at, &u)| {
        u != 0
            && units
                .get(u)
                .is_some_and(|unit| opens_on_a_link(unit) || follows_a_question(units, u))
            && at.checked_sub(1).map(|p| order[p]) != Some(u - 1)
    })
}

/// Whether unit `u` of `units` comes right after one that ends by asking a question: an FAQ's
/// "Why is MPPENCODER … the extension?" before its answer. The answer keeps its place after the
/// question, whatever its own opening.
fn follows_a_question(units: &[Unit<'_>], u: usize) -> bool {
    u.checked_sub(1)
        .and_then(|before| units.get(before))
        .and_then(|unit| unit.last())
        .is_some_and(|s| crate::score::cues::asks(s))
}

/// Whether the first unit of `container` answers a question that stands right before it: the
/// last sentence of the paragraph before (for a paragraph's sentences: Curio's "**Q: How does
/// Curio interoperate …?**" over "A: It depends on …"), or the section's heading (for the
/// paragraphs of a section headed "Why …?"). An answer keeps its place after its question.
pub fn answers_a_question(doc: &Document, container: Container) -> bool {
    use crate::score::cues::asks;
    let heading_asks = |section: usize| {
        doc.sections
            .get(section)
            .and_then(|s| s.heading.as_ref())
            .is_some_and(|h| asks(&h.title))
    };
    match container {
        Container::Section(section) => heading_asks(section),
        Container::Paragraph { section, paragraph } => match paragraph.checked_sub(1) {
            Some(before) => doc
                .sections
                .get(section)
                .and_then(|s| s.paragraphs.get(before))
                .and_then(|p| p.sentences.last())
                .is_some_and(|s| asks(&s.text)),
            None => heading_asks(section),
        },
    }
}

/// Words that open a sentence with a condition: "If it has line drawing characters, then …".
const CONDITIONS: &[&str] = &[
    "assuming",
    "if",
    "provided",
    "suppose",
    "supposing",
    "unless",
];

/// Whether a unit's first sentence opens with a condition that a comma closes ("If it has line
/// drawing characters, then a new terminfo entry should be written …"): the frame for the units
/// after it, which take it up ("The acsc variable should be modified …").
pub fn opens_with_a_condition(unit: &Unit<'_>) -> bool {
    unit.first().is_some_and(|s| {
        let first = s
            .split(|c: char| !c.is_alphanumeric())
            .find(|w| !w.is_empty());
        first.is_some_and(|w| CONDITIONS.contains(&w.to_lowercase().as_str())) && s.contains(',')
    })
}

/// Whether the first sentence of paragraph `container` takes up a block (code, a table), a list
/// or a quotation that stands right before the paragraph (the items and quoted text a paragraph
/// holds after its own sentences end it): docopt's "Beat that! The option parser is
/// generated based on the docstring above …" after its example, and "But you can always create
/// a port for your favorite language!" after its list of ports. It keeps its place next to them.
pub fn follows_a_block(doc: &Document, container: Container) -> bool {
    match container {
        Container::Paragraph { section, paragraph } => {
            let paragraphs = doc.sections.get(section).map(|s| &s.paragraphs[..]);
            let after_list = paragraph
                .checked_sub(1)
                .and_then(|before| paragraphs?.get(before))
                .is_some_and(|p| p.list || p.own_sentences < p.sentences.len());
            after_list
                || paragraphs
                    .and_then(|ps| ps.get(paragraph))
                    .is_some_and(|p| p.after_block)
        }
        Container::Section(_) => false,
    }
}

/// Whether the first unit of `container` keeps its place because of where the container stands:
/// it answers a question ([`answers_a_question`]) or takes up a block ([`follows_a_block`]).
pub fn first_unit_stands(doc: &Document, container: Container) -> bool {
    answers_a_question(doc, container) || follows_a_block(doc, container)
}

/// Whether `container` opens its section right under the heading: the section's paragraphs, or
/// the sentences of its first paragraph. A pronoun that opens its first unit ("They usually
/// operate on any complex argument" under "Transcendental functions") stands for the heading.
pub fn under_a_heading(doc: &Document, container: Container) -> bool {
    let section = match container {
        Container::Section(section) => section,
        Container::Paragraph {
            section,
            paragraph: 0,
        } => section,
        Container::Paragraph { .. } => return false,
    };
    doc.sections
        .get(section)
        .is_some_and(|s| s.heading.is_some())
}

/// Whether a unit opens with a third-person pronoun ("They", "It", "Its"), which right under a
/// heading stands for what the heading names, or with a demonstrative ("This", "These", "The
/// above example"), which there points back across the heading. Either keeps its place: moved
/// down the section, it would point at whatever came to stand before it.
fn opens_pointing_back(unit: &Unit<'_>) -> bool {
    use crate::score::cues::{opening_cue, Cue};
    use unicode_segmentation::UnicodeSegmentation;
    unit.first().is_some_and(|s| {
        let back = |w: &str| {
            matches!(
                w.to_lowercase().as_str(),
                "above" | "preceding" | "previous" | "aforementioned"
            )
        };
        opening_cue(s).is_some_and(|(cue, _)| matches!(cue, Cue::Personal | Cue::Demonstrative))
            || s.unicode_words().take(4).any(back)
    })
}

/// Whether a unit opens with a short label and a colon ("August: LDAP:// and FILE:// support
/// added.", [`crate::score::parallel::labelled`]): the label dates or names the rest of its
/// container, so it stays first.
fn opens_with_a_label(unit: &Unit<'_>) -> bool {
    unit.first()
        .is_some_and(|s| crate::score::parallel::labelled(s))
}

/// Whether `order` is refused outright: it leaves a link without what it leans on
/// ([`dangles`]), or it moves the first unit of a container whose place keeps it first
/// ([`first_unit_stands`], given as `stands`), or a first unit that sets a condition
/// ([`opens_with_a_condition`]), carries on a sentence from before ([`continues`]), opens with a
/// label ([`opens_with_a_label`]) or, right under a heading ([`under_a_heading`]), opens with a
/// pronoun or a demonstrative ([`opens_pointing_back`]).
pub fn refused(units: &[Unit<'_>], order: &[usize], stands: bool, under_heading: bool) -> bool {
    let first_stands = stands
        || units.first().is_some_and(|u| {
            opens_with_a_condition(u)
                || continues(u)
                || opens_with_a_label(u)
                || (under_heading && opens_pointing_back(u))
        });
    dangles(units, order) || (first_stands && changes_first(order))
}

/// The reorder proposal for `container` under `scorer`, or `None` when the container keeps the
/// author's order whatever the judge thinks ([`reorderable`]). Whether it is offered is
/// [`Proposal::worthwhile`].
pub fn propose(
    doc: &Document,
    source: &str,
    container: Container,
    scorer: &dyn Scorer,
) -> Option<Proposal> {
    reorderable(doc, container).ok()?;
    let units = unit_texts(doc, container)?;
    let spans = unit_extents(doc, source, container)?;
    let level = container.level();
    let table = scorer.prepare(&units, level);
    let d = decide(table.as_ref());
    let stands = first_unit_stands(doc, container);
    let under_heading = under_a_heading(doc, container);
    let mut model = Margins::shipped().overrule(scorer.name(), level);
    let mut evidence = Evidence::of(table.as_ref(), &units, d.before, d.after);
    let mut proposal = Proposal {
        container,
        spans,
        dangling: refused(&units, &d.order, stands, under_heading),
        order: d.order.clone(),
        change: d.change,
        before: d.before,
        after: d.after,
        margin: margin(scorer.name(), level),
        threshold: None,
        first_unit_logit: 0.0,
        confidence: None,
        exact: d.exact,
        flow: None,
    };
    if model.is_some_and(OverruleModel::reads_flow) {
        // The model reads the flow judge, which chooses the order among the table's best; where
        // it cannot (models installed before it, a failed run) the judge's margin decides.
        let choice = scorer
            .flow_judge()
            .and_then(|j| flow::choose(&j, &units, table.as_ref(), &d.order).ok());
        match choice {
            Some(c) => {
                evidence = evidence.map(|e| e.with_flow(c.before, c.gain()));
                let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
                proposal.dangling = refused(&units, &c.order, stands, under_heading);
                proposal.change = single_move(&c.order).unwrap_or(Change::Reorder);
                proposal.before = sigmoid(c.before);
                proposal.after = sigmoid(c.after);
                proposal.flow = Some(FlowCheck {
                    before: c.before,
                    after: c.after,
                });
                proposal.order = c.order;
            }
            None => model = None,
        }
    }
    proposal.confidence = model.and_then(|m| evidence.as_ref().map(|e| m.confidence(e)));
    proposal.threshold = proposal.confidence.and(model.map(|m| m.threshold));
    proposal.first_unit_logit = model.map_or(0.0, |m| m.first_unit_logit);
    Some(proposal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::order::permute::{apply, permute};
    use crate::score::lexical::Lexical;
    use crate::text::{parse, Format};

    #[test]
    fn paragraph_extents_carry_code_and_disable_comments() {
        let src = "# T\n\nFirst para.\n\n```\ncode\n```\n\n<!-- segue-disable-next -->\nSecond para.\n\n# U\n\nOther.\n";
        let doc = parse(src, Format::Markdown);
        let spans = unit_extents(&doc, src, Container::Section(0)).unwrap();
        assert_eq!(spans[0].slice(src), "First para.\n\n```\ncode\n```");
        assert_eq!(
            spans[1].slice(src),
            "<!-- segue-disable-next -->\nSecond para."
        );
        // What closes the document after the last paragraph stays at the end.
        let tex = "\\section{T}\nFirst para.\n\nSecond para.\n\\end{document}\n";
        let doc = parse(tex, Format::Latex);
        let spans = unit_extents(&doc, tex, Container::Section(0)).unwrap();
        assert_eq!(spans[1].slice(tex), "Second para.");
    }

    #[test]
    fn an_answer_keeps_its_place_after_its_question() {
        // Curio's README: a question in bold over its answer; a heading that asks.
        let src = "# Plain\n\nBirds fly. Birds sing. Birds eat.\n\n\
                   Is it fast? It is. Loops are short. Queues are small.\n\n\
                   **Q: How does Curio interoperate with asyncio?**\n\n\
                   A: It depends on what you mean. Curio runs a kernel. Tasks talk through \
                   queues.\n\n# Why a kernel?\n\nOne loop is simpler. Tasks are cheap.\n\n\
                   Queues are safe.\n";
        let doc = parse(src, Format::Markdown);
        let find = |opening: &str| {
            doc.sections.iter().enumerate().find_map(|(section, s)| {
                s.paragraphs
                    .iter()
                    .position(|p| p.sentences[0].text.starts_with(opening))
                    .map(|paragraph| Container::Paragraph { section, paragraph })
            })
        };
        let answer = find("A: It depends").expect("the answer");
        assert!(answers_a_question(&doc, answer));
        let why = find("One loop").expect("the first paragraph under a question");
        assert!(answers_a_question(&doc, why));
        let Container::Paragraph { section, .. } = why else {
            panic!("{why:?}")
        };
        assert!(answers_a_question(&doc, Container::Section(section)));
        // A question inside the paragraph itself is not before it.
        assert!(!answers_a_question(
            &doc,
            find("Is it fast").expect("the question")
        ));
        let plain = find("Birds fly").expect("plain");
        assert!(!answers_a_question(&doc, plain));
        let units = unit_texts(&doc, answer).unwrap();
        // The answer's first sentence stays first; the rest may move.
        assert!(refused(&units, &[1, 0, 2], true, false));
        assert!(!refused(&units, &[0, 2, 1], true, false));
        // Its label "A:" keeps it first too.
        assert!(refused(&units, &[1, 0, 2], false, false));
        let unlabelled: Vec<Unit<'_>> = units
            .iter()
            .map(|u| u.iter().map(|s| s.trim_start_matches("A: ")).collect())
            .collect();
        assert!(!refused(&unlabelled, &[1, 0, 2], false, false));
    }

    #[test]
    fn a_sentence_after_a_block_keeps_its_place() {
        // docopt's README: "Beat that!" takes up the example above it.
        let src = "# docopt\n\nThe usage is the parser. Here is an example.\n\n\
                   ```python\nprint(docopt(__doc__))\n```\n\n\
                   Beat that! The option parser is generated from the docstring above. It parses \
                   the usage pattern. The basic idea is that a good help message has it all.\n";
        let doc = parse(src, Format::Markdown);
        let after = Container::Paragraph {
            section: 0,
            paragraph: 1,
        };
        let before = Container::Paragraph {
            section: 0,
            paragraph: 0,
        };
        assert!(doc.sections[0].paragraphs[1].sentences[0]
            .text
            .starts_with("Beat that"));
        assert!(follows_a_block(&doc, after) && first_unit_stands(&doc, after));
        assert!(!follows_a_block(&doc, before) && !first_unit_stands(&doc, before));
        assert!(!follows_a_block(&doc, Container::Section(0)));
    }

    #[test]
    fn a_sentence_after_a_list_keeps_its_place() {
        // docopt's README: "But you can always create a port …" takes up its list of ports.
        let src = "# Ports\n\nThere are ports for many languages. They are listed below.\n\n\
                   - Lua port\n- PHP port\n\n\
                   But you can always create a port for your favorite language! You are \
                   encouraged to use the Python version as a reference. A test suite is bundled \
                   with the Python implementation.\n";
        let doc = parse(src, Format::Markdown);
        let paras = &doc.sections[0].paragraphs;
        // The list is the lead-in paragraph's items.
        assert!(paras[0].own_sentences == 2 && paras[0].sentences.len() == 4);
        assert!(paras[1].sentences[0].text.starts_with("But you"));
        let after = Container::Paragraph {
            section: 0,
            paragraph: 1,
        };
        assert!(follows_a_block(&doc, after) && first_unit_stands(&doc, after));
        let first = Container::Paragraph {
            section: 0,
            paragraph: 0,
        };
        assert!(!follows_a_block(&doc, first));
    }

    #[test]
    fn a_pronoun_under_a_heading_stands_for_it() {
        // PARI's users' guide: "They" is the transcendental functions of the heading.
        let src = "\\subsec{Transcendental functions} They usually operate on any complex \
                   argument. Recall that by extension, PARI accepts exact arguments. The list is \
                   ever-expanding.\n\nIt goes on. Then it stops. Then it starts again.\n";
        let doc = parse(src, Format::Latex);
        let first = Container::Paragraph {
            section: 0,
            paragraph: 0,
        };
        let second = Container::Paragraph {
            section: 0,
            paragraph: 1,
        };
        assert!(under_a_heading(&doc, first) && !under_a_heading(&doc, second));
        assert!(under_a_heading(&doc, Container::Section(0)));
        let units: Vec<Unit<'_>> = vec![
            vec!["They usually operate on any complex argument."],
            vec!["Recall that by extension, PARI accepts exact arguments."],
            vec!["The list is ever-expanding."],
        ];
        assert!(refused(&units, &[2, 0, 1], false, true));
        assert!(!refused(&units, &[2, 0, 1], false, false));
        let mut plain = units.clone();
        plain[0] = vec!["Most functions operate on any complex argument."];
        assert!(!refused(&plain, &[2, 0, 1], false, true));
    }

    #[test]
    fn a_demonstrative_under_a_heading_points_back_across_it() {
        // SymPy's introduction: "The above example" is the one before the heading.
        let units: Vec<Unit<'_>> = vec![
            vec!["The above example starts to show how we can manipulate irrational numbers exactly using SymPy."],
            vec!["But it is much more powerful than that."],
            vec!["Symbolic computation systems such as SymPy are capable of computing symbolic expressions with variables."],
        ];
        assert!(refused(&units, &[2, 0, 1], false, true));
        assert!(!refused(&units, &[2, 0, 1], false, false));
        let mut this = units.clone();
        this[0] = vec!["This example shows how we can manipulate irrational numbers."];
        assert!(refused(&this, &[2, 0, 1], false, true));
    }

    #[test]
    fn an_answer_keeps_its_question_before_it() {
        // abcde's FAQ: a question and its answer inside one paragraph.
        let units: Vec<Unit<'_>> = vec![
            vec!["The extension is not always right."],
            vec!["Why is MPPENCODER used for the extension?"],
            vec!["Because the encoder decides the container format."],
        ];
        assert!(refused(&units, &[0, 2, 1], false, false));
        assert!(!refused(&units, &[1, 2, 0], false, false));
        let mut plain = units.clone();
        plain[1] = vec!["MPPENCODER names the extension."];
        assert!(!refused(&plain, &[0, 2, 1], false, false));
    }

    #[test]
    fn a_first_sentence_with_a_label_stands() {
        // curl's history: the month dates the paragraph's other sentences.
        let units: Vec<Unit<'_>> = vec![
            vec!["August: LDAP:// and FILE:// support added."],
            vec!["The curl website gets 1300 visits weekly."],
            vec!["Moved site to curl.haxx.nu."],
        ];
        assert!(refused(&units, &[1, 2, 0], false, false));
        let mut plain = units.clone();
        plain[0] = vec!["LDAP:// and FILE:// support was added in August."];
        assert!(!refused(&plain, &[1, 2, 0], false, false));
    }

    #[test]
    fn a_first_sentence_that_sets_a_condition_stands() {
        // Midnight Commander's FAQ, an answer on line drawing characters.
        let units: Vec<Unit<'_>> = vec![
            vec!["If it has line drawing characters, then a new terminfo entry should be written for this specific case."],
            vec!["Let's call this linux-iso01."],
            vec!["The acsc variable should be modified to reflect which characters are used to do the line drawing."],
        ];
        assert!(opens_with_a_condition(&units[0]));
        assert!(refused(&units, &[2, 0, 1], false, false));
        let mut plain = units.clone();
        plain[0] = vec!["A new terminfo entry should be written for this specific case."];
        assert!(!refused(&plain, &[2, 0, 1], false, false));
        assert!(!opens_with_a_condition(&vec!["If in doubt ask."]));
        // PARI's users' guide: the rest of a sentence that a table of types cut off.
        let cut: Vec<Unit<'_>> = vec![
            vec!["and where the types T in recursive types can be different in each component."],
            vec!["The first nine basic types, from INT to POLMOD, are called scalar types."],
            vec!["Type POLMOD is used to define algebraic extensions of a base ring."],
        ];
        assert!(continues(&cut[0]) && !continues(&cut[1]));
        assert!(refused(&cut, &[1, 2, 0], false, false));
        assert!(refused(
            &[cut[1].clone(), cut[0].clone()],
            &[1, 0],
            false,
            false
        ));
        assert!(!opens_with_a_condition(&vec!["Iffy code, then."]));
    }

    #[test]
    fn a_linked_unit_keeps_the_unit_before_it_and_a_first_unit_may_move() {
        let src = "# Why\n\nOptparse accepts callbacks. This makes variadic arguments ambiguous. \
                   Tradeoffs remain.\n";
        let doc = parse(src, Format::Markdown);
        let container = Container::Paragraph {
            section: 0,
            paragraph: 0,
        };
        let units = unit_texts(&doc, container).unwrap();
        // "This makes …" leans on the sentence before it: it keeps it.
        assert!(dangles(&units, &[1, 0, 2]));
        assert!(dangles(&units, &[0, 2, 1]));
        assert!(!dangles(&units, &[2, 0, 1]));
        assert!(!dangles(&units, &[0, 1, 2]));
    }

    #[test]
    fn sentence_extents_include_glued_markup_and_skip_lists() {
        let src = "**Bold first.** Then *second one.* Last (third).\n\n- item one\n";
        let doc = parse(src, Format::Markdown);
        let c = Container::Paragraph {
            section: 0,
            paragraph: 0,
        };
        let spans = unit_extents(&doc, src, c).unwrap();
        let texts: Vec<&str> = spans.iter().map(|s| s.slice(src)).collect();
        assert_eq!(
            texts,
            vec!["**Bold first.**", "Then *second one.*", "Last (third)."]
        );
        let out = apply(src, &permute(src, &spans, &[2, 0, 1]).unwrap().unwrap()).unwrap();
        assert_eq!(
            out,
            "Last (third). **Bold first.** Then *second one.*\n\n- item one\n"
        );
    }

    #[test]
    fn only_running_prose_of_three_to_eight_units_is_reordered() {
        let prose = "# A\n\nThe moon is bright. It rose late.\n\nThe sun set early. It was red.\n\nThe stars came out. They shone.\n";
        let doc = parse(prose, Format::Markdown);
        assert_eq!(reorderable(&doc, Container::Section(0)), Ok(()));
        let two = "# A\n\nThe moon is bright.\n\nThe sun set early.\n";
        let doc = parse(two, Format::Markdown);
        assert_eq!(reorderable(&doc, Container::Section(0)), Err(Kept::Size(2)));
        assert!(propose(&doc, two, Container::Section(0), &Lexical::plain()).is_none());
        let nine: String = (0..9)
            .map(|i| format!("Unit {i} says a thing.\n\n"))
            .collect();
        let doc = parse(&nine, Format::Markdown);
        assert_eq!(reorderable(&doc, Container::Section(0)), Err(Kept::Size(9)));
        // A lead-in and its code block, and a list: structure, not running prose.
        let mixed = "# A\n\nRun the command:\n\n```\nls -a\n```\n\nThe output lists files.\n\n- one item\n\nThe end is near.\n";
        let doc = parse(mixed, Format::Markdown);
        assert_eq!(
            reorderable(&doc, Container::Section(0)),
            Err(Kept::NotProse)
        );
        assert_eq!(reorderable(&doc, Container::Section(7)), Err(Kept::Missing));
    }

    #[test]
    fn a_quotation_across_units_keeps_their_order() {
        let first = Container::Paragraph {
            section: 0,
            paragraph: 0,
        };
        // Alice's Adventures in Wonderland: a turn of dialogue goes on after "Alice went on",
        // so its sentences carry the marks of one quotation between them.
        let alice = concat!(
            "'How queer it seems,' Alice said to herself, 'to be going messages for a rabbit! ",
            "I suppose Dinah'll be sending me on messages next!' And she began fancying the sort ",
            "of thing that would happen: '\"Miss Alice! Come here directly!\" \"Coming in a ",
            "minute, nurse! But I've got to see that the mouse doesn't get out.\" Only I don't ",
            "think,' Alice went on, 'that they'd let Dinah stop in the house!'\n",
        );
        let doc = parse(alice, Format::Plain);
        assert!(doc.sections[0].paragraphs[0].sentences.len() >= 3);
        assert_eq!(reorderable(&doc, first), Err(Kept::Quotation));
        // Quotations closed inside each sentence, apostrophes and curly marks: running prose.
        let closed =
            "She said “stop here.” The dogs didn't stop. Then ‘go’ was heard. They went.\n";
        let doc = parse(closed, Format::Plain);
        assert_eq!(reorderable(&doc, first), Ok(()));
        // A speech over two paragraphs opens each with a mark and closes only at its end.
        let speech = concat!(
            "# A\n\n\"The first thing is the moon. It rose late.\n\n",
            "\"The second is the sun. It set early.\"\n\nThe stars came out. They shone.\n",
        );
        let doc = parse(speech, Format::Markdown);
        assert_eq!(
            reorderable(&doc, Container::Section(0)),
            Err(Kept::Quotation)
        );
        assert!(!quotes_balance(["It's the dogs' bowl"].into_iter()));
        assert!(quotes_balance(["'Yes,' she said. 'No.'"].into_iter()));
    }

    #[test]
    fn a_paragraphs_sentences_keep_the_blocks_among_them() {
        let first = Container::Paragraph {
            section: 0,
            paragraph: 0,
        };
        let last = Container::Paragraph {
            section: 1,
            paragraph: 0,
        };
        // latex-clsguide.tex: verbatim environments inside a paragraph. Moving the sentences
        // around them would put "and switches off section numbering." after the wrong code.
        let latex = concat!(
            "\\section{A}\n",
            "It redefines the heading and switches off numbering.\n",
            "\\begin{verbatim}\n\\setcounter{secnumdepth}{0}\n\\end{verbatim}\n",
            "It also sets the three essential things.\n",
            "\\begin{verbatim}\n\\setlength{\\textwidth}{17.5cm}\n\\end{verbatim}\n",
            "In practice, a class would need more. This skeleton gives a start.\n\n",
            "\\section{B}\nThe moon is bright. It rose late. The stars came out.\n",
        );
        let doc = parse(latex, Format::Latex);
        assert_eq!(doc.sections[0].paragraphs[0].sentences.len(), 4);
        assert!(doc.sections[0].paragraphs[0].blocks_inside);
        assert_eq!(reorderable(&doc, first), Err(Kept::NotProse));
        assert_eq!(reorderable(&doc, last), Ok(()));
        // Markdown: a sentence after a code block that goes on in lower case joins the paragraph
        // before it; the code block stays between them.
        let md = concat!(
            "# A\n\nThe first thing to do is to open a connection. Open it once. Keep it.\n\n",
            "```python\ndb = connect()\n```\n\n",
            "`g` is a special object. It lives for one request.\n\n",
            "# B\n\nThe moon is bright. It rose late. The stars came out.\n",
        );
        let doc = parse(md, Format::Markdown);
        assert_eq!(doc.sections[0].paragraphs[0].sentences.len(), 5);
        assert_eq!(reorderable(&doc, first), Err(Kept::NotProse));
        assert_eq!(reorderable(&doc, last), Ok(()));
        assert!(propose(&doc, md, first, &Lexical::plain()).is_none());
    }

    #[test]
    fn shipped_overrule_models_read_the_evidence_segue_computes() {
        let shipped = Margins::shipped();
        assert!(shipped.overrule("tier0", Level::Sentence).is_some());
        for (judge, levels) in &shipped.overrule {
            for (level, model) in levels {
                assert!(model.is_usable(), "{judge} {level}");
                let mut names = super::super::overrule::FEATURES.to_vec();
                if model.reads_flow() {
                    names.extend(super::super::overrule::FLOW_FEATURES);
                }
                assert_eq!(model.logistic.features, names, "{judge} {level}");
                assert!((0.0..1.0).contains(&model.threshold), "{judge} {level}");
            }
        }
    }

    #[test]
    fn a_judge_with_an_overrule_model_decides_by_its_confidence() {
        let src = "# S\n\nThe charlie meets the delta. However, the alpha meets the bravo. The bravo meets the charlie. First, the alpha arrives.\n";
        let doc = parse(src, Format::Markdown);
        let set = crate::score::ScorerSet::builtin();
        let tier0 = set.get("tier0").unwrap();
        let c = Container::Paragraph {
            section: 0,
            paragraph: 0,
        };
        let p = propose(&doc, src, c, tier0.as_ref()).unwrap();
        let (confidence, threshold) = (p.confidence.unwrap(), p.threshold.unwrap());
        assert_eq!(
            p.worthwhile(),
            p.moves() && p.gain() >= MIN_GAIN && confidence >= threshold,
            "{p:?}"
        );
        // A judge without a model keeps the margin rule.
        let lex = Lexical::plain();
        let q = propose(&doc, src, c, &lex).unwrap();
        assert!(q.confidence.is_none() && q.threshold.is_none());
    }

    #[test]
    fn the_built_in_judge_is_withheld_unless_named() {
        // Shipped calibration: tier0's proposals on real prose are no better than chance.
        let shipped = Margins::shipped();
        let w = shipped
            .withheld("tier0", Level::Paragraph)
            .expect("tier0 withheld");
        assert!(w.closer <= 50.0 || w.useful < 2.0 * w.untouched, "{w:?}");
        assert!(shipped.withheld("tier1", Level::Sentence).is_none());
        // Too few dev sections to calibrate any judge's section proposals.
        let sections = shipped
            .withheld("tier1", Level::Paragraph)
            .expect("tier1 sections");
        assert!(sections.containers < MIN_CALIBRATION_CONTAINERS);
        assert!(
            sections.to_string().contains("too few to show"),
            "{sections}"
        );
        let src = "# S\n\nThe delta meets the echo.\n\nThe alpha meets the bravo.\n\nThe charlie meets the delta.\n\nThe bravo meets the charlie.\n";
        let doc = parse(src, Format::Markdown);
        let tier0 = crate::score::ScorerSet::builtin().get("tier0").unwrap();
        let by_default = Judge {
            scorer: tier0.clone(),
            named: false,
        };
        assert!(by_default
            .propose(&doc, src, Container::Section(0))
            .is_none());
        let named = Judge {
            scorer: tier0,
            named: true,
        };
        assert!(named.withheld(Level::Paragraph).is_none());
        assert!(named.propose(&doc, src, Container::Section(0)).is_some());
        let text = w.to_string();
        assert!(
            text.contains("% of its proposals on shuffled copies"),
            "{text}"
        );
    }

    #[test]
    fn an_order_that_would_open_on_a_link_is_never_offered() {
        // Flask's quickstart: a named judge moves "It's similar to a folder…" before the
        // sentence it refers to; the order would open on "It's".
        let src = "# URLs\n\nThe canonical URL for the projects endpoint has a trailing slash. \
                   It's similar to a folder in a file system. If you access the URL without a \
                   trailing slash, Flask redirects you to the canonical URL with the slash.\n";
        let doc = parse(src, Format::Markdown);
        let c = Container::Paragraph {
            section: 0,
            paragraph: 0,
        };
        let lex = Lexical::plain();
        let mut p = propose(&doc, src, c, &lex).unwrap();
        // Whatever the judge prefers, an order starting with the linked sentence is refused.
        p.order = vec![1, 0, 2];
        p.after = p.before + 1.0;
        p.margin = 0.0;
        p.dangling = true;
        assert!(!p.worthwhile());
        let units = unit_texts(&doc, c).unwrap();
        assert!(opens_on_a_link(&units[1]), "{:?}", units[1]);
        assert!(!opens_on_a_link(&units[0]));
    }

    #[test]
    fn proposes_a_chain_and_declines_when_already_best() {
        let src = "# S\n\nThe delta meets the echo.\n\nThe alpha meets the bravo.\n\nThe charlie meets the delta.\n\nThe bravo meets the charlie.\n";
        let doc = parse(src, Format::Markdown);
        let lex = Lexical::plain();
        let p = propose(&doc, src, Container::Section(0), &lex).unwrap();
        assert!(p.moves() && p.gain() > 0.0);
        let out = apply(src, &permute(src, &p.spans, &p.order).unwrap().unwrap()).unwrap();
        let doc2 = parse(&out, Format::Markdown);
        let p2 = propose(&doc2, &out, Container::Section(0), &lex).unwrap();
        assert!(!p2.moves(), "{out}");
    }
}
