//! The ordering model's metadata, `ordering.json`: the cue feature spec, each head's file and
//! sha256, the weights of the order objective and the paragraph reader's section.

use serde::Deserialize;

use super::FORMAT;

/// Weights of the order objective (see the module docs); absent weights are 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize, serde::Serialize)]
#[serde(default)]
pub struct OrderWeights {
    /// Log-probability that the next unit directly follows.
    pub successor: f64,
    /// Clamped embedding cosine of adjacent units.
    pub coherence: f64,
    /// Log-probability that a unit precedes the next one.
    pub precedence: f64,
    /// Borda potential: how much a unit precedes all others.
    pub borda: f64,
    /// Log-probability that the first unit opens the set.
    pub opening: f64,
    /// Log-probability that the last unit closes the set.
    pub closing: f64,
    /// The reader's log-probability that a unit precedes the next one (`cross_precedence` in
    /// the metadata).
    #[serde(rename = "cross_precedence")]
    pub reader_precedence: f64,
    /// The reader's Borda potential (`cross_borda`).
    #[serde(rename = "cross_borda")]
    pub reader_borda: f64,
    /// The reader's log-probability that the next unit directly follows (`cross_next`).
    #[serde(rename = "cross_next")]
    pub reader_next: f64,
}

impl OrderWeights {
    /// Whether any of the paragraph reader's terms (`reader_*`) has weight.
    pub fn uses_reader(&self) -> bool {
        self.reader_precedence > 0.0 || self.reader_next > 0.0 || self.reader_borda > 0.0
    }

    /// Only the precedence-derived terms (the "pairwise model" ablation).
    pub fn pairwise_only(&self) -> OrderWeights {
        OrderWeights {
            precedence: self.precedence,
            borda: self.borda,
            ..OrderWeights::default()
        }
    }
}

/// One cue feature of a unit (the `cues.features` of the metadata; `models/train/ordering/cues.py`
/// documents each kind).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CueFeature {
    /// The first sentence starts with one of the phrases (space-separated tokens).
    StartsWith {
        /// Feature name.
        name: String,
        /// Phrases.
        phrases: Vec<String>,
    },
    /// One of the words occurs among tokens `skip..window` of the first sentence.
    Within {
        /// Feature name.
        name: String,
        /// Tokens skipped at the start.
        skip: usize,
        /// End of the window (exclusive).
        window: usize,
        /// Words.
        words: Vec<String>,
    },
    /// The last sentence, right-trimmed, ends with one of the strings.
    EndsWith {
        /// Feature name.
        name: String,
        /// Endings.
        chars: Vec<String>,
    },
    /// The first sentence, left-trimmed, begins with one of the strings.
    BeginsWith {
        /// Feature name.
        name: String,
        /// Beginnings.
        chars: Vec<String>,
    },
    /// `scale · ln(1 + tokens in the unit)`.
    LogWords {
        /// Feature name.
        name: String,
        /// Scale.
        scale: f64,
    },
    /// `scale · ln(1 + sentences in the unit)`.
    LogSents {
        /// Feature name.
        name: String,
        /// Scale.
        scale: f64,
    },
}

/// The unit cue spec.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CueSpec {
    /// Spec version.
    pub version: u32,
    /// Features, in input order.
    pub features: Vec<CueFeature>,
}

/// The pair cue spec (`pairs` of the metadata).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PairSpec {
    /// Feature names, in input order: `head_given`, `jaccard`, `boundary`, `introduced`.
    pub features: Vec<String>,
    /// How many content tokens of a unit's first sentence `head_given` looks at.
    pub head: usize,
    /// Shortest content token.
    pub min_len: usize,
    /// Indefinite determiners.
    pub indefinite: Vec<String>,
    /// Definite determiners.
    pub definite: Vec<String>,
    /// Stop words (never content tokens).
    pub stop_words: Vec<String>,
}

/// One level's head in the metadata.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct LevelMeta {
    /// ONNX file in [`super::DIR`].
    pub file: String,
    /// Its sha256, lower-case hex.
    pub sha256: String,
    /// Weights of the order objective.
    pub weights: OrderWeights,
}

/// Embedding input of the heads.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct EmbeddingMeta {
    /// Embedding dimension.
    pub dim: usize,
}

/// One level's objective with the paragraph reader (`cross.levels` of the metadata).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ReaderLevelMeta {
    /// Weights of the order objective, the reader's terms included.
    pub weights: OrderWeights,
}

/// The paragraph reader's part of the metadata (the `cross` section, written by
/// `models/train/ordering/reader/tune.py`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ReaderMeta {
    /// The ONNX export, relative to the models folder (`onnx/reader/model.onnx`).
    pub file: String,
    /// The export's sha256 the weights were set with (also a row of `models/manifest.tsv`).
    pub sha256: String,
    /// Largest set the reader reads; larger sets use the head's own weights.
    pub max_units: usize,
    /// Levels with a reader objective, by name.
    pub levels: std::collections::BTreeMap<String, ReaderLevelMeta>,
}

/// `ordering.json`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct OrderingMeta {
    /// Format version ([`FORMAT`]).
    pub format: u32,
    /// Embedding input.
    pub embedding: EmbeddingMeta,
    /// Unit cues.
    pub cues: CueSpec,
    /// Pair cues.
    pub pairs: PairSpec,
    /// Heads by level name (`sentence`, `paragraph`).
    pub levels: std::collections::BTreeMap<String, LevelMeta>,
    /// The paragraph reader, when the model has one (the `cross` section).
    #[serde(default, rename = "cross")]
    pub reader: Option<ReaderMeta>,
}

impl OrderingMeta {
    /// Parses and checks metadata text.
    pub fn parse(text: &str) -> Result<OrderingMeta, String> {
        let meta: OrderingMeta = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if meta.format != FORMAT {
            return Err(format!(
                "format {} (this build reads {FORMAT})",
                meta.format
            ));
        }
        if meta.pairs.features.len() != 4 {
            return Err(format!(
                "{} pair features (expected 4)",
                meta.pairs.features.len()
            ));
        }
        Ok(meta)
    }

    /// Width of a `units` row.
    pub fn unit_width(&self) -> usize {
        self.embedding.dim + self.cues.features.len()
    }
}

// ---- cue features ------------------------------------------------------------------------------
