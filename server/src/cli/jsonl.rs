//! JSON lines in, JSON lines out: `segue score --jsonl` and `segue check --format jsonl`.
//!
//! Each input line is one document, `{"id", "text", "format"?}` or, with its sentences already
//! split, `{"id", "paragraphs": [[sentence, …], …]}`. Each gets exactly one output line, in input
//! order: its scores (and, when asked, its findings), or an error record `{"id", "line",
//! "error"}` — a bad line never ends the stream.
//!
//! Memory stays bounded whatever the input's length: lines are read one at a time
//! ([`BoundedLines`], at most [`MAX_LINE_BYTES`] kept per line), gathered into chunks of at most
//! [`CHUNK_LINES`] lines and [`CHUNK_BYTES`] bytes, and each chunk's results are written and
//! flushed before the next chunk is read. The documents of a chunk are scored in parallel at tier
//! 0; at tier 1 one after another, each embedded in batches of its own sentences with the
//! embedding cache emptied first, so a document's result never depends on the other documents of
//! the input (see [`Stream::encoder`]).

use crate::config::Sensitivity;
use crate::config::Severity;
use crate::input::lines::{BoundedLines, Line};
use crate::input::read::MAX_FILE_BYTES;
use crate::model::encoder::Encoder;
use crate::score::analysis::{analyze, Analysis, Transition, UnitRef};
use crate::score::findings::{companion_analysis, findings_with, Calibration, Finding};
use crate::score::{Level, Scorer};
use crate::text::{parse, presplit, without_bom, Document, Format, Span};
use rayon::prelude::*;
use serde_json::{json, Map, Value};
use std::io::{self, BufRead, Write};
use std::sync::Arc;

/// The longest input line kept: twice the per-input limit ([`MAX_FILE_BYTES`]), room for a
/// document at the limit with its JSON escapes. A longer line is an error record, skipped
/// without being held in memory.
pub const MAX_LINE_BYTES: usize = 2 * MAX_FILE_BYTES;
/// The most lines scored together (in parallel at tier 0) before their results are written.
pub const CHUNK_LINES: usize = 64;
/// A chunk ends once its lines hold this many bytes.
pub const CHUNK_BYTES: usize = 1024 * 1024;

/// What to compute for each document.
pub struct Stream {
    /// The scorers whose document scores are reported (under `scorers`); the reporting scorer
    /// among them is analysed once.
    pub scorers: Vec<Arc<dyn Scorer>>,
    /// The scorer whose transitions are ranked (`worst`) and whose findings are reported.
    pub reporting: Arc<dyn Scorer>,
    /// How many of the lowest-scoring transitions to list.
    pub worst: usize,
    /// Report findings, with this calibration, sensitivity and severity.
    pub findings: Option<(Calibration, Sensitivity, Severity)>,
    /// The format of a `text` without a `format`.
    pub language: Format,
    /// The sentence encoder of the tier-1 scorers, when they run. Documents are then scored one
    /// after another, the encoder's cache emptied before each, so each document is embedded in
    /// batches of its own sentences only: a sentence's vector is the same in any batch up to float
    /// rounding (the int8 copy quantises each token on its own scale), and this way not even the
    /// rounding depends on the other documents, so a result is the same bit for bit however the
    /// input is split or ordered.
    pub encoder: Option<Arc<Encoder>>,
}

/// What a stream wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    /// Output lines (one per input line).
    pub lines: u64,
    /// Error records among them.
    pub errors: u64,
    /// Findings over all documents.
    pub findings: u64,
}

/// One document's output line.
struct Outcome {
    line: String,
    error: bool,
    findings: usize,
}

/// The memos' capacity in a stream (entries per generation; `SEGUE_MEMO` overrides it): room for
/// the sentences of the documents of a chunk, where the default is sized for the language
/// server's long-lived documents. A memoized value is a pure function of its text, so the
/// capacity changes the memory and speed of a run, never its results.
pub const MEMO_ENTRIES: usize = 4096;

