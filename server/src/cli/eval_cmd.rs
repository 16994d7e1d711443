//! `segue eval`, and the hidden `segue calibrate` / `segue train` used to build shipped models.

use super::scorers::{order_scorer, reporting_scorer, scorers_for};
use super::write::write_atomically;
use crate::config::{parse_tier, TierChoice};
use crate::eval::data::read_corpus;
use crate::eval::degrade::Degradation;
use crate::eval::discrimination::{
    comparisons, tally, units, Comparison, DiscriminationRow, DiscriminationSpec,
};
use crate::eval::findings_eval::{findings_test, FindingsRow};
use crate::eval::ordering::{order, Decoder, OrderingRow, OrderingSpec};
use crate::eval::prose::{
    prose_doc, read_prose_corpus, summarize, verdict_rows, DocResult, ListedFinding, ProseDoc,
    ProseRow, VerdictRows,
};
use crate::eval::reorder_eval::{
    flow_view, reorder_cases, summarize as reorder_summary, ContainerCase, Rule as ReorderRule,
};
use crate::order::reorder::Margins;
use crate::score::findings::Calibration;
use crate::score::{Level, Scorer, ScorerSet};
use anyhow::{bail, Context};
use serde_json::json;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// Arguments of `segue eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The task: discrimination (original vs degraded) or ordering (recover the order).
    #[arg(long, value_enum, default_value = "discrimination")]
    pub task: Task,
    /// JSONL corpus: {"id", "paragraphs": [[sentence, …], …]} or {"id", "sentences": […]} per line;
    /// for `--task prose`, a folder of documents in genre folders (`<genre>/<name>.<ext>`).
    #[arg(long)]
    pub data: PathBuf,
    /// Prose: also write every finding on the published documents (with the loosest
    /// sensitivity that reports it) to this JSONL file, for reading and judging.
    #[arg(long, value_name = "FILE")]
    pub findings_out: Option<PathBuf>,
    /// Prose: write the verdict model's training rows (features and labels of every transition
    /// of the documents as published and of the planted copies) to this JSONL file
    /// (`models/train/verdict/train.py` reads it).
    #[arg(long, value_name = "FILE")]
    pub verdict_rows_out: Option<PathBuf>,
    /// Reorder: write the calibrated margins (the smallest gain that keeps proposals on
    /// untouched containers at or under 5 %) into this margins file (merged with what it holds).
    #[arg(long, value_name = "FILE")]
    pub margins_out: Option<PathBuf>,
    /// Reorder: write every container's verdicts (gains, the evidence against the order, τ) as
    /// JSONL to this file (`models/train/reorder/train.py` reads it).
    #[arg(long, value_name = "FILE")]
    pub reorder_rows_out: Option<PathBuf>,
    /// Scorers to evaluate (repeatable; default: all of the tier).
    #[arg(long = "scorer")]
    pub scorers: Vec<String>,
    /// Scorer tier: auto, 0 (built-in) or 1 (models).
    #[arg(long, default_value = "auto", value_parser = |s: &str| parse_tier(s).ok_or("use auto, 0 or 1"))]
    pub tier: TierChoice,
    /// Levels: sentence, paragraph or both.
    #[arg(long, value_enum, default_value = "both")]
    pub level: LevelArg,
    /// Degradations for discrimination (comma-separated: R1,R2,R,D1,D2,D5,D10).
    #[arg(long, value_delimiter = ',', default_value = "R1,R2,R,D1,D2,D5,D10")]
    pub degradation: Vec<String>,
    /// Degraded copies per document and degradation.
    #[arg(long, default_value_t = 5)]
    pub copies: usize,
    /// Seed for degradations and shuffles.
    #[arg(long, default_value_t = 13)]
    pub seed: u64,
    /// Ordering: fewest units in an instance.
    #[arg(long, default_value_t = 2)]
    pub min_units: usize,
    /// Ordering: most units in an instance.
    #[arg(long, default_value_t = 16)]
    pub max_units: usize,
    /// Ordering: decoder (exact = dynamic programme up to 16 units, beam beyond).
    #[arg(long, value_enum, default_value = "exact")]
    pub decoder: Decoder,
    /// Use only the first N documents.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Discrimination: also write every comparison (scorer, level, degradation, document, copy,
    /// original and degraded score) to this JSONL file, for significance tests and for fitting
    /// combinations of scorers.
    #[arg(long, value_name = "FILE")]
    pub comparisons: Option<PathBuf>,
    /// Findings: the calibration that sets the absolute floors (a file written by
    /// `segue calibrate`; default: the shipped `models/calibration.json`).
    #[arg(long, value_name = "FILE")]
    pub calibration: Option<PathBuf>,
    /// Reorder: also give a row per genre (the corpus's folders), at the margin calibrated on
    /// the whole corpus.
    #[arg(long)]
    pub by_genre: bool,
}

