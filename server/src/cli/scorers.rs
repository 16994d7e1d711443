//! What the subcommands share: the scorer set for a tier choice, the scorer a command reports or
//! judges reorders with, and a file read and parsed for `score` and `reorder`.

use crate::config::TierChoice;
use crate::input::read::{read_file_in, Encoding, FileText};
use crate::model::ModelOptions;
use crate::score::registry;
use crate::score::{Scorer, ScorerSet};
use crate::text::{parse, Format};
use anyhow::{bail, Context};
use std::path::Path;
use std::sync::Arc;

/// The scorers available for a tier choice, with model options from the user's own settings
/// (the flags, the user settings file, the environment: [`super::user::model_options`]); see
/// [`scorers_with`].
pub fn scorers_for(tier: TierChoice) -> anyhow::Result<ScorerSet> {
    scorers_with(
        tier,
        &super::user::model_options(super::user::user_config()?),
    )
}

/// The scorers available for a tier choice: tier 0 always; with `auto` or `1` also the tier-1
/// scorers when the encoder loads ([`crate::score::registry::add_models`]; with `--verbose`, one
/// line on stderr per model says where it runs; its warnings are always shown). `auto` without a
/// working model falls back to tier 0 with a warning on stderr; `1` without one is an error naming
/// the fix.
pub fn scorers_with(tier: TierChoice, options: &ModelOptions) -> anyhow::Result<ScorerSet> {
    let mut set = ScorerSet::builtin();
    if tier == TierChoice::Builtin {
        return Ok(set);
    }
    let log = |line: String| {
        if super::user::verbose() || registry::is_warning(&line) {
            eprintln!("segue: {line}");
        }
    };
    match registry::add_models(&mut set, options, &log) {
        Ok(()) => Ok(set),
        Err(e) if tier == TierChoice::Auto => {
            eprintln!("segue: warning: {e}; using the built-in (tier 0) scorers");
            Ok(set)
        }
        Err(e) => bail!("tier 1 needs the models: {e}"),
    }
}

/// The scorer whose findings are reported.
/// By default the best available: [`registry::default_scorer`].
pub fn reporting_scorer(set: &ScorerSet, name: Option<&str>) -> anyhow::Result<Arc<dyn Scorer>> {
    named_scorer(set, name.unwrap_or_else(|| registry::default_scorer(set)))
}

/// The scorer that judges reorders: `name`, by default the best one loaded
/// ([`registry::default_order_scorer`]; the language server's code actions use the same default).
pub fn order_scorer(set: &ScorerSet, name: Option<&str>) -> anyhow::Result<Arc<dyn Scorer>> {
    named_scorer(
        set,
        name.unwrap_or_else(|| registry::default_order_scorer(set)),
    )
}

fn named_scorer(set: &ScorerSet, name: &str) -> anyhow::Result<Arc<dyn Scorer>> {
    if set.get(name).is_none() && registry::MODEL_SCORERS.contains(&name) {
        bail!(
            "the scorer `{name}` needs the tier 1 models, which did not load (see the warning \
             above); run `models/install` and use `--tier 1`, or pick one of: {}",
            set.names().join(", ")
        );
    }
    set.get(name).with_context(|| {
        format!(
            "no scorer named `{name}`; available: {}",
            set.names().join(", ")
        )
    })
}

/// `--encoding` values: the encoding of a file that is neither UTF-8 nor declares one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EncodingArg {
    /// ISO 8859-1 (Latin-1).
    #[value(alias = "iso-8859-1")]
    Latin1,
    /// ISO 8859-15 (Latin-9: Latin-1 with the euro sign).
    #[value(alias = "iso-8859-15")]
    Latin9,
    /// Windows-1252 (Latin-1 with curly quotes and dashes in 0x80–0x9f).
    #[value(alias = "windows-1252")]
    Cp1252,
}

impl From<EncodingArg> for Encoding {
    fn from(e: EncodingArg) -> Encoding {
        match e {
            EncodingArg::Latin1 => Encoding::Latin1,
            EncodingArg::Latin9 => Encoding::Latin9,
            EncodingArg::Cp1252 => Encoding::Windows1252,
        }
    }
}

/// Reads the file at `path` ([`crate::input::read::read_file_in`]: a regular file, at most
/// [`crate::input::read::MAX_FILE_BYTES`], text; in `encoding` when it is neither UTF-8 nor
/// declares one) and parses it in the format its extension names (plain text otherwise), as
/// `segue score` and `segue reorder` do; the error names the file.
pub fn read_document(
    path: &Path,
    encoding: Option<EncodingArg>,
) -> anyhow::Result<(FileText, crate::text::Document)> {
    let file = read_file_in(path, encoding.map(Encoding::from))
        .with_context(|| path.display().to_string())?;
    let doc = parse(&file.text, Format::from_path(path).unwrap_or(Format::Plain));
    Ok((file, doc))
}
