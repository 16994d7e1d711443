//! The `segue` command line (clap). Each subcommand lives in its own module; this one parses
//! arguments, dispatches, and maps outcomes to exit codes: 0 clean, 1 findings, 2 error.

pub mod check;
pub mod diff;
pub mod eval_cmd;
pub mod explain;
pub mod jsonl;
pub mod models_cmd;
pub mod reorder_cmd;
pub mod report;
pub mod report_cmd;
pub mod score_cmd;
pub mod scorers;
pub mod user;
pub mod write;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Checks the coherence of prose: whether each sentence and paragraph follows from the one before.
#[derive(Debug, Parser)]
#[command(name = "segue", version, about, long_about = None)]
pub struct Cli {
    /// Where the tier 1 runtime and models are (global options).
    #[command(flatten)]
    pub models: user::ModelFlags,
    /// Print tier 1's start-up lines on stderr (where each model runs). Warnings and errors are
    /// printed either way.
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Report weak transitions in files, folders or stdin (`-`).
    Check(check::CheckArgs),
    /// Write one self-contained HTML page: coherence strips, score plots, findings, reorders.
    Report(report_cmd::ReportArgs),
    /// Print every scorer's value for every transition of a file (`--jsonl`: score JSON lines
    /// from stdin, one result line each).
    Score(score_cmd::ScoreArgs),
    /// Propose a better order of paragraphs (per section) or sentences (of one paragraph).
    Reorder(reorder_cmd::ReorderArgs),
    /// Measure scorers on a JSONL corpus (discrimination or ordering).
    Eval(eval_cmd::EvalArgs),
    /// Install, list or verify the tier 1 models (ONNX Runtime and the sentence encoder).
    Models(models_cmd::ModelsArgs),
    /// Diagnose tier 1: runtime library, provider, model files, and a timed smoke test.
    Doctor(models_cmd::DoctorArgs),
    /// Run the language server (LSP over stdio).
    Serve(crate::lsp::ServeArgs),
    /// Print the settings keys (`--schema`: as a JSON Schema, for editor clients).
    Settings(SettingsArgs),
    /// Explain a rule: what it means, why it fires, how to silence it (no rule: list them).
    Explain(explain::ExplainArgs),
    /// Measure score percentiles on edited prose and write the calibration file.
    #[command(hide = true)]
    Calibrate(eval_cmd::CalibrateArgs),
    /// Train the built-in (tier 0) models from a JSONL corpus.
    #[command(hide = true)]
    Train(eval_cmd::TrainArgs),
}

/// Exit code when everything checked was clean.
pub const EXIT_CLEAN: u8 = 0;
/// Exit code when there are findings.
pub const EXIT_FINDINGS: u8 = 1;
/// Exit code when something could not be done.
pub const EXIT_ERROR: u8 = 2;

/// Runs the CLI and returns its exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                EXIT_ERROR
            } else {
                EXIT_CLEAN
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    user::set_flags(cli.models);
    user::set_verbose(cli.verbose);
    let result = match cli.command {
        Command::Check(args) => check::run(args),
        Command::Report(args) => report_cmd::run(args),
        Command::Score(args) => score_cmd::run(args),
        Command::Eval(args) => eval_cmd::run(args),
        Command::Reorder(args) => reorder_cmd::run(args),
        Command::Serve(args) => crate::lsp::run(args),
        Command::Models(args) => models_cmd::run(args),
        Command::Doctor(args) => models_cmd::doctor(args),
        Command::Settings(args) => settings(args),
        Command::Explain(args) => explain::run(args),
        Command::Calibrate(args) => eval_cmd::calibrate(args),
        Command::Train(args) => eval_cmd::train(args),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("segue: error: {e:#}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// Arguments of `segue settings`.
#[derive(Debug, clap::Args)]
pub struct SettingsArgs {
    /// Print a JSON Schema of the settings instead of a table.
    #[arg(long)]
    pub schema: bool,
}

fn settings(args: SettingsArgs) -> anyhow::Result<u8> {
    if args.schema {
        println!(
            "{}",
            serde_json::to_string_pretty(&crate::config::schema())?
        );
    } else {
        for (key, description, default) in crate::config::KEYS {
            println!("{key:<12} default {default:<36} {description}");
        }
    }
    Ok(EXIT_CLEAN)
}

/// Whether to colour output on stdout: a terminal, and `NO_COLOR` unset.
pub fn stdout_color() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}
