//! `segue score`: every scorer's value for every transition of a file.

use super::scorers::{read_document, scorers_for};
use crate::config::{parse_tier, TierChoice};
use crate::score::analysis::{analyze, Analysis};
use crate::score::Level;
use crate::text::LineIndex;
use serde_json::json;
use std::path::PathBuf;

/// Arguments of `segue score`.
#[derive(Debug, clap::Args)]
pub struct ScoreArgs {
    /// The file to score.
    pub path: PathBuf,
    /// Scorer tier: auto, 0 (built-in) or 1 (models).
    #[arg(long, default_value = "auto", value_parser = |s: &str| parse_tier(s).ok_or("use auto, 0 or 1"))]
    pub tier: TierChoice,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
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

/// Runs `segue score`.
pub fn run(args: ScoreArgs) -> anyhow::Result<u8> {
    let (file, doc) = read_document(&args.path)?;
    let source = file.text;
    let set = scorers_for(args.tier)?;
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
        let out = json!({"path": args.path.display().to_string(), "document": documents, "figures": figures, "transitions": levels});
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(0);
    }
    println!(
        "{} — {} sentences, {} paragraphs",
        args.path.display(),
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
