//! Output formats of `segue check`: one [`Report`] implementation per `--format`.
//!
//! Reporters receive plain data ([`FileResult`]s with findings already converted to LSP-style
//! ranges) and write to any `io::Write`; they never run analysis themselves.

pub mod github;
pub mod html;
pub mod json;
pub mod sarif;
pub mod svg;
pub mod text;

use crate::config::Severity;
use crate::score::findings::Finding;
use crate::text::{LineIndex, Position, Span};
use serde::Serialize;
use std::io;

/// A zero-based LSP-style range (UTF-16 columns).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Range {
    /// Start position.
    pub start: Position,
    /// End position (exclusive).
    pub end: Position,
}

impl Range {
    /// The range of `span` in `source`.
    pub fn of(index: &LineIndex, source: &str, span: Span) -> Range {
        Range {
            start: index.position(source, span.start),
            end: index.position(source, span.end),
        }
    }
}

/// A finding located in its file.
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    /// The finding.
    pub finding: Finding,
    /// Severity in force.
    pub severity: Severity,
    /// Range of the later unit (where the finding is reported).
    pub range: Range,
    /// Range of the earlier unit.
    pub related: Range,
}

/// The outcome of checking one file.
#[derive(Debug, Clone, PartialEq)]
pub struct FileResult {
    /// The path as given (or `-` for stdin).
    pub path: String,
    /// The file's text (empty when it could not be read).
    pub source: String,
    /// Findings in document order.
    pub findings: Vec<Located>,
    /// The document's coherence score under the reporting scorer, if checked.
    pub score: Option<f64>,
    /// Document-level figures of the reporting scorer, as (level, name, value): BBScore's `B`.
    pub figures: Vec<(crate::score::Level, &'static str, f64)>,
    /// Why the file could not be checked, if it could not.
    pub error: Option<String>,
    /// What the HTML report draws beyond the findings; kept only for `--format html` and
    /// `segue report`.
    pub detail: Option<Box<Detail>>,
}

impl FileResult {
    /// The result for a file that could not be checked, and why.
    pub fn failed(path: String, error: impl std::fmt::Display) -> Self {
        FileResult {
            path,
            source: String::new(),
            findings: Vec::new(),
            score: None,
            figures: Vec::new(),
            error: Some(error.to_string()),
            detail: None,
        }
    }
}

/// A checked document as the HTML report draws it: its segmentation, every scored transition,
/// and the reorders its judge proposes by default.
#[derive(Debug, Clone, PartialEq)]
pub struct Detail {
    /// The segmented document.
    pub document: crate::text::Document,
    /// The reporting scorer's analysis (every transition's score and reason).
    pub analysis: crate::score::analysis::Analysis,
    /// The `bbscore` scorer's analysis, at tier 1 when it is loaded and is not the reporting
    /// scorer: the Brownian-bridge step scores along the document and its `B`.
    pub bridge: Option<crate::score::analysis::Analysis>,
    /// The name of the scorer that judges reorders.
    pub judge: String,
    /// The worthwhile reorder proposals, in document order.
    pub proposals: Vec<crate::order::reorder::Proposal>,
    /// Why the judge proposes nothing at a level, one sentence per withheld level.
    pub withheld: Vec<String>,
}

/// Everything a reporter needs.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckReport {
    /// Per-file results, in the order files were given or found.
    pub files: Vec<FileResult>,
    /// The scorer whose findings are reported.
    pub scorer: String,
    /// The tier in use (0 or 1).
    pub tier: u8,
}

impl CheckReport {
    /// Number of findings over all files.
    pub fn finding_count(&self) -> usize {
        self.files.iter().map(|f| f.findings.len()).sum()
    }

    /// Number of files that could not be checked.
    pub fn error_count(&self) -> usize {
        self.files.iter().filter(|f| f.error.is_some()).count()
    }
}

/// An output format.
pub trait Report {
    /// Writes the whole report.
    fn write(&self, report: &CheckReport, out: &mut dyn io::Write) -> io::Result<()>;
}

/// The reporter for a `--format` name; `None` for `jsonl`, which streams one result per input
/// line as it goes ([`crate::cli::jsonl`]) rather than reporting at the end. `quiet` leaves out
/// the text format's summary line (the other formats write only findings and errors, or a whole
/// document that parsers expect).
pub fn reporter(format: OutputFormat, color: bool, quiet: bool) -> Option<Box<dyn Report>> {
    Some(match format {
        OutputFormat::Text => Box::new(text::TextReport {
            color,
            summary: !quiet,
        }),
        OutputFormat::Json => Box::new(json::JsonReport),
        OutputFormat::Sarif => Box::new(sarif::SarifReport),
        OutputFormat::Github => Box::new(github::GithubReport),
        OutputFormat::Html => Box::new(html::HtmlReport),
        OutputFormat::Jsonl => return None,
    })
}

/// `--format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Human-readable snippets, like rustc or ruff.
    Text,
    /// Machine-readable JSON.
    Json,
    /// SARIF 2.1.0 for code-scanning tools.
    Sarif,
    /// GitHub Actions workflow annotations.
    Github,
    /// One self-contained HTML page with plots (as `segue report` writes).
    Html,
    /// JSON lines: documents as JSON lines on stdin, one result line each, streamed.
    Jsonl,
}