/// Caps the process's memos for a stream ([`MEMO_ENTRIES`]): call before anything is parsed or
/// scored.
pub fn prepare() {
    crate::text::memo::cap_capacity(MEMO_ENTRIES);
}

/// Reads JSON lines from `input` and writes one result line per input line to `out`, in input
/// order, flushing after each chunk. Fails only when reading or writing fails.
pub fn run_stream(
    input: impl BufRead,
    out: &mut impl Write,
    stream: &Stream,
) -> io::Result<Totals> {
    let mut totals = Totals::default();
    let mut lines = BoundedLines::new(input, MAX_LINE_BYTES);
    loop {
        let mut chunk: Vec<Line> = Vec::new();
        let mut bytes = 0;
        while chunk.len() < CHUNK_LINES && bytes < CHUNK_BYTES {
            let Some(line) = lines.next() else { break };
            let line = line?;
            bytes += line.bytes.as_ref().map_or(0, Vec::len);
            chunk.push(line);
        }
        if chunk.is_empty() {
            break;
        }
        let outcomes: Vec<Outcome> = if stream.encoder.is_some() {
            chunk.iter().map(|l| outcome(l, stream)).collect()
        } else {
            chunk.par_iter().map(|l| outcome(l, stream)).collect()
        };
        drop(chunk);
        for o in outcomes {
            out.write_all(o.line.as_bytes())?;
            out.write_all(b"\n")?;
            totals.lines += 1;
            totals.errors += u64::from(o.error);
            totals.findings += o.findings as u64;
        }
        out.flush()?;
    }
    Ok(totals)
}

/// A document as read from its line.
struct Input {
    id: Value,
    source: String,
    doc: Document,
    /// Whether the source is the caller's text (offsets into it are reported) rather than one
    /// built from pre-split sentences.
    text: bool,
}

fn outcome(line: &Line, stream: &Stream) -> Outcome {
    match read_input(line, stream.language) {
        Ok(input) => {
            if let Some(encoder) = &stream.encoder {
                encoder.cache().clear();
            }
            let (value, findings) = score(&input, stream);
            Outcome {
                line: value.to_string(),
                error: false,
                findings,
            }
        }
        Err((id, message)) => Outcome {
            line: json!({"id": id, "line": line.number, "error": message}).to_string(),
            error: true,
            findings: 0,
        },
    }
}

/// The document on `line`, or its id (`null` when unknown) and why it cannot be scored.
fn read_input(line: &Line, language: Format) -> Result<Input, (Value, String)> {
    let fail = |id: &Value, message: String| Err((id.clone(), message));
    let null = Value::Null;
    let bytes = match &line.bytes {
        Ok(b) => b,
        Err(e) => return fail(&null, e.to_string()),
    };
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            return fail(
                &null,
                format!("line is not UTF-8 (at byte {})", e.valid_up_to()),
            )
        }
    };
    if text.trim().is_empty() {
        return fail(&null, "empty line".to_string());
    }
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return fail(&null, format!("not JSON: {e}")),
    };
    let Value::Object(mut object) = value else {
        return fail(&null, "not a JSON object".to_string());
    };
    let id = match object.remove("id") {
        None | Some(Value::Null) => return fail(&null, "missing `id`".to_string()),
        Some(id @ (Value::String(_) | Value::Number(_))) => id,
        Some(_) => return fail(&null, "`id` must be a string or a number".to_string()),
    };
    let too_large = |what: &str, size: usize| {
        format!(
            "{what} is too large to check ({:.1} MiB; the limit is {} MiB)",
            size as f64 / 1_048_576.0,
            MAX_FILE_BYTES / 1_048_576
        )
    };
    match (object.remove("text"), object.remove("paragraphs")) {
        (Some(_), Some(_)) => fail(&id, "give `text` or `paragraphs`, not both".to_string()),
        (None, None) => fail(&id, "missing `text` (or `paragraphs`)".to_string()),
        (Some(Value::String(text)), None) => {
            if text.len() > MAX_FILE_BYTES {
                return fail(&id, too_large("`text`", text.len()));
            }
            let format = match object.get("format") {
                None | Some(Value::Null) => language,
                Some(Value::String(name)) => match format_named(name) {
                    Some(f) => f,
                    None => {
                        return fail(
                            &id,
                            format!("unknown format `{name}` (use markdown, rst, latex or plain)"),
                        )
                    }
                },
                Some(_) => return fail(&id, "`format` must be a string".to_string()),
            };
            let source = without_bom(text);
            let doc = parse(&source, format);
            Ok(Input {
                id,
                source,
                doc,
                text: true,
            })
        }
        (Some(_), None) => fail(&id, "`text` must be a string".to_string()),
        (None, Some(paragraphs)) => {
            let Some(paragraphs) = sentences_of(&paragraphs) else {
                return fail(
                    &id,
                    "`paragraphs` must be an array of arrays of strings".to_string(),
                );
            };
            let size: usize = paragraphs.iter().flatten().map(|s| s.len() + 1).sum();
            if size > MAX_FILE_BYTES {
                return fail(&id, too_large("`paragraphs`", size));
            }
            let (source, doc) = presplit(&paragraphs);
            Ok(Input {
                id,
                source,
                doc,
                text: false,
            })
        }
    }
}

