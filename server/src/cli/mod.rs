//! The `segue` command line.

use std::process::ExitCode;

/// Runs the CLI and returns its exit code.
pub fn main() -> ExitCode {
    ExitCode::SUCCESS
}
