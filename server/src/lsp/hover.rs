//! Hover: the transition scores around the sentence and paragraph under the cursor.

use super::convert;
use super::engine::Analyzed;
use crate::score::analysis::{Transition, UnitRef};
use crate::score::Level;
use crate::text::Span;
use std::fmt::Write as _;
use tower_lsp_server::ls_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position};

/// Where the cursor is: a paragraph and, when on one, a sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// The paragraph under the cursor.
    pub paragraph: UnitRef,
    /// The sentence under the cursor, if any.
    pub sentence: Option<UnitRef>,
}

/// The paragraph (and sentence) containing byte `offset`. An offset at the very end of a unit
/// counts as inside it, so a cursor after a paragraph's last character still finds it.
pub fn place_at(analyzed: &Analyzed, offset: usize) -> Option<Place> {
    let inside = |s: Span| s.start <= offset && offset <= s.end;
    for (si, section) in analyzed.document.sections.iter().enumerate() {
        if !inside(section.span) {
            continue;
        }
        for (pi, para) in section.paragraphs.iter().enumerate() {
            if !inside(para.span) {
                continue;
            }
            let sentence = para
                .sentences
                .iter()
                .enumerate()
                .find(|(_, s)| inside(s.span))
                .map(|(ti, s)| UnitRef {
                    section: si,
                    paragraph: pi,
                    sentence: Some(ti),
                    span: s.span,
                });
            return Some(Place {
                paragraph: UnitRef {
                    section: si,
                    paragraph: pi,
                    sentence: None,
                    span: para.span,
                },
                sentence,
            });
        }
    }
    None
}