/// `[[sentence, …], …]` as string slices, if `value` has that shape.
fn sentences_of(value: &Value) -> Option<Vec<Vec<&str>>> {
    value
        .as_array()?
        .iter()
        .map(|p| p.as_array()?.iter().map(Value::as_str).collect())
        .collect()
}

/// The format a record's `format` names: `markdown`, `rst`, `latex`, `plain` (and the language
/// ids editors use: `md`, `restructuredtext`, `tex`, `plaintext`, `text`, `txt`).
pub fn format_named(name: &str) -> Option<Format> {
    match name {
        "plain" => Some(Format::Plain),
        other => Format::from_language_id(other),
    }
}

/// The result line of a document, and its number of findings.
fn score(input: &Input, stream: &Stream) -> (Value, usize) {
    let doc = &input.doc;
    let reporting = stream.reporting.name();
    let mut analyses: Vec<Analysis> = stream
        .scorers
        .iter()
        .map(|s| analyze(doc, s.as_ref()))
        .collect();
    let at = match analyses.iter().position(|a| a.scorer == reporting) {
        Some(i) => i,
        None => {
            analyses.push(analyze(doc, stream.reporting.as_ref()));
            analyses.len() - 1
        }
    };
    let main = &analyses[at];
    let mut units = Units::new(doc, &input.source, input.text);

    let mut levels = Map::new();
    for level in [Level::Sentence, Level::Paragraph] {
        let scores: Vec<f64> = main.at(level).iter().map(|t| t.score).collect();
        levels.insert(
            level.name().to_string(),
            json!({
                "transitions": scores.len(),
                "mean": mean(&scores).map(round),
                "whole": main.whole.iter().find(|(l, _)| *l == level).map(|(_, s)| round(*s)),
            }),
        );
    }
    let mut scorers = Map::new();
    let mut figures = Map::new();
    for a in analyses
        .iter()
        .filter(|a| stream.scorers.iter().any(|s| s.name() == a.scorer))
    {
        let level_mean = |level| mean(&a.at(level).iter().map(|t| t.score).collect::<Vec<_>>());
        scorers.insert(
            a.scorer.to_string(),
            json!({
                "score": round(a.document_score()),
                "sentence": level_mean(Level::Sentence).map(round),
                "paragraph": level_mean(Level::Paragraph).map(round),
            }),
        );
        for (level, name, value) in &a.figures {
            figures.insert(
                format!("{}.{name}.{}", a.scorer, level.name()),
                json!(round(*value)),
            );
        }
    }
    let mut worst: Vec<&Transition> = main.sentences.iter().chain(&main.paragraphs).collect();
    // Lowest first; among equal scores, sentences before paragraphs, then in document order.
    worst.sort_by(|a, b| a.score.total_cmp(&b.score));
    worst.truncate(stream.worst);
    let worst: Vec<Value> = worst
        .into_iter()
        .map(|t| {
            let mut w = json!({
                "level": t.level.name(),
                "score": round(t.score),
                "from": units.of_ref(&t.from),
                "to": units.of_ref(&t.to),
                "shared": t.reason.shared,
            });
            if let Some(note) = &t.reason.note {
                w["note"] = json!(note);
            }
            w
        })
        .collect();

    let mut out = json!({
        "id": input.id,
        "scorer": reporting,
        "tier": main.tier,
        "score": round(main.document_score()),
        "sentences": doc.sentences().count(),
        "paragraphs": doc.paragraphs().count(),
        "words": doc.word_count(),
        "levels": levels,
        "scorers": scorers,
        "worst": worst,
    });
    if !figures.is_empty() {
        out["figures"] = Value::Object(figures);
    }
    let mut count = 0;
    if let Some((calibration, sensitivity, severity)) = &stream.findings {
        let companion = companion_analysis(doc, reporting);
        let found = findings_with(main, companion.as_ref(), calibration, *sensitivity);
        count = found.len();
        let found: Vec<Value> = found
            .iter()
            .map(|f| finding(f, *severity, &mut units))
            .collect();
        out["findings"] = json!(found);
    }
    (out, count)
}

