//! The user's own settings on the command line: the user settings file
//! (`~/.config/segue/segue.toml` on Linux, see [`crate::config::sources`]) and the global
//! `--ort-dylib` / `--models-dir` flags. With the environment variables, these are the only places
//! the settings that name code or models to load may come from; a project's `segue.toml` cannot
//! set them.

use crate::config::sources::existing_user_config_file;
use crate::config::{Config, Issue, Origin};
use crate::model::ModelOptions;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Where the tier 1 runtime and models are, from the command line. Global options: they may be
/// given before or after the subcommand.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ModelFlags {
    /// The ONNX Runtime library for tier 1 (before the ort_dylib user setting, SEGUE_ORT_DYLIB
    /// and ORT_DYLIB_PATH).
    #[arg(long, global = true, value_name = "PATH")]
    pub ort_dylib: Option<PathBuf>,
    /// The tier 1 models folder (before the models_dir user setting and SEGUE_MODELS_DIR).
    #[arg(long, global = true, value_name = "DIR")]
    pub models_dir: Option<PathBuf>,
}

static FLAGS: OnceLock<ModelFlags> = OnceLock::new();
static USER: OnceLock<Result<Config, String>> = OnceLock::new();
static VERBOSE: AtomicBool = AtomicBool::new(false);

/// Records whether this run is verbose (`--verbose`): whether tier 1's start-up lines (where each
/// model runs) are printed.
pub fn set_verbose(verbose: bool) {
    VERBOSE.store(verbose, Ordering::Relaxed);
}

/// Whether this run is verbose.
pub fn verbose() -> bool {
    VERBOSE.load(Ordering::Relaxed)
}

/// Prints the settings issues on stderr, errors and warnings, and fails when one is an error:
/// on the command line an unknown key or a bad value stops the run, whatever file it is in.
pub fn report_issues(issues: &[Issue]) -> anyhow::Result<()> {
    let mut errors = 0;
    for issue in issues {
        if issue.is_error() {
            errors += 1;
            eprintln!("segue: error: {issue}");
        } else {
            eprintln!("segue: warning: {issue}");
        }
    }
    if errors > 0 {
        anyhow::bail!(
            "{} in the settings; `segue settings` lists the keys and their values",
            if errors == 1 {
                "1 error".to_string()
            } else {
                format!("{errors} errors")
            }
        );
    }
    Ok(())
}

/// Records the flags of this run (once, before the subcommand runs). Relative paths are taken
/// from the current folder, where the user typed them.
pub fn set_flags(flags: ModelFlags) {
    let abs = |p: Option<PathBuf>| p.map(|p| std::path::absolute(&p).unwrap_or(p));
    let _ = FLAGS.set(ModelFlags {
        ort_dylib: abs(flags.ort_dylib),
        models_dir: abs(flags.models_dir),
    });
}

/// The user settings file as a settings layer, when it exists.
pub fn user_layer() -> Option<(PathBuf, Origin)> {
    existing_user_config_file().map(|p| (p, Origin::User))
}

/// The settings of the user file alone (the defaults when there is none). Read once per run; its
/// issues go to stderr, and an error among them ([`report_issues`]) fails every call.
pub fn user_config() -> anyhow::Result<&'static Config> {
    let config = USER.get_or_init(|| {
        let Some(layer) = user_layer() else {
            return Ok(Config::default());
        };
        let (config, issues) = Config::layered(&[layer]);
        report_issues(&issues).map_err(|e| e.to_string())?;
        Ok(config)
    });
    config.as_ref().map_err(|e| anyhow::anyhow!("{e}"))
}

/// Model options for settings `config`: the flags, then `config`'s paths (which only the user's
/// own file can set), then the environment ([`ModelOptions::from_env`]); the device from `config`
/// unless `SEGUE_DEVICE` is set.
pub fn model_options(config: &Config) -> ModelOptions {
    let flags = FLAGS.get().cloned().unwrap_or_default();
    ModelOptions::from_env()
        .with_device(config.device)
        .with_paths(config.ort_dylib.clone(), config.models_dir.clone())
        .with_paths(flags.ort_dylib, flags.models_dir)
}
