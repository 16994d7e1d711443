//! The reorder test: how often a judge would overrule the author, on real documents.
//!
//! Containers are taken from a folder of real documents ([`super::prose`]): sections of 3 to 8
//! paragraphs and paragraphs of 3 to 8 sentences, every unit running prose (no list, no lead-in,
//! each ending as a sentence does). For each container the judge's verdict ([`decide`]) is taken
//! - on the author's order (**untouched**: a proposal there is a false alarm), and
//! - on shuffled copies (**shuffled**: a proposal there is wanted, and it should bring the
//!   units back towards the author's order).
//!
//! The margin a judge needs ([`crate::order::reorder::Margins`]) is the smallest gain that keeps
//! proposals on untouched containers at or under [`UNTOUCHED_TARGET`].

use super::prose::ProseDoc;
use crate::order::flow::choose;
use crate::order::metrics::kendall_tau;
use crate::order::overrule::{Evidence, OverruleModel};
use crate::order::reorder::{
    changes_first, decide, first_unit_stands, refused, reorderable, under_a_heading, unit_texts,
    Container, MIN_GAIN,
};
use crate::score::{Level, Scorer, Unit};
use crate::text::{parse, Document};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// Share of untouched containers that may get a proposal at the calibrated margin.
pub const UNTOUCHED_TARGET: f64 = 0.05;

/// The verdicts on one container.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContainerCase {
    /// The document.
    pub id: String,
    /// The document's genre.
    pub genre: String,
    /// Sentence (a paragraph's sentences) or paragraph (a section's paragraphs).
    pub level: Level,
    /// Units in the container.
    pub units: usize,
    /// The gain of the judge's proposal on the author's order (0 when it keeps it).
    pub untouched_gain: f64,
    /// The evidence against the author's order ([`Evidence`]; `None` for judges without it).
    pub untouched_evidence: Option<Evidence>,
    /// The verdicts on shuffled copies.
    pub shuffled: Vec<ShuffledCase>,
    /// The flow judge's verdict on the author's order, for judges with one.
    pub untouched_flow: Option<FlowCase>,
    /// Whether the judge's proposal on the author's order changes its first unit.
    pub untouched_moves_first: bool,
}

/// The flow judge's verdict on one order of a container ([`crate::order::flow`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FlowCase {
    /// Flow logit of the order as given.
    pub before: f64,
    /// Flow logit of the candidate that reads best.
    pub after: f64,
    /// Kendall τ of that candidate against the author's order.
    pub tau_proposed: f64,
    /// Whether that candidate is the author's order.
    pub exact: bool,
    /// Whether that candidate changes the first unit of the order as given.
    pub moves_first: bool,
}

impl FlowCase {
    /// How much better the candidate reads than the order as given.
    pub fn gain(&self) -> f64 {
        self.after - self.before
    }
}

/// The verdict on one shuffled copy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShuffledCase {
    /// The gain of the judge's proposal.
    pub gain: f64,
    /// The evidence against the shuffled order.
    pub evidence: Option<Evidence>,
    /// Kendall τ of the shuffled order against the author's.
    pub tau_shuffled: f64,
    /// Kendall τ of the proposed order against the author's.
    pub tau_proposed: f64,
    /// Whether the proposal is the author's order.
    pub exact: bool,
    /// The flow judge's verdict, for judges with one.
    pub flow: Option<FlowCase>,
    /// Whether the proposal changes the shuffled order's first unit.
    pub moves_first: bool,
}

/// The containers of `doc` the test uses, as unit texts per level: those Segue reorders
/// ([`reorderable`]). The ordering heads' trainer reads the same containers of a corpus's train
/// part (`examples/prose_containers.rs`).
pub fn containers(doc: &Document) -> Vec<(Level, Vec<Unit<'_>>)> {
    reorderable_containers(doc)
        .into_iter()
        .map(|(c, units)| (c.level(), units))
        .collect()
}