/// `--task` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Task {
    /// Original vs degraded copies.
    Discrimination,
    /// Recover the original order from a shuffle.
    Ordering,
    /// False alarms of the diagnostics rule on originals, and recall of inserted intruders.
    Findings,
    /// Findings on a folder of real documents (`<genre>/<name>.<ext>`, run through Segue's own
    /// parsers) per 1,000 words, by genre and format, and recall of planted foreign units.
    Prose,
    /// Reorder proposals on a folder of real documents: how often the judge overrules the
    /// author on untouched sections and paragraphs, and what it does with shuffled copies.
    Reorder,
}

/// `--level` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LevelArg {
    /// Sentences.
    Sentence,
    /// Paragraphs.
    Paragraph,
    /// Both.
    Both,
}

impl LevelArg {
    fn levels(self) -> Vec<Level> {
        match self {
            LevelArg::Sentence => vec![Level::Sentence],
            LevelArg::Paragraph => vec![Level::Paragraph],
            LevelArg::Both => vec![Level::Sentence, Level::Paragraph],
        }
    }
}

fn selected_scorers(names: &[String], tier: TierChoice) -> anyhow::Result<Vec<Arc<dyn Scorer>>> {
    let set = scorers_for(tier)?;
    if names.is_empty() {
        return Ok(set.iter().cloned().collect());
    }
    names
        .iter()
        .map(|n| {
            set.get(n).with_context(|| {
                format!(
                    "no scorer named `{n}`; available: {}",
                    set.names().join(", ")
                )
            })
        })
        .collect()
}

/// Runs `segue eval`.
pub fn run(args: EvalArgs) -> anyhow::Result<u8> {
    match args.task {
        Task::Prose => run_prose(&args),
        Task::Reorder => run_reorder(&args),
        Task::Discrimination | Task::Findings | Task::Ordering => run_jsonl(args),
    }
}

