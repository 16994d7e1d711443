//! `segue score`: every scorer's value for every transition of a file; with `--jsonl`, document
//! scores for a stream of JSON lines ([`super::jsonl`]).

use super::check::{LanguageArg, SensitivityArg};
use super::jsonl::{run_stream, Stream};
use super::scorers::{read_document, reporting_scorer, scorers_for, EncodingArg};
use super::EXIT_CLEAN;
use crate::config::{parse_tier, Sensitivity, Severity, TierChoice};
use crate::score::analysis::{analyze, Analysis};
use crate::score::findings::Calibration;
use crate::score::Level;
use crate::text::Format;
use crate::text::LineIndex;
use serde_json::json;
use std::path::PathBuf;

/// Arguments of `segue score`.
#[derive(Debug, clap::Args)]
pub struct ScoreArgs {
    /// The file to score (none with `--jsonl`).
    #[arg(required_unless_present = "jsonl", conflicts_with = "jsonl")]
    pub path: Option<PathBuf>,
    /// Scorer tier: auto, 0 (built-in) or 1 (models). Default: auto for a file, 0 with `--jsonl`.
    #[arg(long, value_parser = |s: &str| parse_tier(s).ok_or("use auto, 0 or 1"))]
    pub tier: Option<TierChoice>,
    /// Print JSON instead of a table.
    #[arg(long, conflicts_with = "jsonl")]
    pub json: bool,
    /// Read JSON lines on stdin (`{"id", "text", "format"?}` or `{"id", "paragraphs"}`) and write
    /// one JSON result per line, in input order, as they are scored.
    #[arg(long)]
    pub jsonl: bool,
    /// With `--jsonl`: also report each document's findings.
    #[arg(long, requires = "jsonl")]
    pub findings: bool,
    /// With `--jsonl`: score with this scorer only (default: every scorer of the tier; the
    /// worst transitions and findings are the best available scorer's).
    #[arg(long, requires = "jsonl")]
    pub scorer: Option<String>,
    /// With `--jsonl`: how many of each document's lowest-scoring transitions to list.
    #[arg(long, default_value_t = 3, requires = "jsonl")]
    pub worst: usize,
    /// With `--jsonl` and `--findings`: how eagerly to flag.
    #[arg(long, value_enum, requires = "findings")]
    pub sensitivity: Option<SensitivityArg>,
    /// With `--jsonl`: the format of a `text` without `format` (default markdown).
    #[arg(long, value_enum, requires = "jsonl")]
    pub language: Option<LanguageArg>,
    /// The encoding of a file that is neither UTF-8 nor declares one (a LaTeX preamble's
    /// `inputenc`): latin1, latin9 or cp1252. A UTF-8 file is read as UTF-8 whatever it says.
    #[arg(long, value_enum, value_name = "ENCODING", conflicts_with = "jsonl")]
    pub encoding: Option<EncodingArg>,
}

/// The width of the table's score columns: 12, or two more than the longest scorer name, so
/// that the right-aligned names in the header never run into each other.
fn column_width<'a>(names: impl IntoIterator<Item = &'a str>) -> usize {
    names
        .into_iter()
        .map(|n| n.chars().count() + 2)
        .max()
        .unwrap_or(0)
        .max(12)
}

