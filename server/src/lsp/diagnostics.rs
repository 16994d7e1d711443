//! Findings → LSP diagnostics.
//!
//! A diagnostic sits on the *later* unit of a weak transition (the second sentence or paragraph),
//! with `relatedInformation` pointing at the earlier one. Its `code` is the rule code
//! (`weak-sentence-transition`, `weak-paragraph-transition`), `codeDescription` links to the rule
//! table in the user guide, `source` is `segue`, and `data` ([`DiagnosticData`]) carries what the
//! code actions need (the document version, the units' places, the scores), so a code action never
//! re-runs segmentation or scoring to find its target.

use super::convert;
use super::engine::Analyzed;
use crate::config::Severity;
use crate::score::findings::Finding;
use crate::score::Level;
use serde::{Deserialize, Serialize};
use tower_lsp_server::ls_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, Location, NumberOrString, Uri,
};

/// The `source` of every Segue diagnostic.
pub const SOURCE: &str = "segue";

/// Where the rule codes are documented. One constant: change the base here when the docs move.
pub const RULE_DOCS_URL: &str =
    "https://github.com/segue-dev/segue/blob/main/docs/guide.md#rule-codes";

/// What a diagnostic carries for code actions (the `data` field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiagnosticData {
    /// Document version the diagnostic was computed for; actions on another version are dropped.
    pub version: i32,
    /// Sentence or paragraph.
    pub level: Level,
    /// Section index of the later unit.
    pub section: usize,
    /// Paragraph index (within the section) of the later unit.
    pub paragraph: usize,
    /// Sentence index (within the paragraph) of the later unit, for sentence findings.
    pub sentence: Option<usize>,
    /// The transition's score.
    pub score: f64,
    /// The document median at this level.
    pub median: f64,
    /// The absolute floor in force.
    pub floor: f64,
    /// The scorer that produced the score.
    pub scorer: String,
    /// The scorer's tier.
    pub tier: u8,
}

/// The diagnostics of an analyzed snapshot of `uri`.
pub fn diagnostics(analyzed: &Analyzed, uri: &Uri, severity: Severity) -> Vec<Diagnostic> {
    analyzed
        .findings
        .iter()
        .filter_map(|f| diagnostic(analyzed, uri, severity, f))
        .collect()
}

fn diagnostic(
    analyzed: &Analyzed,
    uri: &Uri,
    severity: Severity,
    f: &Finding,
) -> Option<Diagnostic> {
    let t = analyzed
        .analysis
        .at(f.level)
        .iter()
        .find(|t| t.to.span == f.to && t.from.span == f.from)?;
    let text = &analyzed.text;
    let index = &analyzed.line_index;
    let previous = match f.level {
        Level::Sentence => "the sentence before it",
        Level::Paragraph => "the paragraph before it",
    };
    let data = DiagnosticData {
        version: analyzed.version,
        level: f.level,
        section: t.to.section,
        paragraph: t.to.paragraph,
        sentence: t.to.sentence,
        score: round(f.score),
        median: round(f.median),
        floor: round(f.floor),
        scorer: f.scorer.to_string(),
        tier: analyzed.analysis.tier,
    };
    Some(Diagnostic {
        range: convert::range(index, text, f.to),
        severity: Some(convert::severity(severity)),
        code: Some(NumberOrString::String(f.code.to_string())),
        code_description: RULE_DOCS_URL
            .parse()
            .ok()
            .map(|href| CodeDescription { href }),
        source: Some(SOURCE.to_string()),
        message: f.message.clone(),
        related_information: Some(vec![DiagnosticRelatedInformation {
            location: Location {
                uri: uri.clone(),
                range: convert::range(index, text, f.from),
            },
            message: format!("{} (transition score {:.2})", capitalize(previous), f.score),
        }]),
        tags: None,
        data: serde_json::to_value(data).ok(),
    })
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Rounds a score to 4 decimals for the wire (stable snapshots, smaller messages).
fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// The [`DiagnosticData`] of a diagnostic, if it is one of ours.
pub fn data_of(d: &Diagnostic) -> Option<DiagnosticData> {
    if d.source.as_deref() != Some(SOURCE) {
        return None;
    }
    serde_json::from_value(d.data.clone()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_docs_url_is_a_valid_uri() {
        assert!(RULE_DOCS_URL.parse::<Uri>().is_ok());
        assert_eq!(capitalize("the x"), "The x");
    }
}
