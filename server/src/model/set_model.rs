//! The model that scores every ordered pair of a set of sentences for the ordering objective:
//! the pair cross-encoder ([`super::cross`], `n(n − 1)` passes) or the paragraph reader
//! ([`super::reader`], one pass). `ordering.json`'s `cross.kind` says which one its weights were
//! set with; both give the same [`SetLogits`].

use super::cross::{CrossEncoder, SetLogits};
use super::reader::ParagraphReader;
use super::runtime::Provider;
use super::{ModelError, ModelOptions};
use serde::Deserialize;
use std::path::Path;

/// Which set model a `cross` section of the ordering metadata names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SetModelKind {
    /// The sentence-pair cross-encoder (the default, for metadata written before the reader).
    #[default]
    Pair,
    /// The paragraph reader.
    Reader,
}

impl SetModelKind {
    /// What it is, for logs.
    pub fn name(self) -> &'static str {
        match self {
            SetModelKind::Pair => "cross-encoder",
            SetModelKind::Reader => "paragraph reader",
        }
    }
}

/// A loaded set model.
#[derive(Debug)]
pub enum SetModel {
    /// The sentence-pair cross-encoder.
    Pair(CrossEncoder),
    /// The paragraph reader.
    Reader(ParagraphReader),
}

impl SetModel {
    /// Loads the export at `path` as a model of `kind`, with the tokenizer of `models_dir`.
    pub fn load_from(
        kind: SetModelKind,
        path: &Path,
        models_dir: &Path,
        options: &ModelOptions,
    ) -> Result<SetModel, ModelError> {
        Ok(match kind {
            SetModelKind::Pair => {
                SetModel::Pair(CrossEncoder::load_from(path, models_dir, options)?)
            }
            SetModelKind::Reader => {
                SetModel::Reader(ParagraphReader::load_from(path, models_dir, options)?)
            }
        })
    }

    /// The logits of every ordered pair of `sentences` (see [`SetLogits`]).
    pub fn set_logits(&self, sentences: &[&str]) -> Result<SetLogits, ModelError> {
        match self {
            SetModel::Pair(m) => m.set_logits(sentences),
            SetModel::Reader(m) => m.set_logits(sentences),
        }
    }

    /// Where it runs.
    pub fn provider(&self) -> Provider {
        match self {
            SetModel::Pair(m) => m.provider(),
            SetModel::Reader(m) => m.provider(),
        }
    }

    /// Whether it gives successor logits.
    pub fn has_successor(&self) -> bool {
        match self {
            SetModel::Pair(m) => m.has_successor(),
            SetModel::Reader(_) => true,
        }
    }

    /// Which kind it is.
    pub fn kind(&self) -> SetModelKind {
        match self {
            SetModel::Pair(_) => SetModelKind::Pair,
            SetModel::Reader(_) => SetModelKind::Reader,
        }
    }

    /// What it is, for logs.
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }
}