/// [`containers`], each with the container it is.
fn reorderable_containers(doc: &Document) -> Vec<(Container, Vec<Unit<'_>>)> {
    let mut out = Vec::new();
    for (s, section) in doc.sections.iter().enumerate() {
        let mut all = vec![Container::Section(s)];
        all.extend((0..section.paragraphs.len()).map(|p| Container::Paragraph {
            section: s,
            paragraph: p,
        }));
        for c in all {
            if reorderable(doc, c).is_ok() {
                if let Some(units) = unit_texts(doc, c) {
                    out.push((c, units));
                }
            }
        }
    }
    out
}

/// Runs the judge on every container of `doc`, with `copies` shuffled copies each.
pub fn reorder_cases(
    scorer: &dyn Scorer,
    doc: &ProseDoc,
    copies: usize,
    seed: u64,
) -> Vec<ContainerCase> {
    let parsed = parse(&doc.source, doc.format);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ fxhash(&doc.id));
    let mut out = Vec::new();
    let flow_judge = scorer.flow_judge();
    // The flow judge's verdict on `units` (given in the order `given` of the author's units).
    let read = |units: &[Unit<'_>],
                table: &dyn crate::score::Pairwise,
                decision: &[usize],
                given: &[usize]| {
        let judge = flow_judge.as_ref()?;
        let c = choose(judge, units, table, decision).ok()?;
        let proposed: Vec<usize> = c.order.iter().map(|&k| given[k]).collect();
        let identity: Vec<usize> = (0..given.len()).collect();
        Some(FlowCase {
            before: c.before,
            after: c.after,
            tau_proposed: kendall_tau(&proposed, &identity),
            exact: proposed == identity,
            moves_first: changes_first(&c.order),
        })
    };
    for (container, units) in reorderable_containers(&parsed) {
        let (n, level) = (units.len(), container.level());
        let table = scorer.prepare(&units, level);
        let untouched = decide(table.as_ref());
        // What `segue reorder` refuses, because it would leave a link without what it leans
        // on or move a first unit that keeps its place, is no proposal.
        let stands = first_unit_stands(&parsed, container);
        let under_heading = under_a_heading(&parsed, container);
        let untouched_gain = if refused(&units, &untouched.order, stands, under_heading) {
            0.0
        } else {
            untouched.after - untouched.before
        };
        let untouched_evidence =
            Evidence::of(table.as_ref(), &units, untouched.before, untouched.after);
        let identity: Vec<usize> = (0..n).collect();
        let untouched_flow = read(&units, table.as_ref(), &untouched.order, &identity);
        let mut shuffled = Vec::new();
        for _ in 0..copies {
            let mut perm = identity.clone();
            while perm == identity {
                perm.shuffle(&mut rng);
            }
            let permuted: Vec<Unit<'_>> = perm.iter().map(|&i| units[i].clone()).collect();
            let table = scorer.prepare(&permuted, level);
            let d = decide(table.as_ref());
            let refused = refused(&permuted, &d.order, stands, under_heading);
            let proposed: Vec<usize> = if refused {
                perm.clone()
            } else {
                d.order.iter().map(|&k| perm[k]).collect()
            };
            let flow = read(&permuted, table.as_ref(), &d.order, &perm);
            shuffled.push(ShuffledCase {
                moves_first: !refused && changes_first(&d.order),
                flow,
                gain: if refused { 0.0 } else { d.after - d.before },
                evidence: Evidence::of(table.as_ref(), &permuted, d.before, d.after),
                tau_shuffled: kendall_tau(&perm, &identity),
                tau_proposed: kendall_tau(&proposed, &identity),
                exact: proposed == identity,
            });
        }
        out.push(ContainerCase {
            id: doc.id.clone(),
            genre: doc.genre.clone(),
            level,
            units: n,
            untouched_gain,
            untouched_evidence,
            shuffled,
            untouched_flow,
            untouched_moves_first: changes_first(&untouched.order),
        });
    }
    out
}

fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// The cases as a judge with a flow judge decides them ([`crate::order::flow`]): each verdict's
/// gain, proposal and τ are the flow judge's, and its evidence carries the flow reading, so that
/// [`summarize`] measures a flow margin or an overrule model that reads the flow judge, as
/// `segue reorder` decides. `None` when the judge has no flow judge.
pub fn flow_view(cases: &[ContainerCase]) -> Option<Vec<ContainerCase>> {
    if cases.is_empty() || cases.iter().any(|c| c.untouched_flow.is_none()) {
        return None;
    }
    Some(
        cases
            .iter()
            .map(|c| ContainerCase {
                untouched_gain: c.untouched_flow.map_or(0.0, |f| f.gain()),
                untouched_moves_first: c.untouched_flow.is_some_and(|f| f.moves_first),
                untouched_evidence: c
                    .untouched_evidence
                    .zip(c.untouched_flow)
                    .map(|(e, f)| e.with_flow(f.before, f.gain())),
                shuffled: c
                    .shuffled
                    .iter()
                    .map(|s| match s.flow {
                        Some(f) => ShuffledCase {
                            gain: f.gain(),
                            evidence: s.evidence.map(|e| e.with_flow(f.before, f.gain())),
                            tau_shuffled: s.tau_shuffled,
                            tau_proposed: f.tau_proposed,
                            exact: f.exact,
                            flow: s.flow,
                            moves_first: f.moves_first,
                        },
                        None => ShuffledCase {
                            gain: 0.0,
                            evidence: None,
                            ..s.clone()
                        },
                    })
                    .collect(),
                ..c.clone()
            })
            .collect(),
    )
}

/// How a summary decides whether a judge proposes.
#[derive(Debug, Clone, Copy)]
pub enum Rule<'a> {
    /// The gain must reach this margin (the calibrated one when `None`).
    Margin(Option<f64>),
    /// The overrule model must be confident enough (and the gain reach [`MIN_GAIN`]).
    Model(&'a OverruleModel),
}

impl Rule<'_> {
    /// Whether the judge proposes for a verdict with this `gain` and `evidence`, at `margin`;
    /// `moves_first`: whether the proposal changes the container's first unit.
    fn proposes(
        &self,
        gain: f64,
        evidence: Option<&Evidence>,
        margin: f64,
        moves_first: bool,
    ) -> bool {
        match self {
            Rule::Margin(_) => gain >= margin,
            Rule::Model(m) => {
                gain >= MIN_GAIN
                    && evidence.is_some_and(|e| m.overrules(m.confidence(e), moves_first))
            }
        }
    }
}

/// The summary of a judge at one level and margin.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReorderRow {
    /// The judge.
    pub scorer: String,
    /// The level.
    pub level: Level,
    /// Containers.
    pub containers: usize,
    /// The margin the rates are measured at (the model's threshold when `by_model`).
    pub margin: f64,
    /// Whether the overrule model decided (else the margin).
    pub by_model: bool,
    /// The smallest margin that keeps untouched proposals at or under [`UNTOUCHED_TARGET`].
    pub calibrated_margin: f64,
    /// Share of untouched containers that get a proposal.
    pub untouched_rate: f64,
    /// Share of shuffled copies that get a proposal.
    pub shuffled_rate: f64,
    /// Among proposals on shuffled copies: share that restore the author's order exactly.
    pub exact_rate: f64,
    /// Among proposals on shuffled copies: share that end closer to the author's order (τ up).
    pub closer_rate: f64,
    /// The same two shares for containers of at most 6 units.
    pub exact_rate_small: f64,
    /// See [`ReorderRow::exact_rate_small`].
    pub closer_rate_small: f64,
    /// Mean Kendall τ against the author's order: shuffled copies, and after the proposals
    /// (copies without a proposal keep their shuffled order).
    pub tau_shuffled: f64,
    /// See [`ReorderRow::tau_shuffled`].
    pub tau_after: f64,
}