/// Runs `segue score --jsonl`: a stream of JSON lines on stdin, results on stdout. Exit 0 however
/// many lines were bad (each has its error record); 2 when stdin or stdout fails.
fn run_jsonl(args: ScoreArgs) -> anyhow::Result<u8> {
    super::jsonl::prepare();
    let set = scorers_for(args.tier.unwrap_or(TierChoice::Builtin))?;
    let reporting = reporting_scorer(&set, args.scorer.as_deref())?;
    let scorers = match args.scorer {
        Some(_) => vec![reporting.clone()],
        None => set.iter().cloned().collect(),
    };
    let encoder = if scorers.iter().any(|s| s.tier() > 0) {
        Some(crate::model::shared_encoder(&super::user::model_options(
            super::user::user_config()?,
        ))?)
    } else {
        None
    };
    let stream = Stream {
        scorers,
        reporting,
        worst: args.worst,
        findings: args.findings.then(|| {
            (
                Calibration::shipped(),
                args.sensitivity
                    .map_or(Sensitivity::Medium, Sensitivity::from),
                Severity::Warning,
            )
        }),
        language: args.language.map_or(Format::Markdown, Format::from),
        encoder,
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    run_stream(stdin.lock(), &mut stdout.lock(), &stream)?;
    Ok(EXIT_CLEAN)
}

/// Runs `segue score`.
pub fn run(args: ScoreArgs) -> anyhow::Result<u8> {
    if args.jsonl {
        return run_jsonl(args);
    }
    let Some(path) = args.path.as_deref() else {
        anyhow::bail!("name the file to score, or use --jsonl to read JSON lines on stdin");
    };
    let (file, doc) = read_document(path, args.encoding)?;
    let source = file.text;
    let set = scorers_for(args.tier.unwrap_or(TierChoice::Auto))?;
    let analyses: Vec<Analysis> = set.iter().map(|s| analyze(&doc, s.as_ref())).collect();
    let index = LineIndex::new(&source);
    let pos = |offset: usize| {
        let p = index.position(&source, offset);
        format!("{}:{}", p.line + 1, p.character + 1)
    };
    if args.json {
        let mut levels = serde_json::Map::new();
        for level in [Level::Sentence, Level::Paragraph] {
            let Some(first) = analyses.first() else { break };
            let rows: Vec<_> = first
                .at(level)
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let scores: serde_json::Map<String, serde_json::Value> = analyses
                        .iter()
                        .map(|a| (a.scorer.to_string(), json!(a.at(level)[i].score)))
                        .collect();
                    json!({"from": pos(t.from.span.start), "to": pos(t.to.span.start), "scores": scores})
                })
                .collect();
            levels.insert(level.name().to_string(), json!(rows));
        }
        let documents: serde_json::Map<String, serde_json::Value> = analyses
            .iter()
            .map(|a| (a.scorer.to_string(), json!(a.document_score())))
            .collect();
        let figures: serde_json::Map<String, serde_json::Value> = analyses
            .iter()
            .flat_map(|a| {
                a.figures.iter().map(move |(level, name, value)| {
                    (
                        format!("{}.{name}.{}", a.scorer, level.name()),
                        json!(value),
                    )
                })
            })
            .collect();
        let out = json!({"path": path.display().to_string(), "document": documents, "figures": figures, "transitions": levels});
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(0);
    }
    println!(
        "{} — {} sentences, {} paragraphs",
        path.display(),
        doc.sentences().count(),
        doc.paragraphs().count()
    );
    let width = column_width(analyses.iter().map(|a| a.scorer));
    let header: Vec<String> = analyses
        .iter()
        .map(|a| format!("{:>width$}", a.scorer))
        .collect();
    for level in [Level::Sentence, Level::Paragraph] {
        let Some(first) = analyses.first() else { break };
        println!(
            "\n{} transitions\n{:<22}{}",
            level.name(),
            "from → to",
            header.join("")
        );
        for (i, t) in first.at(level).iter().enumerate() {
            let cells: Vec<String> = analyses
                .iter()
                .map(|a| format!("{:>width$.3}", a.at(level)[i].score))
                .collect();
            println!(
                "{:<22}{}",
                format!("{} → {}", pos(t.from.span.start), pos(t.to.span.start)),
                cells.join("")
            );
        }
    }
    let docs: Vec<String> = analyses
        .iter()
        .map(|a| format!("{:>width$.3}", a.document_score()))
        .collect();
    println!("\n{:<22}{}", "document", docs.join(""));
    for a in &analyses {
        for (level, name, value) in &a.figures {
            println!("{name:<22}{value:.4} ({} {})", a.scorer, level.name());
        }
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::column_width;

    #[test]
    fn header_names_stay_apart() {
        let names = ["lexical", "lexical-noun", "a-very-long-scorer-name"];
        let width = column_width(names);
        assert_eq!(width, 25);
        let header: String = names.iter().map(|n| format!("{n:>width$}")).collect();
        assert_eq!(header.split_whitespace().collect::<Vec<_>>(), names);
        assert_eq!(column_width(["tier0"]), 12);
    }
}