fn finding(f: &Finding, severity: Severity, units: &mut Units) -> Value {
    json!({
        "code": f.code,
        "severity": severity,
        "message": f.message,
        "score": round(f.score),
        "level": f.level,
        "from": units.of_span(f.level, f.from),
        "to": units.of_span(f.level, f.to),
        "median": round(f.median),
        "floor": round(f.floor),
        "scorer": f.scorer,
        "shared": f.reason.shared,
        "intrusion": f.intrusion.map(round),
        "novelty": f.novelty.map(round),
    })
}

/// Where units are: their paragraph (over the whole document, from 0), their sentence within it,
/// and for a caller's text, their start and end in Unicode scalar values (what Python's `str`
/// indexes).
struct Units<'a> {
    doc: &'a Document,
    source: &'a str,
    offsets: bool,
    /// The index over the document of each section's first paragraph.
    first: Vec<usize>,
    /// The last byte offset converted and its character offset: offsets asked in increasing
    /// order cost one pass over the text.
    last: (usize, usize),
}

impl<'a> Units<'a> {
    fn new(doc: &'a Document, source: &'a str, offsets: bool) -> Self {
        let mut first = Vec::with_capacity(doc.sections.len());
        let mut n = 0;
        for s in &doc.sections {
            first.push(n);
            n += s.paragraphs.len();
        }
        Units {
            doc,
            source,
            offsets,
            first,
            last: (0, 0),
        }
    }

    /// The character offset of byte `at` (clamped to the text and to a character boundary).
    fn chars(&mut self, at: usize) -> usize {
        let mut at = at.min(self.source.len());
        while !self.source.is_char_boundary(at) {
            at -= 1;
        }
        let (from, count) = if at >= self.last.0 { self.last } else { (0, 0) };
        let count = count + self.source[from..at].chars().count();
        self.last = (at, count);
        count
    }

    fn unit(&mut self, paragraph: usize, sentence: Option<usize>, span: Span) -> Value {
        let mut v = json!({"paragraph": paragraph});
        if let Some(s) = sentence {
            v["sentence"] = json!(s);
        }
        if self.offsets {
            v["start"] = json!(self.chars(span.start));
            v["end"] = json!(self.chars(span.end));
        }
        v
    }

    fn of_ref(&mut self, r: &UnitRef) -> Value {
        let paragraph = self.first.get(r.section).copied().unwrap_or(0) + r.paragraph;
        self.unit(paragraph, r.sentence, r.span)
    }

