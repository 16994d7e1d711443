//! `segue report`: check files and write one self-contained HTML page with plots
//! ([`super::report::html`]).

use super::check::{gather, CheckArgs, LanguageArg, SensitivityArg};
use super::report::{html, OutputFormat};
use super::scorers::EncodingArg;
use super::{EXIT_CLEAN, EXIT_ERROR};
use crate::config::{parse_tier, TierChoice};
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `segue report`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Files or folders to report on (folders recursively, honouring .gitignore); `-` reads
    /// stdin.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The HTML file to write (`-`: stdout).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Scorer tier: auto, 0 (built-in) or 1 (models).
    #[arg(long, default_value = "auto", value_parser = |s: &str| parse_tier(s).ok_or("use auto, 0 or 1"))]
    pub tier: TierChoice,
    /// How eagerly to flag: low, medium, high (overrides segue.toml).
    #[arg(long, value_enum)]
    pub sensitivity: Option<SensitivityArg>,
    /// Scorer whose findings and scores are shown (default: the best available).
    #[arg(long)]
    pub scorer: Option<String>,
    /// Project settings file (default: the nearest segue.toml, as for `segue check`).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Format of stdin and of files with an unknown extension: markdown, rst, latex, plain.
    #[arg(long, value_enum)]
    pub language: Option<LanguageArg>,
    /// The encoding of files that are neither UTF-8 nor declare one (a LaTeX preamble's
    /// `inputenc`): latin1, latin9 or cp1252. UTF-8 files are read as UTF-8 whatever it says.
    #[arg(long, value_enum, value_name = "ENCODING")]
    pub encoding: Option<EncodingArg>,
    /// Print nothing on success (no progress, no line naming the file written).
    #[arg(short, long)]
    pub quiet: bool,
}

/// Runs `segue report`: exit 0 when the page is written, 2 when it could not be or a file could
/// not be checked (the page is written all the same, with the error in place of that file).
pub fn run(args: ReportArgs) -> anyhow::Result<u8> {
    let check = CheckArgs {
        paths: args.paths,
        format: OutputFormat::Html,
        tier: args.tier,
        sensitivity: args.sensitivity,
        scorer: args.scorer,
        config: args.config,
        language: args.language,
        encoding: args.encoding,
        diff: None,
        exit_zero: true,
        quiet: args.quiet,
    };
    let report = gather(&check)?;
    let page = html::page(&report);
    if args.output.as_os_str() == "-" {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        out.write_all(page.as_bytes())?;
        out.flush()?;
    } else {
        std::fs::write(&args.output, page.as_bytes())
            .with_context(|| format!("cannot write {}", args.output.display()))?;
        if !args.quiet {
            eprintln!(
                "segue: wrote {} ({} document{}, {} finding{})",
                args.output.display(),
                report.files.len(),
                if report.files.len() == 1 { "" } else { "s" },
                report.finding_count(),
                if report.finding_count() == 1 { "" } else { "s" },
            );
        }
    }
    for f in &report.files {
        if let Some(e) = &f.error {
            eprintln!("error: {}: {e}", f.path);
        }
    }
    Ok(if report.error_count() > 0 {
        EXIT_ERROR
    } else {
        EXIT_CLEAN
    })
}
