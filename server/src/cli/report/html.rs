//! `--format html` and `segue report`: one self-contained HTML page for a run.
//!
//! Per document: a coherence strip (one band per transition, laid along the text, coloured by
//! score on the viridis scale, findings hatched and marked), a plot of the transition scores at
//! each level with the findings marked (and, at tier 1, BBScore's step scores), every finding
//! with both sides quoted, and the reorders the judge proposes by default. No network, scripts,
//! fonts or images: inline CSS and SVG only; every piece of document text is escaped.

use super::svg::{escape, marker, num, polyline, score_color, x_axis_percent, y_axis, Linear};
use super::{CheckReport, Detail, FileResult, Located, Report};
use crate::order::reorder::{Change, Container, Proposal};
use crate::score::analysis::Transition;
use crate::score::Level;
use crate::text::{Document, Span};
use std::fmt::Write as _;
use std::io;

/// The HTML reporter.
pub struct HtmlReport;

impl Report for HtmlReport {
    fn write(&self, report: &CheckReport, out: &mut dyn io::Write) -> io::Result<()> {
        out.write_all(page(report).as_bytes())
    }
}

/// Width of every SVG's view box; the page scales it to the column.
const WIDTH: f64 = 1000.0;
/// Left margin of the strip and the plots (row labels, y axis).
const LEFT: f64 = 92.0;
/// Right margin.
const RIGHT: f64 = 24.0;
/// Longest quotation of a unit, in characters.
const QUOTE_CHARS: usize = 700;

/// The whole page.
pub fn page(report: &CheckReport) -> String {
    let mut body = String::new();
    let findings = report.finding_count();
    let _ = write!(
        body,
        "<header><h1>Segue coherence report</h1><p class=\"meta\">{files}, {findings} \
         · findings by <code>{scorer}</code> (tier {tier})</p>{legend}</header>",
        files = plural(report.files.len(), "document"),
        findings = plural(findings, "finding"),
        scorer = escape(&report.scorer),
        tier = report.tier,
        legend = legend(),
    );
    if report.files.len() > 1 {
        body.push_str("<nav class=\"toc\"><h2>Documents</h2><ol>");
        for (i, f) in report.files.iter().enumerate() {
            let _ = write!(
                body,
                "<li><a href=\"#doc-{i}\">{}</a> — {}</li>",
                escape(&f.path),
                summary_line(f)
            );
        }
        body.push_str("</ol></nav>");
    }
    for (i, f) in report.files.iter().enumerate() {
        body.push_str(&document(i, f));
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>Segue report: {title}</title><style>{CSS}</style></head><body>{body}\
         <footer>Made by Segue {version}. Scores are in [0, 1], higher is more coherent.</footer>\
         </body></html>\n",
        title = escape(&title(report)),
        version = env!("CARGO_PKG_VERSION"),
    )
}

/// The page title: the one document's path, or how many there are.
fn title(report: &CheckReport) -> String {
    match report.files.as_slice() {
        [one] => one.path.clone(),
        files => plural(files.len(), "document"),
    }
}