    /// The unit of a finding, found by its span at `level`.
    fn of_span(&mut self, level: Level, span: Span) -> Value {
        let found = self
            .doc
            .paragraphs()
            .enumerate()
            .find_map(|(i, p)| match level {
                Level::Paragraph => (p.span == span).then_some((i, None)),
                Level::Sentence => p
                    .sentences
                    .iter()
                    .position(|s| s.span == span)
                    .map(|j| (i, Some(j))),
            });
        match found {
            Some((p, s)) => self.unit(p, s, span),
            None => {
                let mut v = json!({});
                if self.offsets {
                    v["start"] = json!(self.chars(span.start));
                    v["end"] = json!(self.chars(span.end));
                }
                v
            }
        }
    }
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Scores as written: six decimals, enough to rank and compare, and the same bytes on every
/// platform's float formatting.
fn round(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::ScorerSet;

    fn stream(findings: bool) -> Stream {
        let set = ScorerSet::builtin();
        let reporting = set.get("tier0").expect("tier0 is built in");
        Stream {
            scorers: vec![reporting.clone()],
            reporting,
            worst: 2,
            findings: findings.then(|| {
                (
                    Calibration::shipped(),
                    Sensitivity::Medium,
                    Severity::Warning,
                )
            }),
            language: Format::Markdown,
            encoder: None,
        }
    }

    fn run(input: &str, findings: bool) -> Vec<Value> {
        let mut out = Vec::new();
        let totals = run_stream(input.as_bytes(), &mut out, &stream(findings));
        let text = String::from_utf8(out).unwrap_or_default();
        let values: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
            .collect();
        assert_eq!(totals.ok().map(|t| t.lines), Some(values.len() as u64));
        values
    }

    #[test]
    fn each_line_gets_one_result_in_order() {
        let input = concat!(
            r#"{"id": "a", "text": "The cat sat on the mat. The mat was red.\n\nDogs bark at night."}"#,
            "\n",
            "not json\n",
            r#"{"text": "no id"}"#,
            "\n\n",
            r#"{"id": 7, "paragraphs": [["The cat sat.", "It purred."], ["Dogs bark."]]}"#,
            "\n",
            r#"{"id": "f", "text": "x", "format": "docx"}"#,
            "\n",
        );
        let out = run(input, false);
        assert_eq!(out.len(), 6);
        assert_eq!(out[0]["id"], "a");
        assert_eq!(out[0]["sentences"], 3);
        assert_eq!(out[0]["levels"]["sentence"]["transitions"], 1);
        assert_eq!(out[0]["worst"][0]["to"]["start"], 42);
        assert_eq!(out[1]["line"], 2);
        assert!(out[1]["id"].is_null());
        assert!(out[1]["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("not JSON")));
        assert_eq!(out[2]["error"], "missing `id`");
        assert_eq!(out[3]["error"], "empty line");
        assert_eq!(out[4]["id"], 7);
        assert_eq!(out[4]["paragraphs"], 2);
        assert!(out[4]["worst"][0]["to"].get("start").is_none());
        assert_eq!(out[5]["id"], "f");
        assert_eq!(out[5]["line"], 6);
        assert!(out[0].get("findings").is_none());
    }

    #[test]
    fn findings_come_on_request() {
        let out = run(r#"{"id": 1, "text": "One."}"#, true);
        assert_eq!(out[0]["findings"], json!([]));
    }

    #[test]
    fn character_offsets_count_scalar_values() {
        let input = r#"{"id": "u", "text": "Café au lait is good. Tea is better."}"#;
        let out = run(input, false);
        assert_eq!(out[0]["worst"][0]["from"]["start"], 0);
        assert_eq!(out[0]["worst"][0]["to"]["start"], 22);
        assert_eq!(out[0]["worst"][0]["to"]["end"], 36);
    }

    #[test]
    fn format_names() {
        assert_eq!(format_named("plain"), Some(Format::Plain));
        assert_eq!(format_named("rst"), Some(Format::Rst));
        assert_eq!(format_named("tex"), Some(Format::Latex));
        assert_eq!(format_named("docx"), None);
    }
}
