//! The user's own settings on the command line: the user settings file
//! (`~/.config/segue/segue.toml` on Linux, see [`crate::config::sources`]) and the global
//! `--ort-dylib` / `--models-dir` flags. With the environment variables, these are the only places
//! the settings that name code or models to load may come from; a project's `segue.toml` cannot
//! set them.

use crate::config::sources::existing_user_config_file;
use crate::config::{Config, Origin};
use crate::model::ModelOptions;
use std::path::PathBuf;
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
static USER: OnceLock<Config> = OnceLock::new();

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
/// warnings go to stderr.
pub fn user_config() -> &'static Config {
    USER.get_or_init(|| {
        let Some(layer) = user_layer() else {
            return Config::default();
        };
        let (config, warnings) = Config::layered(&[layer]);
        for w in warnings {
            eprintln!("warning: {w}");
        }
        config
    })
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