/// The margin that keeps proposals on untouched containers at or under [`UNTOUCHED_TARGET`].
pub fn calibrated_margin(cases: &[&ContainerCase]) -> f64 {
    let mut gains: Vec<f64> = cases.iter().map(|c| c.untouched_gain).collect();
    if gains.is_empty() {
        return MIN_GAIN;
    }
    gains.sort_by(f64::total_cmp);
    // At most this many untouched containers may reach the margin.
    let allowed = (UNTOUCHED_TARGET * gains.len() as f64).floor() as usize;
    let k = gains.len() - allowed - 1;
    (gains[k] + 1e-6).max(MIN_GAIN)
}

/// Summarises the cases of one judge at `level` under `rule`.
pub fn summarize(
    scorer: &str,
    level: Level,
    cases: &[ContainerCase],
    rule: Rule<'_>,
) -> Option<ReorderRow> {
    let cases: Vec<&ContainerCase> = cases.iter().filter(|c| c.level == level).collect();
    if cases.is_empty() {
        return None;
    }
    let calibrated = calibrated_margin(&cases);
    let margin = match rule {
        Rule::Margin(m) => m.unwrap_or(calibrated).max(MIN_GAIN),
        Rule::Model(m) => m.threshold,
    };
    let proposes = |gain: f64, evidence: Option<&Evidence>, moves_first: bool| {
        rule.proposes(gain, evidence, margin, moves_first)
    };
    let share = |hits: usize, of: usize| {
        if of == 0 {
            0.0
        } else {
            hits as f64 / of as f64
        }
    };
    let untouched = cases
        .iter()
        .filter(|c| {
            proposes(
                c.untouched_gain,
                c.untouched_evidence.as_ref(),
                c.untouched_moves_first,
            )
        })
        .count();
    let copies: Vec<(&ContainerCase, &ShuffledCase)> = cases
        .iter()
        .flat_map(|c| c.shuffled.iter().map(move |s| (*c, s)))
        .collect();
    let proposed: Vec<&(&ContainerCase, &ShuffledCase)> = copies
        .iter()
        .filter(|(_, s)| proposes(s.gain, s.evidence.as_ref(), s.moves_first))
        .collect();
    let small: Vec<&&(&ContainerCase, &ShuffledCase)> =
        proposed.iter().filter(|(c, _)| c.units <= 6).collect();
    let closer = |s: &ShuffledCase| s.tau_proposed > s.tau_shuffled;
    let mean = |v: Vec<f64>| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    Some(ReorderRow {
        scorer: scorer.to_string(),
        level,
        containers: cases.len(),
        margin,
        by_model: matches!(rule, Rule::Model(_)),
        calibrated_margin: calibrated,
        untouched_rate: share(untouched, cases.len()),
        shuffled_rate: share(proposed.len(), copies.len()),
        exact_rate: share(
            proposed.iter().filter(|(_, s)| s.exact).count(),
            proposed.len(),
        ),
        closer_rate: share(
            proposed.iter().filter(|(_, s)| closer(s)).count(),
            proposed.len(),
        ),
        exact_rate_small: share(small.iter().filter(|(_, s)| s.exact).count(), small.len()),
        closer_rate_small: share(small.iter().filter(|(_, s)| closer(s)).count(), small.len()),
        tau_shuffled: mean(copies.iter().map(|(_, s)| s.tau_shuffled).collect()),
        tau_after: mean(
            copies
                .iter()
                .map(|(_, s)| {
                    if proposes(s.gain, s.evidence.as_ref(), s.moves_first) {
                        s.tau_proposed
                    } else {
                        s.tau_shuffled
                    }
                })
                .collect(),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::lexical::Lexical;
    use crate::text::Format;

    #[test]
    fn the_calibrated_margin_keeps_untouched_proposals_under_the_target() {
        let cases: Vec<ContainerCase> = (0..40)
            .map(|i| ContainerCase {
                id: format!("d{i}"),
                genre: "essay".into(),
                level: Level::Paragraph,
                units: 4,
                untouched_gain: i as f64 / 100.0,
                untouched_evidence: None,
                shuffled: vec![ShuffledCase {
                    gain: 0.5,
                    evidence: None,
                    tau_shuffled: -0.3,
                    tau_proposed: 1.0,
                    exact: true,
                    flow: None,
                    moves_first: true,
                }],
                untouched_flow: None,
                untouched_moves_first: true,
            })
            .collect();
        let row = summarize("x", Level::Paragraph, &cases, Rule::Margin(None)).unwrap();
        assert!(row.untouched_rate <= UNTOUCHED_TARGET, "{row:?}");
        assert!(row.margin > 0.37 && row.margin <= 0.38, "{row:?}");
        assert_eq!(row.shuffled_rate, 1.0);
        assert_eq!(row.exact_rate, 1.0);
        assert!(summarize("x", Level::Sentence, &cases, Rule::Margin(None)).is_none());
        // Without the flow judge's verdicts there is no flow view.
        assert!(flow_view(&cases).is_none());
    }

    #[test]
    fn the_flow_view_decides_with_the_flow_judges_gains_and_proposals() {
        let flow = |gain: f64, exact: bool| FlowCase {
            before: -1.0,
            after: -1.0 + gain,
            tau_proposed: if exact { 1.0 } else { 0.0 },
            exact,
            moves_first: true,
        };
        let cases: Vec<ContainerCase> = (0..40)
            .map(|i| ContainerCase {
                id: format!("d{i}"),
                genre: "essay".into(),
                level: Level::Sentence,
                units: 4,
                // The table would propose everywhere; the flow judge rarely on the author's order.
                untouched_gain: 1.0,
                untouched_evidence: None,
                shuffled: vec![ShuffledCase {
                    gain: 1.0,
                    evidence: None,
                    tau_shuffled: -0.3,
                    tau_proposed: -1.0,
                    exact: false,
                    flow: Some(flow(3.0 + i as f64 / 10.0, i % 2 == 0)),
                    moves_first: true,
                }],
                untouched_flow: Some(flow(i as f64 / 10.0, false)),
                untouched_moves_first: true,
            })
            .collect();
        let view = flow_view(&cases).unwrap();
        let row = summarize("x+flow", Level::Sentence, &view, Rule::Margin(None)).unwrap();
        assert!(row.untouched_rate <= UNTOUCHED_TARGET, "{row:?}");
        assert!(row.margin > 3.7 && row.margin <= 3.8, "{row:?}");
        // Every shuffled copy reads at least 3.0 better with its candidate; those above the
        // margin get a proposal, and the proposals are the flow judge's (half exact, all closer).
        assert!(
            row.shuffled_rate > 0.0 && row.shuffled_rate < 1.0,
            "{row:?}"
        );
        assert!(row.exact_rate > 0.3 && row.exact_rate < 0.7, "{row:?}");
        assert_eq!(row.closer_rate, 1.0);
    }

    #[test]
    fn shuffled_chains_are_judged_against_the_authors_order() {
        let doc = ProseDoc {
            id: "essay/chain.md".into(),
            genre: "essay".into(),
            format: Format::Markdown,
            source: "# S\n\nThe alpha meets the bravo.\n\nThe bravo meets the charlie.\n\nThe charlie meets the delta.\n\nThe delta meets the echo.\n".into(),
        };
        let cases = reorder_cases(&Lexical::plain(), &doc, 3, 5);
        let para = cases
            .iter()
            .find(|c| c.level == Level::Paragraph)
            .expect("a section");
        assert_eq!(para.units, 4);
        assert!(
            para.untouched_gain.abs() < 1e-9,
            "the chain is already best: {para:?}"
        );
        assert_eq!(para.shuffled.len(), 3);
        // A symmetric judge may propose the chain backwards, but never a worse order.
        assert!(para.shuffled.iter().all(|s| s.gain >= 0.0), "{para:?}");
    }
}