/// The tasks on JSONL corpora.
fn run_jsonl(args: EvalArgs) -> anyhow::Result<u8> {
    let mut docs = read_corpus(&args.data)?;
    if let Some(n) = args.limit {
        docs.truncate(n);
    }
    let scorers = selected_scorers(&args.scorers, args.tier)?;
    match args.task {
        Task::Discrimination => {
            let degradations = args
                .degradation
                .iter()
                .map(|d| {
                    Degradation::parse(d).with_context(|| {
                        format!("unknown degradation `{d}`; use R1, R2, R, D1, D2, D5, D10 …")
                    })
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            let spec = DiscriminationSpec {
                degradations,
                levels: args.level.levels(),
                copies: args.copies.max(1),
                seed: args.seed,
            };
            let per_scorer: Vec<Vec<Comparison>> = {
                use rayon::prelude::*;
                scorers
                    .par_iter()
                    .map(|s| comparisons(s.as_ref(), &docs, &spec))
                    .collect()
            };
            let rows: Vec<DiscriminationRow> = scorers
                .iter()
                .zip(&per_scorer)
                .flat_map(|(s, c)| tally(s.name(), c, &spec))
                .collect();
            if let Some(path) = &args.comparisons {
                write_comparisons(path, &per_scorer)?;
            }
            if args.json {
                let out =
                    json!({"task": "discrimination", "documents": docs.len(), "results": rows});
                println!("{}", serde_json::to_string_pretty(&out)?);
            } else {
                print_discrimination(&rows, &spec, docs.len());
            }
        }
        Task::Findings => {
            let levels = args.level.levels();
            let calibration = match &args.calibration {
                Some(path) => Calibration::load(path)?,
                None => Calibration::shipped(),
            };
            let rows: Vec<FindingsRow> = {
                use rayon::prelude::*;
                scorers
                    .par_iter()
                    .map(|s| findings_test(s.as_ref(), &docs, &levels, args.seed, &calibration))
                    .collect::<Vec<_>>()
                    .concat()
            };
            if args.json {
                let out = json!({"task": "findings", "documents": docs.len(), "results": rows});
                println!("{}", serde_json::to_string_pretty(&out)?);
            } else {
                println!(
                    "findings, {} documents, seed {}: false alarms per 100 transitions of originals; recall of inserted intruders (%)",
                    docs.len(),
                    args.seed
                );
                println!(
                    "{:<14}{:<11}{:<12}{:>12}{:>10}{:>10}",
                    "scorer", "level", "sensitivity", "alarms/100", "recall", "intruders"
                );
                for r in rows {
                    println!(
                        "{:<14}{:<11}{:<12}{:>12.2}{:>10.1}{:>10}",
                        r.scorer,
                        r.level.name(),
                        format!("{:?}", r.sensitivity).to_lowercase(),
                        r.false_alarms_per_100,
                        r.recall * 100.0,
                        r.intruders
                    );
                }
            }
        }
        Task::Prose | Task::Reorder => {}
        Task::Ordering => {
            let spec = OrderingSpec {
                levels: args.level.levels(),
                min_units: args.min_units,
                max_units: args.max_units,
                seed: args.seed,
                decoder: args.decoder,
            };
            let rows: Vec<OrderingRow> = {
                use rayon::prelude::*;
                scorers
                    .par_iter()
                    .map(|s| order(s.as_ref(), &docs, &spec))
                    .collect::<Vec<_>>()
                    .concat()
            };
            if args.json {
                let out = json!({"task": "ordering", "documents": docs.len(), "results": rows});
                println!("{}", serde_json::to_string_pretty(&out)?);
            } else {
                println!(
                    "ordering, {} documents, seed {} (τ in [-1, 1]; the rest in %)",
                    docs.len(),
                    spec.seed
                );
                println!(
                    "{:<14}{:<11}{:<8}{:>9}{:>8}{:>8}{:>8}{:>8}{:>8}",
                    "scorer", "level", "decoder", "instances", "PMR", "Acc", "τ", "WLCS-l", "OBSv2"
                );
                for r in rows {
                    println!(
                        "{:<14}{:<11}{:<8}{:>9}{:>8.2}{:>8.2}{:>8.3}{:>8.2}{:>8.2}",
                        r.scorer,
                        r.level.name(),
                        r.decoder,
                        r.instances,
                        r.pmr * 100.0,
                        r.acc * 100.0,
                        r.tau,
                        r.wlcs_l * 100.0,
                        r.obs_v2 * 100.0
                    );
                }
            }
        }
    }
    Ok(0)
}

/// Writes `per_scorer` as JSONL to `path` (through a temporary file, renamed into place).
fn write_comparisons(path: &std::path::Path, per_scorer: &[Vec<Comparison>]) -> anyhow::Result<()> {
    let mut text = String::new();
    for c in per_scorer.iter().flatten() {
        text.push_str(&serde_json::to_string(c)?);
        text.push('\n');
    }
    write_atomically(path, &text).with_context(|| format!("cannot write {}", path.display()))
}

fn print_discrimination(rows: &[DiscriminationRow], spec: &DiscriminationSpec, documents: usize) {
    println!(
        "discrimination accuracy (%), {documents} documents, {} copies per degradation, seed {}",
        spec.copies, spec.seed
    );
    let names: Vec<String> = spec.degradations.iter().map(ToString::to_string).collect();
    print!("{:<14}{:<11}", "scorer", "level");
    for n in &names {
        print!("{n:>8}");
    }
    println!();
    let mut keys: Vec<(&str, Level)> = rows.iter().map(|r| (r.scorer.as_str(), r.level)).collect();
    keys.dedup();
    for (scorer, level) in keys {
        print!("{scorer:<14}{:<11}", level.name());
        for n in &names {
            match rows
                .iter()
                .find(|r| r.scorer == scorer && r.level == level && &r.degradation == n)
            {
                Some(r) if r.pairs > 0 => print!("{:>8.2}", r.accuracy * 100.0),
                _ => print!("{:>8}", "–"),
            }
        }
        println!();
    }
}

/// Arguments of `segue calibrate`.
#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {
    /// JSONL corpus of edited prose (the dev split).
    #[arg(long)]
    pub data: PathBuf,
    /// Where to write the calibration. Entries already in the file for other scorers are kept;
    /// those of the scorers calibrated now are replaced.
    #[arg(long, default_value = "models/calibration.json")]
    pub out: PathBuf,
    /// Scorer tier: auto, 0 or 1.
    #[arg(long, default_value = "auto", value_parser = |s: &str| parse_tier(s).ok_or("use auto, 0 or 1"))]
    pub tier: TierChoice,
    /// Scorers to calibrate (repeatable; default: all of the tier).
    #[arg(long = "scorer")]
    pub scorers: Vec<String>,
}

/// Runs `segue calibrate`: percentiles of adjacent-transition scores in the corpus's own order,
/// sentence transitions inside paragraphs and paragraph transitions inside documents, merged into
/// the calibration file at `--out` (written atomically).
pub fn calibrate(args: CalibrateArgs) -> anyhow::Result<u8> {
    let docs = read_corpus(&args.data)?;
    let mut merged = if args.out.exists() {
        Calibration::load(&args.out)?
    } else {
        Calibration::default()
    };
    let mut cal = Calibration {
        source: format!(
            "{} ({} documents): adjacent transitions in the original order",
            args.data
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("corpus"),
            docs.len()
        ),
        ..Calibration::default()
    };
    for scorer in selected_scorers(&args.scorers, args.tier)? {
        for level in [Level::Sentence, Level::Paragraph] {
            let mut scores = Vec::new();
            for doc in &docs {
                let units = units(doc, level);
                if units.len() < 2 {
                    continue;
                }
                let table = scorer.prepare(&units, level);
                let mut boundary = 0;
                let para_ends: Vec<usize> = doc
                    .paragraphs
                    .iter()
                    .map(|p| {
                        boundary += p.len();
                        boundary
                    })
                    .collect();
                for i in 1..units.len() {
                    // Sentence transitions are only judged inside paragraphs, as in `segue check`.
                    if level == Level::Sentence && para_ends.contains(&i) {
                        continue;
                    }
                    scores.push(table.transition(i - 1, i));
                }
            }
            cal.record(scorer.name(), level, scores);
        }
    }
    let names: Vec<String> = cal.percentiles.keys().cloned().collect();
    merged.merge(cal);
    let text = serde_json::to_string_pretty(&merged)?;
    write_atomically(&args.out, &(text + "\n"))
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    eprintln!(
        "wrote {} (calibrated: {})",
        args.out.display(),
        names.join(", ")
    );
    Ok(0)
}

/// Arguments of `segue train`.
#[derive(Debug, clap::Args)]
pub struct TrainArgs {
    /// What to train: `tier0`.
    pub what: String,
    /// JSONL training corpus (the train split only).
    #[arg(long)]
    pub data: PathBuf,
    /// Output folder.
    #[arg(long, default_value = "models/tier0")]
    pub out: PathBuf,
    /// Seed for negative sampling (the shipped weights use the default).
    #[arg(long, default_value_t = crate::eval::train::DEFAULT_SEED)]
    pub seed: u64,
}

/// Runs `segue train`: fits the tier-0 entity-grid and combined models on a training corpus and
/// writes their weights (as the shipped `models/tier0/` were made).
pub fn train(args: TrainArgs) -> anyhow::Result<u8> {
    if args.what != "tier0" {
        bail!(
            "cannot train `{}`; the one trainable model is `tier0`",
            args.what
        );
    }
    let docs = read_corpus(&args.data)?;
    if docs.is_empty() {
        bail!("{} holds no documents", args.data.display());
    }
    let summary = crate::eval::train::train_and_write(&docs, &args.out, args.seed)
        .with_context(|| format!("cannot write the weights to {}", args.out.display()))?;
    eprintln!(
        "segue: trained tier0 on {} documents (seed {}); weights written to {}",
        docs.len(),
        args.seed,
        args.out.display()
    );
    println!("{}", serde_json::to_string_pretty(&summary)?);
    Ok(0)
}

/// Scorers to run, in order.
type Scorers = Vec<Arc<dyn Scorer>>;

/// How a front end picks its default scorer from a tier's set.
type DefaultScorer = fn(&ScorerSet, Option<&str>) -> anyhow::Result<Arc<dyn Scorer>>;

/// The documents of a real-prose folder (`--limit` applied) and the scorers to run: those named
/// with `--scorer`, else `default` of the tier's set (each set loaded once).
fn prose_inputs(
    args: &EvalArgs,
    default: DefaultScorer,
) -> anyhow::Result<(Vec<ProseDoc>, Scorers)> {
    let mut docs = read_prose_corpus(&args.data)?;
    if let Some(n) = args.limit {
        docs.truncate(n);
    }
    let scorers = if args.scorers.is_empty() {
        vec![default(&scorers_for(args.tier)?, None)?]
    } else {
        selected_scorers(&args.scorers, args.tier)?
    };
    Ok((docs, scorers))
}

/// `work` on each of `n` documents with `scorer`, the results in document order: in parallel for
/// a built-in scorer, one document after another for a model scorer. The embedding cache is
/// shared and a sentence's vector is the same in any batch only up to float rounding, so in
/// parallel the vector a sentence shared by two documents keeps would depend on which document
/// came first; one after another the figures are the same on every run. The encoder uses every
/// core either way.
fn per_document<T: Send>(
    n: usize,
    scorer: &dyn Scorer,
    work: impl Fn(usize) -> T + Sync + Send,
) -> Vec<T> {
    use rayon::prelude::*;
    if scorer.tier() == 0 {
        (0..n).into_par_iter().map(work).collect()
    } else {
        (0..n).map(work).collect()
    }
}

/// `segue eval --task prose`: findings on a folder of real documents.
fn run_prose(args: &EvalArgs) -> anyhow::Result<u8> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    // The scorer `segue check` reports with, unless scorers are named.
    let (docs, scorers) = prose_inputs(args, reporting_scorer)?;
    let calibration = match &args.calibration {
        Some(path) => Calibration::load(path)?,
        None => Calibration::shipped(),
    };
    if let Some(path) = &args.verdict_rows_out {
        let mut text = String::new();
        for s in &scorers {
            let rows: Vec<Vec<VerdictRows>> = per_document(docs.len(), s.as_ref(), |i| {
                verdict_rows(
                    s.as_ref(),
                    &docs,
                    i,
                    &calibration,
                    args.copies.max(1),
                    args.seed,
                )
            });
            for r in rows.iter().flatten() {
                let line = json!({"scorer": s.name(), "rows": r});
                text.push_str(&serde_json::to_string(&line)?);
                text.push('\n');
            }
        }
        write_atomically(path, &text)?;
        return Ok(0);
    }
    let per_scorer: Vec<(Vec<DocResult>, Vec<ListedFinding>)> = {
        scorers
            .iter()
            .map(|s| {
                let chunks: Vec<(Vec<DocResult>, Vec<ListedFinding>)> =
                    per_document(docs.len(), s.as_ref(), |i| {
                        prose_doc(
                            s.as_ref(),
                            &docs,
                            i,
                            &calibration,
                            args.copies.max(1),
                            args.seed,
                        )
                    });
                let mut results = Vec::new();
                let mut listed = Vec::new();
                for (r, l) in chunks {
                    results.extend(r);
                    listed.extend(l);
                }
                (results, listed)
            })
            .collect()
    };
    if let Some(path) = &args.findings_out {
        let mut text = String::new();
        for (_, listed) in &per_scorer {
            for f in listed {
                text.push_str(&serde_json::to_string(f)?);
                text.push('\n');
            }
        }
        write_atomically(path, &text)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let rows: Vec<ProseRow> = scorers
        .iter()
        .zip(&per_scorer)
        .flat_map(|(s, (results, _))| summarize(s.name(), results))
        .collect();
    if args.json {
        let documents: Vec<&DocResult> = per_scorer.iter().flat_map(|(r, _)| r).collect();
        let json_out = json!({"task": "prose", "documents": docs.len(), "results": rows, "per_document": documents});
        writeln!(out, "{}", serde_json::to_string_pretty(&json_out)?)?;
        return Ok(0);
    }
    writeln!(
        out,
        "prose, {} documents, seed {}: findings per 1,000 words of published prose; planted foreign units caught (%); of the findings on the planted copies, the share on the planted unit (%)",
        docs.len(),
        args.seed
    )?;
    writeln!(
        out,
        "{:<10}{:<22}{:<8}{:>6}{:>9}{:>6}{:>8}{:>13}{:>13}{:>16}",
        "scorer",
        "group",
        "sens.",
        "docs",
        "words",
        "finds",
        "/1000w",
        "sentence %",
        "paragraph %",
        "on planted %"
    )?;
    for r in rows {
        writeln!(
            out,
            "{:<10}{:<22}{:<8}{:>6}{:>9}{:>6}{:>8.2}{:>8.1} /{:>3}{:>8.1} /{:>3}{:>9.1} /{:>4}",
            r.scorer,
            r.group,
            format!("{:?}", r.sensitivity).to_lowercase(),
            r.documents,
            r.words,
            r.findings,
            r.per_1000_words,
            r.sentence_recall * 100.0,
            r.sentences_planted,
            r.paragraph_recall * 100.0,
            r.paragraphs_planted,
            r.planted_precision * 100.0,
            r.planted_findings
        )?;
    }
    Ok(0)
}

/// The cases of each genre (the folder a case's document is in).
fn by_genre(cases: &[ContainerCase]) -> BTreeMap<&str, Vec<ContainerCase>> {
    let mut out: BTreeMap<&str, Vec<ContainerCase>> = BTreeMap::new();
    for c in cases {
        out.entry(c.genre.as_str()).or_default().push(c.clone());
    }
    out
}

/// `segue eval --task reorder`: reorder verdicts on a folder of real documents.
fn run_reorder(args: &EvalArgs) -> anyhow::Result<u8> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    // The judge `segue reorder` uses, unless scorers are named.
    let (docs, scorers) = prose_inputs(args, order_scorer)?;
    let mut calibrated = Margins::default();
    let mut rows = Vec::new();
    let mut case_lines = String::new();
    for s in &scorers {
        let cases: Vec<ContainerCase> = {
            use rayon::prelude::*;
            docs.par_iter()
                .map(|d| reorder_cases(s.as_ref(), d, args.copies.max(1), args.seed))
                .collect::<Vec<_>>()
                .concat()
        };
        if args.reorder_rows_out.is_some() {
            for c in &cases {
                let mut line = serde_json::to_value(c)?;
                line["judge"] = json!(s.name());
                case_lines.push_str(&serde_json::to_string(&line)?);
                case_lines.push('\n');
            }
        }
        let flow_cases = flow_view(&cases);
        for level in args.level.levels() {
            let shipped = Margins::shipped();
            let Some(row) = reorder_summary(s.name(), level, &cases, ReorderRule::Margin(None))
            else {
                continue;
            };
            calibrated
                .margins
                .entry(s.name().to_string())
                .or_default()
                .insert(level.name().to_string(), row.calibrated_margin);
            if let Some(model) = shipped.overrule(s.name(), level) {
                // A model that reads the flow judge decides on the flow judge's proposals.
                let seen = match &flow_cases {
                    Some(f) if model.reads_flow() => f,
                    _ => &cases,
                };
                rows.extend(reorder_summary(
                    s.name(),
                    level,
                    seen,
                    ReorderRule::Model(model),
                ));
            }
            if let Some(margin) = shipped.get(s.name(), level) {
                rows.extend(reorder_summary(
                    s.name(),
                    level,
                    &cases,
                    ReorderRule::Margin(Some(margin)),
                ));
            }
            // The flow judge's own gain, at the margin that keeps untouched proposals at 5 %.
            rows.extend(flow_cases.as_ref().and_then(|f| {
                reorder_summary(
                    &format!("{}+flow", s.name()),
                    level,
                    f,
                    ReorderRule::Margin(None),
                )
            }));
            let margin = row.calibrated_margin;
            rows.push(row);
            if args.by_genre {
                for (genre, part) in by_genre(&cases) {
                    let name = format!("{}:{genre}", s.name());
                    rows.extend(reorder_summary(
                        &name,
                        level,
                        &part,
                        ReorderRule::Margin(Some(margin)),
                    ));
                }
            }
        }
    }
    if let Some(path) = &args.reorder_rows_out {
        write_atomically(path, &case_lines)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.margins_out {
        let mut margins: Margins = match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text)
                .with_context(|| format!("{} is not a margins file", path.display()))?,
            Err(_) => Margins::default(),
        };
        for (scorer, levels) in calibrated.margins {
            margins.margins.entry(scorer).or_default().extend(levels);
        }
        margins.source = format!(
            "segue eval --task reorder --data {} --copies {} --seed {} ({} documents)",
            args.data.display(),
            args.copies.max(1),
            args.seed,
            docs.len()
        );
        write_atomically(path, &(serde_json::to_string_pretty(&margins)? + "\n"))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if args.json {
        let json_out = json!({"task": "reorder", "documents": docs.len(), "results": rows});
        writeln!(out, "{}", serde_json::to_string_pretty(&json_out)?)?;
        return Ok(0);
    }
    writeln!(
        out,
        "reorder, {} documents, {} shuffled copies per container, seed {}: proposals on untouched and shuffled containers (%); among proposals on shuffled copies, exact and closer-to-the-author (%), all / up to 6 units; mean Kendall tau shuffled -> after",
        docs.len(),
        args.copies.max(1),
        args.seed
    )?;
    let width = rows
        .iter()
        .map(|r| r.scorer.len() + 2)
        .max()
        .unwrap_or(0)
        .max(10);
    writeln!(
        out,
        "{:<width$}{:<10}{:>6}{:>10}{:>11}{:>10}{:>8}{:>8}{:>9}{:>10}{:>15}",
        "scorer",
        "level",
        "cont.",
        "rule",
        "untouched",
        "shuffled",
        "exact",
        "closer",
        "exact≤6",
        "closer≤6",
        "tau"
    )?;
    for r in rows {
        writeln!(
            out,
            "{:<width$}{:<10}{:>6}{:>10}{:>11.1}{:>10.1}{:>8.1}{:>8.1}{:>9.1}{:>10.1}{:>8.2} → {:.2}",
            r.scorer,
            r.level.name(),
            r.containers,
            if r.by_model {
                format!("p≥{:.2}", r.margin)
            } else {
                format!("Δ≥{:.3}", r.margin)
            },
            r.untouched_rate * 100.0,
            r.shuffled_rate * 100.0,
            r.exact_rate * 100.0,
            r.closer_rate * 100.0,
            r.exact_rate_small * 100.0,
            r.closer_rate_small * 100.0,
            r.tau_shuffled,
            r.tau_after
        )?;
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(id: &str) -> ContainerCase {
        ContainerCase {
            id: id.to_string(),
            genre: id.split('/').next().unwrap_or_default().to_string(),
            level: Level::Sentence,
            units: 3,
            untouched_gain: 0.0,
            untouched_evidence: None,
            shuffled: Vec::new(),
            untouched_flow: None,
            untouched_moves_first: false,
        }
    }

    #[test]
    fn by_genre_groups_cases_by_their_folder() {
        let cases = [
            case("essay/a.md"),
            case("fiction/b.txt"),
            case("essay/c.rst"),
        ];
        let groups = by_genre(&cases);
        let names: Vec<(&str, usize)> = groups.iter().map(|(g, v)| (*g, v.len())).collect();
        assert_eq!(names, vec![("essay", 2), ("fiction", 1)]);
    }
}