/// The hover for `pos`, in Markdown when `markdown` is true (plain text otherwise).
pub fn hover(analyzed: &Analyzed, pos: Position, markdown: bool) -> Option<Hover> {
    let offset = convert::offset(&analyzed.line_index, &analyzed.text, pos);
    let place = place_at(analyzed, offset)?;
    let mut rows = Vec::new();
    if let Some(s) = &place.sentence {
        let (into, out) = analyzed.transitions_around(Level::Sentence, s);
        rows.push(("sentence", "into this sentence", into));
        rows.push(("sentence", "out of this sentence", out));
    }
    let (into, out) = analyzed.transitions_around(Level::Paragraph, &place.paragraph);
    rows.push(("paragraph", "into this paragraph", into));
    rows.push(("paragraph", "out of this paragraph", out));

    let median = |level: &str| {
        let l = if level == "sentence" {
            Level::Sentence
        } else {
            Level::Paragraph
        };
        analyzed
            .analysis
            .median(l)
            .map_or("–".to_string(), |m| format!("{m:.2}"))
    };
    let score = |t: Option<&Transition>| t.map_or("–".to_string(), |t| format!("{:.2}", t.score));
    let flagged = |t: Option<&Transition>| {
        t.is_some_and(|t| {
            analyzed
                .findings
                .iter()
                .any(|f| f.level == t.level && f.to == t.to.span && f.from == t.from.span)
        })
    };
    let scorer = analyzed.scorer.name();
    let tier = analyzed.analysis.tier;
    let mut out = String::new();
    if markdown {
        let _ = writeln!(
            out,
            "**Segue** coherence · scorer `{scorer}` (tier {tier})\n"
        );
        out.push_str("| transition | score | document median |\n|---|---:|---:|\n");
        for (level, label, t) in &rows {
            let mark = if flagged(*t) { " ⚠" } else { "" };
            let _ = writeln!(out, "| {label} | {}{mark} | {} |", score(*t), median(level));
        }
    } else {
        let _ = writeln!(out, "Segue coherence · scorer {scorer} (tier {tier})");
        for (level, label, t) in &rows {
            let mark = if flagged(*t) { " (weak)" } else { "" };
            let _ = writeln!(
                out,
                "{label}: {}{mark} (document median {})",
                score(*t),
                median(level)
            );
        }
    }
    // The scorer's intrusion score of the unit itself, where it has an intrusion model.
    let mut intrusion = String::new();
    for (level, label, t) in &rows {
        if let (true, Some(score)) = (label.starts_with("into"), t.and_then(|t| t.intrusion)) {
            let _ = writeln!(intrusion, "- this {level}: {score:.2}");
        }
    }
    if !intrusion.is_empty() {
        block(
            &mut out,
            markdown,
            "Intrusion score (0 to 1; higher stands further apart from the text around it)",
            &intrusion,
        );
    }
    // The novelty of the unit itself: the share of its content words no other unit uses.
    let mut novelty = String::new();
    for (level, label, t) in &rows {
        if let (true, Some(n)) = (label.starts_with("into"), t.and_then(|t| t.novelty)) {
            let _ = writeln!(novelty, "- this {level}: {:.0} %", n * 100.0);
        }
    }
    if !novelty.is_empty() {
        block(
            &mut out,
            markdown,
            "Novelty (content words no other part of the document uses)",
            &novelty,
        );
    }
    let document = document_figures(analyzed);
    if !document.is_empty() {
        block(&mut out, markdown, "Document", &document);
    }
    if let Some(runs_on) = analyzed.scorer.runs_on() {
        let _ = writeln!(out, "\nRuns on {runs_on}.");
    }
    let mut reasons = String::new();
    for (level, label, t) in &rows {
        let Some(t) = t else { continue };
        let line = if label.starts_with("into") {
            format!(
                "{label}: this {level} {}",
                t.reason.describe(&format!("the {level} before it"))
            )
        } else {
            format!(
                "{label}: the next {level} {}",
                t.reason.describe(&format!("this {level}"))
            )
        };
        let _ = writeln!(reasons, "- {line}");
        if t.disabled {
            let _ = writeln!(
                reasons,
                "  (not reported: a `segue-disable-next` comment covers it)"
            );
        }
    }
    if !reasons.is_empty() {
        block(&mut out, markdown, "Why", &reasons);
    }
    let span = place.sentence.map_or(place.paragraph.span, |s| s.span);
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: if markdown {
                MarkupKind::Markdown
            } else {
                MarkupKind::PlainText
            },
            value: out,
        }),
        range: Some(convert::range(&analyzed.line_index, &analyzed.text, span)),
    })
}

/// The scorer's whole-document scores and figures (BBScore's `B`), one line per level, e.g.
/// "- sentences: score 0.91 · B 12.40 · B-path 10.21 (lower B is more coherent)".
fn document_figures(analyzed: &Analyzed) -> String {
    let analysis = &analyzed.analysis;
    let mut out = String::new();
    for (level, name) in [
        (Level::Sentence, "sentences"),
        (Level::Paragraph, "paragraphs"),
    ] {
        let mut cells: Vec<String> = analysis
            .whole
            .iter()
            .filter(|(l, _)| *l == level)
            .map(|(_, s)| format!("score {s:.2}"))
            .collect();
        cells.extend(
            analysis
                .figures
                .iter()
                .filter(|(l, _, _)| *l == level)
                .map(|(_, k, v)| format!("{k} {v:.2}")),
        );
        if cells.is_empty() {
            continue;
        }
        let note = if analysis
            .figures
            .iter()
            .any(|(l, k, _)| *l == level && k.starts_with('B'))
        {
            " (lower B is more coherent)"
        } else {
            ""
        };
        let _ = writeln!(out, "- {name}: {}{note}", cells.join(" · "));
    }
    out
}

/// Appends a titled block: a bold heading in Markdown, "Title:" in plain text.
fn block(out: &mut String, markdown: bool, title: &str, body: &str) {
    if markdown {
        let _ = write!(out, "\n**{title}**\n\n");
    } else {
        let _ = write!(out, "\n{title}:\n");
    }
    out.push_str(body);
}
