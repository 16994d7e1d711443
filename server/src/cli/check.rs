//! `segue check`: find weak transitions in files, folders and stdin.

use super::diff::Changes;
use super::report::{reporter, CheckReport, Detail, FileResult, Located, OutputFormat, Range};
use super::scorers::{order_scorer, reporting_scorer, scorers_with, EncodingArg};
use super::{EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS};
use crate::config::{find_project_file, parse_tier, repository_root, Config, Origin, TierChoice};
use crate::input::collect::{collect, Input};
use crate::input::read::{read_file_in, read_stdin, read_stdin_in, Encoding};
use crate::order::reorder::{reorderable, Container, Judge, Proposal};
use crate::score::analysis::{analyze, Analysis};
use crate::score::findings::{companion_analysis, findings_with, Calibration, Sensitivity};
use crate::score::{Level, Scorer, ScorerSet};
use crate::text::{parse, without_bom, Document, Format, LineIndex};
use anyhow::bail;
use rayon::prelude::*;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Arguments of `segue check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Files or folders to check (folders recursively, honouring .gitignore; default `.`); `-`
    /// reads stdin. Each input is read up to 8 MiB; devices and FIFOs are refused. With
    /// `--format jsonl`, none (or `-`): the documents are JSON lines on stdin.
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: OutputFormat,
    /// Scorer tier: auto, 0 (built-in) or 1 (models).
    #[arg(long, default_value = "auto", value_parser = parse_tier_arg)]
    pub tier: TierChoice,
    /// How eagerly to flag: low, medium, high (overrides segue.toml).
    #[arg(long, value_enum)]
    pub sensitivity: Option<SensitivityArg>,
    /// Scorer whose findings are reported (default: the best available).
    #[arg(long)]
    pub scorer: Option<String>,
    /// Project settings file (default: the nearest segue.toml between the first path and the
    /// repository root); it must exist. Like any project file, it cannot set ort_dylib or
    /// models_dir. Unknown keys and bad values in any settings file are errors (exit 2).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Format of stdin and of files with an unknown extension: markdown, rst, latex, plain.
    #[arg(long, value_enum)]
    pub language: Option<LanguageArg>,
    /// The encoding of files (and stdin) that are neither UTF-8 nor declare one (a LaTeX preamble's
    /// `inputenc`): latin1, latin9 or cp1252. UTF-8 files are read as UTF-8 whatever it says.
    #[arg(long, value_enum, value_name = "ENCODING")]
    pub encoding: Option<EncodingArg>,
    /// Report findings only on the paragraphs a change touched: since git revision BASE
    /// (`git diff --unified=0 BASE` in each file's repository), or in the unified diff read on
    /// stdin with `--diff -`. Each document is still scored whole.
    #[arg(long, value_name = "BASE")]
    pub diff: Option<String>,
    /// Report findings but exit 0 (a file that cannot be checked still exits 2).
    #[arg(long)]
    pub exit_zero: bool,
    /// Print only the findings: no summary line, no progress, no start-up lines (nothing at all
    /// when there are none). Warnings and errors still go to stderr.
    #[arg(short, long)]
    pub quiet: bool,
}

/// `--sensitivity` values.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum SensitivityArg {
    /// Only the clearest breaks.
    Low,
    /// The default.
    Medium,
    /// More findings.
    High,
}

/// `--language` values.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum LanguageArg {
    /// Markdown.
    Markdown,
    /// reStructuredText.
    Rst,
    /// LaTeX.
    Latex,
    /// Plain text.
    Plain,
}

impl From<SensitivityArg> for Sensitivity {
    fn from(s: SensitivityArg) -> Sensitivity {
        match s {
            SensitivityArg::Low => Sensitivity::Low,
            SensitivityArg::Medium => Sensitivity::Medium,
            SensitivityArg::High => Sensitivity::High,
        }
    }
}

impl From<LanguageArg> for Format {
    fn from(l: LanguageArg) -> Format {
        match l {
            LanguageArg::Markdown => Format::Markdown,
            LanguageArg::Rst => Format::Rst,
            LanguageArg::Latex => Format::Latex,
            LanguageArg::Plain => Format::Plain,
        }
    }
}

fn parse_tier_arg(s: &str) -> Result<TierChoice, String> {
    parse_tier(s).ok_or_else(|| format!("`{s}` is not a tier: use auto, 0 or 1"))
}

/// Runs `segue check`.
pub fn run(mut args: CheckArgs) -> anyhow::Result<u8> {
    let jsonl = args.format == OutputFormat::Jsonl;
    if args.paths.is_empty() {
        args.paths
            .push(PathBuf::from(if jsonl { "-" } else { "." }));
    }
    if jsonl {
        let config = check_config(&args)?;
        return run_jsonl(&args, &config);
    }
    let report = gather(&args)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if let Some(reporter) = reporter(args.format, super::stdout_color(), args.quiet) {
        reporter.write(&report, &mut out)?;
    }
    for f in &report.files {
        if let Some(e) = &f.error {
            eprintln!("error: {}: {e}", f.path);
        }
    }
    Ok(exit_code(&report, args.exit_zero))
}

/// The settings a check runs with: the settings files, then the command line's sensitivity.
fn check_config(args: &CheckArgs) -> anyhow::Result<Config> {
    if args.quiet {
        super::user::set_verbose(false);
    }
    let (mut config, issues) = Config::layered(&settings_files(args)?);
    super::user::report_issues(&issues)?;
    if let Some(s) = args.sensitivity {
        config.sensitivity = s.into();
    }
    Ok(config)
}

/// Checks what `args` name and returns the report, without writing it. With `--format html`
/// each file's result keeps what the HTML page draws ([`Detail`]): the document, the analysis,
/// the reorder proposals and, at tier 1, the BBScore analysis.
pub fn gather(args: &CheckArgs) -> anyhow::Result<CheckReport> {
    let config = check_config(args)?;
    let stdin_diff = match args.diff.as_deref() {
        Some("-") => {
            if args.paths.iter().any(|p| p.as_os_str() == "-") {
                bail!("`--diff -` reads the diff on stdin, so stdin cannot be checked too");
            }
            let diff =
                read_stdin().map_err(|e| anyhow::anyhow!("cannot read the diff on stdin: {e}"))?;
            Some(super::diff::parse_unified(&diff))
        }
        Some(base) => {
            if args.paths.iter().any(|p| p.as_os_str() == "-") {
                bail!("`--diff {base}` compares files with git; stdin has no history (use `--diff -` with a diff instead)");
            }
            None
        }
        None => None,
    };
    let (inputs, empty) = collect(&args.paths, &config);
    if inputs.is_empty() {
        // Nothing at all to check: say what was there instead.
        match empty.as_slice() {
            [] => bail!("nothing to check"),
            [one] => bail!("{}", one.message(&config)),
            many => bail!(
                "{}",
                many.iter()
                    .map(|e| e.message(&config))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        }
    }
    for e in &empty {
        eprintln!("segue: warning: {}", e.message(&config));
    }
    let (set, scorer) = check_scorer(args, &config)?;
    let calibration = Calibration::shipped();
    let extras = if args.format == OutputFormat::Html {
        Some(Extras {
            judge: Judge {
                scorer: order_scorer(&set, None)?,
                named: false,
            },
            bridge: (scorer.tier() > 0)
                .then(|| set.get("bbscore"))
                .flatten()
                .filter(|b| b.name() != scorer.name()),
        })
    } else {
        None
    };

    let progress = if args.quiet {
        None
    } else {
        progress_bar(inputs.len(), scorer.tier())
    };
    let read_as = ReadAs {
        language: args.language.map(Format::from),
        encoding: args.encoding.map(Encoding::from),
    };
    let one = |input: &Input| {
        let changes = match (input, args.diff.as_deref(), &stdin_diff) {
            (Input::File(p), _, Some(files)) => Some(Ok(super::diff::changes_for(files, p))),
            (Input::File(p), Some(base), None) => Some(super::diff::git_changes(base, p)),
            _ => None,
        };
        let result = match changes {
            Some(Err(e)) => FileResult::failed(input_path(input), e),
            Some(Ok(changes)) => check_input(
                input,
                read_as,
                scorer.as_ref(),
                &calibration,
                &config,
                Some(&changes),
                extras.as_ref(),
            ),
            None => check_input(
                input,
                read_as,
                scorer.as_ref(),
                &calibration,
                &config,
                None,
                extras.as_ref(),
            ),
        };
        if let Some(p) = &progress {
            p.inc(1);
        }
        result
    };
    // Tier 1 checks files one after another, in input order: the embedding cache shared by every
    // file keeps the first vector made for a text, and a sentence's vector is the same in any
    // batch only up to float rounding. Checked in parallel, a sentence found in two files would
    // take whichever file's vector came first, and the output could change from run to run in its
    // last digits. The encoder already uses every core.
    let files: Vec<FileResult> = if scorer.tier() == 0 {
        inputs.par_iter().map(one).collect()
    } else {
        inputs.iter().map(one).collect()
    };
    if let Some(p) = progress {
        p.finish_and_clear();
    }
    Ok(CheckReport {
        files,
        scorer: scorer.name().to_string(),
        tier: scorer.tier(),
    })
}

/// The scorer set for a check and the scorer whose findings it reports: `--scorer`, else the
/// settings' `scorer`, else the best of the tier (the settings' tier when `--tier` is `auto`).
fn check_scorer(args: &CheckArgs, config: &Config) -> anyhow::Result<(ScorerSet, Arc<dyn Scorer>)> {
    let tier = if args.tier == TierChoice::Auto {
        config.tier
    } else {
        args.tier
    };
    let wanted = args.scorer.as_deref().or(config.scorer.as_deref());
    // With `auto`, load the models unless a built-in scorer was asked for by name.
    let builtin_will_do =
        tier == TierChoice::Auto && wanted.is_some_and(|w| ScorerSet::builtin().get(w).is_some());
    let set = if builtin_will_do {
        ScorerSet::builtin()
    } else {
        scorers_with(tier, &super::user::model_options(config))?
    };
    let scorer = reporting_scorer(&set, wanted)?;
    Ok((set, scorer))
}

/// `segue check --format jsonl`: the documents are JSON lines on stdin ([`super::jsonl`]), each
/// result line holds the document's findings. Exit codes as for files: 2 when a line could not be
/// checked, else 1 when there are findings (0 with `--exit-zero`), else 0.
fn run_jsonl(args: &CheckArgs, config: &Config) -> anyhow::Result<u8> {
    super::jsonl::prepare();
    if args.paths.iter().any(|p| p.as_os_str() != "-") {
        bail!("`--format jsonl` reads JSON lines on stdin: give no path (or `-`)");
    }
    if args.diff.is_some() {
        bail!("`--diff` needs files; `--format jsonl` reads documents on stdin");
    }
    let (_, scorer) = check_scorer(args, config)?;
    let encoder = if scorer.tier() > 0 {
        Some(crate::model::shared_encoder(&super::user::model_options(
            config,
        ))?)
    } else {
        None
    };
    let stream = super::jsonl::Stream {
        scorers: vec![scorer.clone()],
        reporting: scorer,
        worst: 3,
        findings: Some((Calibration::shipped(), config.sensitivity, config.severity)),
        language: args.language.map_or(Format::Markdown, Format::from),
        encoder,
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let totals = super::jsonl::run_stream(stdin.lock(), &mut stdout.lock(), &stream)?;
    Ok(if totals.errors > 0 {
        EXIT_ERROR
    } else if totals.findings > 0 && !args.exit_zero {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    })
}

/// The exit code of a check: [`EXIT_ERROR`] when a file could not be checked, else
/// [`EXIT_FINDINGS`] when there are findings (unless `exit_zero`), else [`EXIT_CLEAN`].
fn exit_code(report: &CheckReport, exit_zero: bool) -> u8 {
    if report.error_count() > 0 {
        EXIT_ERROR
    } else if report.finding_count() > 0 && !exit_zero {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    }
}

/// The settings files of a check, lowest first: the user's own file, then the project's (`--config`,
/// else the nearest `segue.toml` from the first path's folder up to its repository root). A
/// `--config` file that does not exist is an error.
fn settings_files(args: &CheckArgs) -> anyhow::Result<Vec<(PathBuf, Origin)>> {
    let mut files: Vec<(PathBuf, Origin)> = super::user::user_layer().into_iter().collect();
    if let Some(path) = &args.config {
        if !path.exists() {
            bail!(
                "the settings file {} given with --config does not exist",
                path.display()
            );
        }
        if !path.is_file() {
            bail!(
                "the settings file {} given with --config is not a file",
                path.display()
            );
        }
    }
    let project = args.config.clone().or_else(|| {
        let first = args.paths.first()?;
        let start = if first.as_os_str() == "-" {
            absolute(Path::new("."))
        } else {
            let p = absolute(first);
            if p.is_dir() {
                p
            } else {
                p.parent().map_or(p.clone(), Path::to_path_buf)
            }
        };
        find_project_file(&start, &repository_root(&start))
    });
    files.extend(project.map(|p| (p, Origin::Project)));
    Ok(files)
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// What stderr shows while a check runs, when stderr is a terminal: a bar over the files when
/// there are many, else a spinner with the sentences embedded so far and the elapsed time when
/// the models score (a long document takes seconds at tier 1); nothing for a quick built-in
/// check of a few files.
fn progress_bar(len: usize, tier: u8) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    if len >= 20 {
        let bar = indicatif::ProgressBar::new(len as u64);
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} files {msg}")
        {
            bar.set_style(style);
        }
        return Some(bar);
    }
    if tier == 0 {
        return None;
    }
    let spinner = indicatif::ProgressBar::new_spinner();
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{spinner} scoring with the models… {msg} {elapsed}",
    ) {
        spinner.set_style(style);
    }
    spinner.enable_steady_tick(std::time::Duration::from_millis(120));
    count_sentences(spinner.clone());
    Some(spinner)
}

/// Shows on `spinner`, until it finishes, how many sentences the encoder has embedded since it
/// started, a few times a second.
fn count_sentences(spinner: indicatif::ProgressBar) {
    let start = crate::model::encoder::sentences_encoded();
    std::thread::spawn(move || {
        while !spinner.is_finished() {
            let done = crate::model::encoder::sentences_encoded().saturating_sub(start);
            spinner.set_message(sentences_message(done));
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    });
}

/// "1 sentence embedded", "1,234 sentences embedded"; empty before the first.
fn sentences_message(n: u64) -> String {
    if n == 0 {
        return String::new();
    }
    let digits = n.to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!(
        "{grouped} sentence{} embedded",
        if n == 1 { "" } else { "s" }
    )
}

/// The path of an input as reports show it.
fn input_path(input: &Input) -> String {
    match input {
        Input::Stdin => "-".to_string(),
        Input::File(p) => p.display().to_string(),
    }
}

/// How inputs are read: the format of stdin and of files with an unknown extension
/// (`--language`), and the encoding of those that are neither UTF-8 nor declare one
/// (`--encoding`).
#[derive(Debug, Clone, Copy)]
struct ReadAs {
    language: Option<Format>,
    encoding: Option<Encoding>,
}

fn check_input(
    input: &Input,
    read_as: ReadAs,
    scorer: &dyn Scorer,
    calibration: &Calibration,
    config: &Config,
    changes: Option<&Changes>,
    extras: Option<&Extras>,
) -> FileResult {
    let (path, source, format) = match input {
        Input::Stdin => (
            "-".to_string(),
            read_stdin_in(read_as.encoding),
            read_as.language.unwrap_or(Format::Markdown),
        ),
        Input::File(p) => (
            p.display().to_string(),
            read_file_in(p, read_as.encoding).map(|f| f.text),
            Format::from_path(p)
                .or(read_as.language)
                .unwrap_or(Format::Plain),
        ),
    };
    let source = match source {
        // Positions as editors count them: without the byte-order mark.
        Ok(s) => without_bom(s),
        Err(e) => return FileResult::failed(path, e),
    };
    let mut result = check_source_with(path, source, format, scorer, calibration, config, extras);
    if let Some(changes) = changes {
        let doc = parse(&result.source, format);
        let index = LineIndex::new(&result.source);
        let source = &result.source;
        result
            .findings
            .retain(|l| touched(&doc, &index, source, l, changes));
    }
    result
}

/// Whether a change touched the paragraph a finding is reported on (lines of the paragraph
/// holding the finding's unit; the unit's own lines when no paragraph holds it).
fn touched(
    doc: &crate::text::Document,
    index: &LineIndex,
    source: &str,
    located: &Located,
    changes: &Changes,
) -> bool {
    let at = located.finding.to.start;
    let (first, last) = doc
        .paragraphs()
        .find(|p| p.span.start <= at && at < p.span.end.max(p.span.start + 1))
        .map_or((located.range.start.line, located.range.end.line), |p| {
            (
                index.position(source, p.span.start).line,
                index.position(source, p.span.end).line,
            )
        });
    changes.touches(first as usize + 1, last as usize + 1)
}

/// What an HTML report needs beyond the findings: the judge of reorders and, at tier 1, the
/// BBScore scorer whose trajectory the plot shows.
pub struct Extras {
    /// The judge whose default proposals the report lists.
    pub judge: Judge,
    /// The `bbscore` scorer, when loaded and not the reporting scorer itself.
    pub bridge: Option<Arc<dyn Scorer>>,
}

/// Checks one document held in memory.
pub fn check_source(
    path: String,
    source: String,
    format: Format,
    scorer: &dyn Scorer,
    calibration: &Calibration,
    config: &Config,
) -> FileResult {
    check_source_with(path, source, format, scorer, calibration, config, None)
}

/// [`check_source`], keeping the [`Detail`] an HTML report draws when `extras` is given.
pub fn check_source_with(
    path: String,
    source: String,
    format: Format,
    scorer: &dyn Scorer,
    calibration: &Calibration,
    config: &Config,
    extras: Option<&Extras>,
) -> FileResult {
    let doc = parse(&source, format);
    let analysis = analyze(&doc, scorer);
    let companion = companion_analysis(&doc, scorer.name());
    let index = LineIndex::new(&source);
    let findings = findings_with(
        &analysis,
        companion.as_ref(),
        calibration,
        config.sensitivity,
    )
    .into_iter()
    .map(|finding| Located {
        range: Range::of(&index, &source, finding.to),
        related: Range::of(&index, &source, finding.from),
        severity: config.severity,
        finding,
    })
    .collect();
    let score = Some(analysis.document_score());
    let figures = analysis.figures.clone();
    let detail = extras.map(|extras| Box::new(detail(doc, analysis, &source, extras)));
    FileResult {
        path,
        findings,
        score,
        figures,
        error: None,
        source,
        detail,
    }
}

/// The [`Detail`] of a checked document: its default reorder proposals (every section's
/// paragraphs and every paragraph's sentences the judge is not withheld from, offered only when
/// worthwhile, as `segue reorder` offers them) and the BBScore analysis.
fn detail(doc: Document, analysis: Analysis, source: &str, extras: &Extras) -> Detail {
    let judge = &extras.judge;
    let mut withheld = Vec::new();
    for (level, units, containers) in [
        (Level::Paragraph, "paragraphs", "sections"),
        (Level::Sentence, "sentences", "paragraphs"),
    ] {
        if let Some(w) = judge.withheld(level) {
            withheld.push(format!(
                "The {} judge does not reorder {units} by default: {}.",
                judge.scorer.name(),
                w.explain(containers)
            ));
        }
    }
    let containers = doc.sections.iter().enumerate().flat_map(|(s, section)| {
        std::iter::once(Container::Section(s)).chain((0..section.paragraphs.len()).map(move |p| {
            Container::Paragraph {
                section: s,
                paragraph: p,
            }
        }))
    });
    let proposals = containers
        .filter(|c| reorderable(&doc, *c).is_ok())
        .filter_map(|c| judge.propose(&doc, source, c))
        .filter(Proposal::worthwhile)
        .collect();
    let bridge = extras.bridge.as_ref().map(|b| analyze(&doc, b.as_ref()));
    Detail {
        document: doc,
        analysis,
        bridge,
        judge: judge.scorer.name().to_string(),
        proposals,
        withheld,
    }
}

#[cfg(test)]
mod tests {
    use super::sentences_message;

    #[test]
    fn the_spinner_counts_sentences_in_groups_of_three_digits() {
        assert_eq!(sentences_message(0), "");
        assert_eq!(sentences_message(1), "1 sentence embedded");
        assert_eq!(sentences_message(999), "999 sentences embedded");
        assert_eq!(sentences_message(1_234), "1,234 sentences embedded");
        assert_eq!(sentences_message(1_234_567), "1,234,567 sentences embedded");
    }
}