/// "1 finding", "3 findings".
fn plural(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// One document's line in the table of contents (escaped).
fn summary_line(f: &FileResult) -> String {
    match (&f.error, f.score) {
        (Some(e), _) => format!("not checked: {}", escape(e)),
        (None, Some(s)) => format!("coherence {s:.2}, {}", plural(f.findings.len(), "finding")),
        (None, None) => plural(f.findings.len(), "finding"),
    }
}

/// The colour legend: the score scale in ten steps and the finding mark.
fn legend() -> String {
    let mut svg = String::from(
        "<svg class=\"legend\" viewBox=\"0 0 420 34\" role=\"img\" \
         aria-label=\"Colour scale: dark is a weak transition, light a strong one; \
         hatched bands with a triangle are findings\">",
    );
    svg.push_str(&hatch_def("hatch-legend"));
    for i in 0..10 {
        let s = (i as f64 + 0.5) / 10.0;
        let _ = write!(
            svg,
            "<rect x=\"{}\" y=\"2\" width=\"22\" height=\"14\" fill=\"{}\"><title>score {:.2}–{:.2}</title></rect>",
            i * 22,
            score_color(s),
            i as f64 / 10.0,
            (i + 1) as f64 / 10.0
        );
    }
    svg.push_str(
        "<text x=\"0\" y=\"30\">0 weak</text><text x=\"220\" y=\"30\" text-anchor=\"end\">1 strong</text>\
         <rect x=\"250\" y=\"2\" width=\"22\" height=\"14\" fill=\"#2c718e\"/>\
         <rect x=\"250\" y=\"9\" width=\"22\" height=\"7\" fill=\"url(#hatch-legend)\"/>",
    );
    svg.push_str(&marker(290.0, 8.0, 6.0, "finding", "a finding"));
    svg.push_str("<text x=\"250\" y=\"30\">finding (hatched, ▼)</text></svg>");
    svg
}

/// A diagonal hatch pattern with the given id, drawn over a finding's band.
fn hatch_def(id: &str) -> String {
    format!(
        "<defs><pattern id=\"{}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" \
         patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"none\"/>\
         <line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#fff\" stroke-width=\"3\"/>\
         <line x1=\"3\" y1=\"0\" x2=\"3\" y2=\"6\" stroke=\"#000\" stroke-width=\"1.5\"/>\
         </pattern></defs>",
        escape(id)
    )
}

/// One document's part of the page.
fn document(i: usize, f: &FileResult) -> String {
    let mut out = format!(
        "<section class=\"document\" id=\"doc-{i}\"><h2>{}</h2>",
        escape(&f.path)
    );
    if let Some(e) = &f.error {
        let _ = write!(
            out,
            "<p class=\"error\">Not checked: {}</p></section>",
            escape(e)
        );
        return out;
    }
    let mut facts = Vec::new();
    if let Some(s) = f.score {
        facts.push(format!("coherence <strong>{s:.2}</strong>"));
    }
    facts.push(plural(f.findings.len(), "finding"));
    for (level, name, value) in &f.figures {
        facts.push(format!(
            "{} <code>{}</code> {value:.2}",
            level.name(),
            escape(name)
        ));
    }
    if let Some(d) = &f.detail {
        facts.push(plural(d.analysis.sentences.len(), "sentence transition"));
        facts.push(plural(d.analysis.paragraphs.len(), "paragraph transition"));
    }
    let _ = write!(out, "<p class=\"facts\">{}</p>", facts.join(" · "));
    if let Some(d) = &f.detail {
        let _ = write!(
            out,
            "<h3>Coherence strip</h3><p class=\"help\">Each band is one transition, placed where \
             its later unit stands in the text (left: start of the document); hover a band for \
             its score and reason.</p>{}",
            strip(i, &f.source, d, &f.findings)
        );
        let _ = write!(
            out,
            "<h3>Transition scores</h3><p class=\"help\">Each point is one transition; ▼ marks a \
             finding, the dashed line the document's median.{}</p>",
            if d.bridge.is_some() {
                " The orange line is BBScore's step score: how well each step keeps to the \
                 Brownian-bridge trajectory (tier 1)."
            } else {
                ""
            }
        );
        for level in [Level::Sentence, Level::Paragraph] {
            out.push_str(&plot(&f.source, d, &f.findings, level));
        }
    }
    out.push_str(&findings(f));
    if let Some(d) = &f.detail {
        out.push_str(&proposals(&f.source, d));
    }
    out.push_str("</section>");
    out
}

/// A band's or point's tooltip: level, score, reason, the later unit's opening words.
fn tooltip(t: &Transition, source: &str, median: Option<f64>, finding: Option<&str>) -> String {
    let previous = match t.level {
        Level::Sentence => "the previous sentence",
        Level::Paragraph => "the previous paragraph",
    };
    let mut s = format!("{} transition, score {:.2}", t.level.name(), t.score);
    if let Some(m) = median {
        let _ = write!(s, " (median {m:.2})");
    }
    let _ = write!(s, ": {}", t.reason.describe(previous));
    if t.disabled {
        s.push_str(" [disabled by a comment]");
    }
    let _ = write!(s, " — “{}”", opening(t.to.span.slice(source), 10));
    if let Some(message) = finding {
        let _ = write!(s, "\nFinding: {message}");
    }
    s
}

/// The first `words` words of `text`, with an ellipsis when there are more.
fn opening(text: &str, words: usize) -> String {
    let all: Vec<&str> = text.split_whitespace().collect();
    let more = if all.len() > words { "…" } else { "" };
    format!("{}{more}", all[..all.len().min(words)].join(" "))
}

/// The finding on the transition into `to` at `level`, if any.
fn finding_at(findings: &[Located], level: Level, to: Span) -> Option<&Located> {
    findings
        .iter()
        .find(|l| l.finding.level == level && l.finding.to == to)
}

/// The x scale shared by the strip and the plots: byte offset in the source.
fn x_scale(source: &str) -> Linear {
    Linear::new((0.0, source.len().max(1) as f64), (LEFT, WIDTH - RIGHT))
}

/// The coherence strip: a row of bands per level, section starts marked.
pub fn strip(doc_index: usize, source: &str, d: &Detail, findings: &[Located]) -> String {
    let x = x_scale(source);
    let hatch = format!("hatch-{doc_index}");
    let rows = [(Level::Sentence, 22.0), (Level::Paragraph, 62.0)];
    let height = 30.0;
    let mut svg = format!(
        "<svg class=\"strip\" viewBox=\"0 0 {w} 100\" role=\"img\" aria-label=\"Coherence strip: \
         {n} sentence and {m} paragraph transitions, {f} marked as findings\">{defs}",
        w = num(WIDTH),
        n = d.analysis.sentences.len(),
        m = d.analysis.paragraphs.len(),
        f = findings.len(),
        defs = hatch_def(&hatch),
    );
    svg.push_str(&section_marks(&d.document, &x, 14.0, 96.0));
    for (level, top) in rows {
        let _ = write!(
            svg,
            "<text class=\"row\" x=\"{}\" y=\"{}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}s</text>\
             <rect class=\"track\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
            num(LEFT - 6.0),
            num(top + height / 2.0),
            capitalised(level.name()),
            num(LEFT),
            num(top),
            num(WIDTH - RIGHT - LEFT),
            num(height)
        );
        let median = d.analysis.median(level);
        let mut marks = String::new();
        for t in d.analysis.at(level) {
            let x0 = x.map(t.to.span.start as f64);
            let w = (x.map(t.to.span.end as f64) - x0).max(1.5);
            let found = finding_at(findings, level, t.to.span);
            let title = tooltip(t, source, median, found.map(|l| l.finding.message.as_str()));
            let _ = write!(
                svg,
                "<g class=\"band{cls}\"><rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" fill=\"{c}\"/>",
                cls = if found.is_some() { " flagged" } else { "" },
                x = num(x0),
                y = num(top),
                w = num(w),
                h = num(height),
                c = score_color(t.score),
            );
            if found.is_some() {
                // The lower half hatched: the colour stays visible above it.
                let _ = write!(
                    svg,
                    "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"url(#{hatch})\"/>",
                    num(x0),
                    num(top + height / 2.0),
                    num(w.max(4.0)),
                    num(height / 2.0)
                );
                marks.push_str(&marker(x0 + w / 2.0, top - 5.0, 4.5, "finding", &title));
            }
            let _ = write!(svg, "<title>{}</title></g>", escape(&title));
        }
        svg.push_str(&marks);
    }
    svg.push_str("</svg>");
    svg
}

/// "Sentence" from "sentence".
fn capitalised(word: &str) -> String {
    let mut c = word.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// A thin vertical line at every heading, from `top` to `bottom`, titled with the heading.
fn section_marks(doc: &Document, x: &Linear, top: f64, bottom: f64) -> String {
    let mut out = String::new();
    for (n, section) in doc.sections.iter().enumerate() {
        if let Some(h) = &section.heading {
            let at = num(x.map(h.span.start as f64));
            let _ = write!(
                out,
                "<line class=\"section\" x1=\"{at}\" y1=\"{}\" x2=\"{at}\" y2=\"{}\">\
                 <title>Section {}: {}</title></line>",
                num(top),
                num(bottom),
                n + 1,
                escape(&h.title)
            );
        }
    }
    out
}

/// The plot of one level's transition scores along the document.
pub fn plot(source: &str, d: &Detail, findings: &[Located], level: Level) -> String {
    let transitions = d.analysis.at(level);
    let name = level.name();
    if transitions.is_empty() {
        return format!(
            "<p class=\"empty plot-{name}\">No {name} transitions are judged in this document.</p>"
        );
    }
    let (top, bottom) = (28.0, 170.0);
    let x = x_scale(source);
    let y = Linear::new((0.0, 1.0), (bottom, top));
    let mut svg = format!(
        "<figure class=\"plot plot-{name}\"><svg viewBox=\"0 0 {w} 196\" role=\"img\" \
         aria-label=\"{cap} transition scores along the document\">\
         <text class=\"row\" x=\"{lx}\" y=\"12\" text-anchor=\"end\">{cap}s</text>",
        w = num(WIDTH),
        cap = capitalised(name),
        lx = num(LEFT - 6.0),
    );
    svg.push_str(&y_axis(&y, LEFT, WIDTH - RIGHT, 4));
    svg.push_str(&x_axis_percent(&x, bottom, 10));
    svg.push_str(&section_marks(&d.document, &x, top, bottom));
    let median = d.analysis.median(level);
    if let Some(m) = median {
        let at = num(y.map(m));
        let _ = write!(
            svg,
            "<line class=\"median\" x1=\"{}\" y1=\"{at}\" x2=\"{}\" y2=\"{at}\"><title>median {m:.2}</title></line>",
            num(LEFT),
            num(WIDTH - RIGHT)
        );
    }
    let point = |t: &Transition| (x.map(t.to.span.start as f64), y.map(t.score));
    // One line per container (a paragraph's sentences, a section's paragraphs).
    for run in runs(transitions, level) {
        let pts: Vec<(f64, f64)> = run.iter().map(&point).collect();
        svg.push_str(&polyline(&pts, "scores"));
    }
    if let Some(bridge) = &d.bridge {
        for run in runs(bridge.at(level), level) {
            let pts: Vec<(f64, f64)> = run.iter().map(&point).collect();
            svg.push_str(&polyline(&pts, "bridge"));
        }
        for (l, fig, value) in &bridge.figures {
            if *l == level {
                let _ = write!(
                    svg,
                    "<text class=\"bridge-label\" x=\"{}\" y=\"12\" text-anchor=\"end\">BBScore {} = {value:.2}</text>",
                    num(WIDTH - RIGHT),
                    escape(fig)
                );
                break;
            }
        }
    }
    let mut marks = String::new();
    for t in transitions {
        let (px, py) = point(t);
        let found = finding_at(findings, level, t.to.span);
        let title = tooltip(t, source, median, found.map(|l| l.finding.message.as_str()));
        if found.is_some() {
            marks.push_str(&marker(px, py - 9.0, 6.0, "finding", &title));
        }
        let _ = write!(
            svg,
            "<circle class=\"point\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"><title>{}</title></circle>",
            num(px),
            num(py),
            if found.is_some() { "4" } else { "2.5" },
            score_color(t.score),
            escape(&title)
        );
    }
    svg.push_str(&marks);
    let _ = write!(
        svg,
        "</svg><figcaption>{cap} transitions: score (0–1) against the position in the document; \
         dotted vertical lines are headings.</figcaption></figure>",
        cap = capitalised(name)
    );
    svg
}

/// `transitions` split where the container changes (a new paragraph for sentences, a new
/// section for paragraphs), so lines do not join units that were never adjacent.
fn runs(transitions: &[Transition], level: Level) -> Vec<&[Transition]> {
    let key = |t: &Transition| match level {
        Level::Sentence => (t.to.section, t.to.paragraph),
        Level::Paragraph => (t.to.section, 0),
    };
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=transitions.len() {
        let split = i == transitions.len()
            || key(&transitions[i]) != key(&transitions[i - 1])
            || transitions[i].from.span != transitions[i - 1].to.span;
        if split {
            out.push(&transitions[start..i]);
            start = i;
        }
    }
    out
}

/// `text` with its runs of whitespace made single spaces, cut to [`QUOTE_CHARS`] characters,
/// escaped.
fn quote(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut: String = text.chars().take(QUOTE_CHARS).collect();
    let more = if cut.len() < text.len() { "…" } else { "" };
    format!("{}{more}", escape(&cut))
}

/// The list of findings, each with both sides quoted.
fn findings(f: &FileResult) -> String {
    let mut out = format!(
        "<h3>Findings</h3>{}",
        if f.findings.is_empty() {
            "<p class=\"empty\">No findings: every judged transition holds.</p>".to_string()
        } else {
            String::new()
        }
    );
    if f.findings.is_empty() {
        return out;
    }
    out.push_str("<ol class=\"findings\">");
    for l in &f.findings {
        let fd = &l.finding;
        let _ = write!(
            out,
            "<li class=\"finding\"><p class=\"head\"><span class=\"swatch\" style=\"background:{c}\"></span>\
             <code>{code}</code> line {line} · {level} · score <strong>{score:.2}</strong> \
             (median {median:.2}, floor {floor:.2}) · {severity}</p>\
             <p class=\"message\">{message}</p>\
             <div class=\"sides\"><blockquote class=\"before\"><span class=\"label\">Before (line {bline})</span>{before}</blockquote>\
             <blockquote class=\"flagged\"><span class=\"label\">Flagged (line {line})</span>{after}</blockquote></div></li>",
            c = score_color(fd.score),
            code = escape(fd.code),
            line = l.range.start.line + 1,
            bline = l.related.start.line + 1,
            level = fd.level.name(),
            score = fd.score,
            median = fd.median,
            floor = fd.floor,
            severity = escape(&format!("{:?}", l.severity).to_lowercase()),
            message = escape(&fd.message),
            before = quote(fd.from.slice(&f.source)),
            after = quote(fd.to.slice(&f.source)),
        );
    }
    out.push_str("</ol>");
    out
}

/// The reorder proposals, or why there are none.
fn proposals(source: &str, d: &Detail) -> String {
    let mut out = String::from("<h3>Proposed reorders</h3>");
    if d.proposals.is_empty() {
        let _ = write!(
            out,
            "<p class=\"empty\">None: the author's order stands. {}</p>",
            if d.withheld.is_empty() {
                format!(
                    "The {} judge is not confident that another order is better anywhere.",
                    escape(&d.judge)
                )
            } else {
                d.withheld
                    .iter()
                    .map(|w| escape(w))
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        );
        return out;
    }
    out.push_str("<ol class=\"proposals\">");
    for p in &d.proposals {
        out.push_str(&proposal(source, &d.document, p, &d.judge));
    }
    out.push_str("</ol>");
    out
}

/// One proposal: where, what moves, the gain, and the proposed order.
fn proposal(source: &str, doc: &Document, p: &Proposal, judge: &str) -> String {
    let place = match p.container {
        Container::Section(s) => {
            let heading = doc
                .sections
                .get(s)
                .and_then(|sec| sec.heading.as_ref())
                .map(|h| format!(" “{}”", escape(&h.title)))
                .unwrap_or_default();
            format!("Section {}{heading}", s + 1)
        }
        Container::Paragraph { section, paragraph } => {
            format!("Paragraph {}", doc.paragraph_number(section, paragraph))
        }
    };
    let moved = match p.change {
        Change::Move { unit, .. } => Some(unit),
        Change::Reorder => None,
    };
    let mut out = format!(
        "<li class=\"proposal\"><p class=\"head\">{place}: {summary}</p>\
         <p>Gain <strong>{gain:+.3}</strong> ({measure} {before:.2} → {after:.2}, \
         judge <code>{judge}</code>{exact}{confidence})</p><ol class=\"order\">",
        summary = escape(&p.summary(source)),
        measure = if p.flow.is_some() {
            "how well it reads, by the flow judge,"
        } else {
            "mean transition score"
        },
        gain = p.gain(),
        before = p.before,
        after = p.after,
        judge = escape(judge),
        exact = if p.exact { "" } else { ", best found" },
        confidence = p
            .confidence
            .map(|c| format!(", confidence {c:.2}"))
            .unwrap_or_default(),
    );
    for &unit in &p.order {
        let text = p.spans.get(unit).map_or("", |s| s.slice(source));
        let _ = write!(
            out,
            "<li{}>{}</li>",
            if Some(unit) == moved {
                " class=\"moved\""
            } else {
                ""
            },
            escape(&opening(text, 14))
        );
    }
    out.push_str("</ol></li>");
    out
}

/// The page's style sheet: screen and print.
const CSS: &str = r#"
:root{--ink:#1d1d1f;--muted:#5b5b66;--line:#d0d0d7;--bg:#fff;--accent:#d55e00}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1100px;padding:24px;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--ink);background:var(--bg)}
h1{font-size:1.6em;margin:0 0 4px}
h2{font-size:1.3em;margin:0 0 4px;word-break:break-all}
h3{font-size:1.05em;margin:20px 0 4px}
code{font:0.92em ui-monospace,"DejaVu Sans Mono",monospace}
header{border-bottom:2px solid var(--ink);padding-bottom:8px;margin-bottom:16px}
.meta,.facts,.help,figcaption{color:var(--muted)}
.help{margin:0 0 6px;font-size:.9em}
svg{display:block;width:100%;height:auto;font:11px system-ui,"DejaVu Sans",sans-serif;fill:var(--ink)}
svg.legend{max-width:420px}
.document{border:1px solid var(--line);border-radius:6px;padding:16px 20px;margin:0 0 24px}
.toc ol{margin:4px 0}
.track{fill:#f2f2f5}
.band:hover rect:first-child{stroke:#000;stroke-width:1.5}
.row{font-weight:600}
.section{stroke:#888;stroke-width:1;stroke-dasharray:2 2}
.axis line{stroke:#888}
.axis .grid{stroke:#e6e6ea}
.median{stroke:#555;stroke-dasharray:6 4}
.scores{stroke:#3b518b;stroke-width:1.4}
.bridge{stroke:var(--accent);stroke-width:1.4;stroke-dasharray:5 2}
.bridge-label{fill:var(--accent);font-weight:600}
.point{stroke:#333;stroke-width:.6}
.point:hover{stroke-width:2}
.finding{fill:var(--accent);stroke:#000;stroke-width:1}
figure{margin:4px 0 8px}
figcaption{font-size:.85em}
ol.findings,ol.proposals{padding-left:1.4em}
li.finding,li.proposal{margin:0 0 14px;break-inside:avoid}
li.finding .head,li.proposal .head{margin:0;font-weight:600}
.message{margin:2px 0 6px}
.swatch{display:inline-block;width:.9em;height:.9em;border:1px solid #000;vertical-align:-1px;margin-right:6px}
.sides{display:grid;grid-template-columns:1fr 1fr;gap:10px}
blockquote{margin:0;padding:6px 10px;border-left:4px solid var(--line);background:#f7f7f9;overflow-wrap:anywhere;font-size:.93em}
blockquote.flagged{border-left:4px dashed var(--accent);background:#fff4ec}
blockquote .label{display:block;font-size:.8em;font-weight:600;color:var(--muted)}
ol.order li.moved{font-weight:600}
ol.order li.moved::after{content:" ← moved";color:var(--accent)}
.error{color:#a00;font-weight:600}
.empty{color:var(--muted)}
footer{color:var(--muted);font-size:.85em;margin-top:24px}
@media (max-width:700px){.sides{grid-template-columns:1fr}}
@media print{
  body{max-width:none;padding:0;font-size:10.5pt}
  .document{border:none;padding:0;break-before:page}
  .document:first-of-type{break-before:auto}
  .toc{display:none}
  figure,svg.strip{break-inside:avoid}
  blockquote{background:none}
  blockquote.flagged{background:none}
  a{color:inherit;text-decoration:none}
  *{-webkit-print-color-adjust:exact;print-color-adjust:exact}
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_stop_after_their_words() {
        assert_eq!(opening("one two three", 2), "one two…");
        assert_eq!(opening("  one\ntwo ", 5), "one two");
        assert_eq!(opening("", 3), "");
    }

    #[test]
    fn quotes_are_escaped_and_cut() {
        assert_eq!(quote(" <b>x</b> "), "&lt;b&gt;x&lt;/b&gt;");
        assert_eq!(quote("a\n  b"), "a b");
        let long = "a".repeat(QUOTE_CHARS + 5);
        assert!(quote(&long).ends_with('…'));
        assert_eq!(quote(&long).chars().count(), QUOTE_CHARS + 1);
    }

    /// The report of `source` at tier 0, with the reporting scorer's own analysis standing in
    /// for BBScore's when `bridge` is set.
    fn rendered(source: &str, bridge: bool) -> String {
        use crate::cli::check::{check_source_with, Extras};
        use crate::order::reorder::Judge;
        use crate::score::findings::Calibration;
        let set = crate::score::ScorerSet::builtin();
        let scorer = set.get("tier0").expect("tier0 is built in");
        let extras = Extras {
            judge: Judge {
                scorer: scorer.clone(),
                named: false,
            },
            bridge: None,
        };
        let mut result = check_source_with(
            "doc <1>.md".into(),
            source.into(),
            crate::text::Format::Markdown,
            scorer.as_ref(),
            &Calibration::shipped(),
            &crate::config::Config::default(),
            Some(&extras),
        );
        if bridge {
            if let Some(d) = result.detail.as_mut() {
                let mut b = d.analysis.clone();
                b.figures = vec![(Level::Sentence, "B", 12.5)];
                d.bridge = Some(b);
            }
        }
        page(&CheckReport {
            files: vec![result],
            scorer: "tier0".into(),
            tier: 0,
        })
    }

    const SAMPLE: &str = include_str!("../../../../docs/sample.md");

    #[test]
    fn document_text_is_escaped_everywhere() {
        let source = "# Head <b>ing</b>\n\nCats sleep a lot. Then <script>alert(1)</script> runs \
                      nowhere. Dogs bark at the mail.\n\nVolcanoes erupt basalt. Rivers carve \
                      deep canyons slowly.\n";
        let html = rendered(source, false);
        assert!(!html.contains("<script"));
        assert!(!html.contains("<b>"));
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(html.contains("doc &lt;1&gt;.md"));
    }

    #[test]
    fn a_document_gets_a_strip_two_plots_findings_and_reorders() {
        let html = rendered(SAMPLE, false);
        assert_eq!(html.matches("<svg class=\"strip\"").count(), 1);
        assert!(html.contains("plot plot-sentence"));
        assert!(html.contains("plot plot-paragraph"));
        assert!(html.contains("<li class=\"finding\">"));
        assert!(html.contains("<h3>Proposed reorders</h3>"));
        // tier0 is withheld from reordering by default: the page says why.
        assert!(html.contains("does not reorder"));
        assert!(!html.contains("class=\"bridge\""));
    }

    #[test]
    fn the_bridge_line_and_its_b_appear_when_there_is_one() {
        let html = rendered(SAMPLE, true);
        assert!(html.contains("<polyline class=\"bridge\""));
        assert!(html.contains("BBScore B = 12.50"));
        assert!(html.contains("Brownian-bridge"));
    }

    #[test]
    fn runs_break_where_the_container_changes() {
        let html = rendered(SAMPLE, false);
        let d = {
            use crate::cli::check::{check_source_with, Extras};
            let set = crate::score::ScorerSet::builtin();
            let scorer = set.get("tier0").expect("tier0");
            let extras = Extras {
                judge: crate::order::reorder::Judge {
                    scorer: scorer.clone(),
                    named: false,
                },
                bridge: None,
            };
            check_source_with(
                "s.md".into(),
                SAMPLE.into(),
                crate::text::Format::Markdown,
                scorer.as_ref(),
                &crate::score::findings::Calibration::shipped(),
                &crate::config::Config::default(),
                Some(&extras),
            )
            .detail
            .expect("detail kept")
        };
        let sentences = runs(&d.analysis.sentences, Level::Sentence);
        assert_eq!(
            sentences.iter().map(|r| r.len()).sum::<usize>(),
            d.analysis.sentences.len()
        );
        for run in &sentences {
            for pair in run.windows(2) {
                assert_eq!(pair[0].to.span, pair[1].from.span);
            }
        }
        // Lines with at least two points are drawn; the sample has several paragraphs.
        assert!(html.matches("<polyline class=\"scores\"").count() >= 2);
    }

    #[test]
    fn a_proposal_shows_its_place_gain_and_the_moved_unit() {
        let source = "# One\n\nAlpha <i>one</i>.\n\nBeta two.\n\nGamma three.\n";
        let document = crate::text::parse(source, crate::text::Format::Markdown);
        let spans: Vec<Span> = document.sections[0]
            .paragraphs
            .iter()
            .map(|p| p.span)
            .collect();
        assert_eq!(spans.len(), 3);
        let p = Proposal {
            container: Container::Section(0),
            spans,
            order: vec![1, 2, 0],
            change: Change::Move {
                unit: 0,
                after: Some(2),
            },
            before: 0.3,
            after: 0.4,
            margin: 0.05,
            confidence: Some(0.9),
            threshold: Some(0.5),
            first_unit_logit: 0.0,
            exact: true,
            dangling: false,
            flow: None,
        };
        let analysis = crate::score::analysis::analyze(
            &document,
            crate::score::ScorerSet::builtin()
                .get("lexical")
                .expect("lexical is built in")
                .as_ref(),
        );
        let detail = Detail {
            document,
            analysis,
            bridge: None,
            judge: "tier1".into(),
            proposals: vec![p],
            withheld: Vec::new(),
        };
        let html = proposals(source, &detail);
        assert!(html.contains("Section 1 “One”"), "{html}");
        assert!(html.contains("Gain <strong>+0.100</strong>"), "{html}");
        assert!(html.contains("0.30 → 0.40"));
        assert!(html.contains("confidence 0.90"));
        assert!(
            html.contains("<li class=\"moved\">Alpha &lt;i&gt;one&lt;/i&gt;.</li>"),
            "{html}"
        );
        let order = html.split("<ol class=\"order\">").nth(1).unwrap_or("");
        assert!(order.find("Beta").unwrap_or(usize::MAX) < order.find("Alpha").unwrap_or(0));
    }

    #[test]
    fn an_empty_report_is_a_whole_page() {
        let html = page(&CheckReport {
            files: Vec::new(),
            scorer: "tier0".into(),
            tier: 0,
        });
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.ends_with("</html>\n"));
        assert!(html.contains("@media print"));
        assert!(!html.contains("<script"));
    }
}
