//! Embedding similarity (tier 1): how close in meaning a unit is to the one before, by the cosine
//! of sentence embeddings from a small ONNX encoder ([`crate::model::Encoder`]).
//!
//! - Sentences: the cosine of the two sentences' embeddings.
//! - Paragraphs: the cosine of the two paragraphs' mean sentence embeddings (it reuses the
//!   sentence vectors and their cache; on the dev corpus it discriminates better than embedding
//!   each paragraph's text, which the encoder truncates at 256 tokens; see models/README.md).
//!
//! The transition score is the cosine clamped to [0, 1]: MiniLM cosines of unrelated sentences sit
//! near 0 and are rarely below it, and a negative cosine says no more about coherence than 0 does.
//! The reason names the words the units share (as the lexical scorer finds them, for the reader's
//! benefit) and the cosine.
//!
//! If the encoder fails while scoring (it loaded, so this is rare), the scorer warns once on stderr
//! and scores that document with the lexical scorer instead.

use super::lexical::Lexical;
use super::{ContextPolicy, Level, Pairwise, Reason, Scorer, Unit};
use crate::model::Encoder;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// How a paragraph becomes one vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParagraphMode {
    /// The mean of its sentences' embeddings (the default).
    MeanOfSentences,
    /// The embedding of its whole text (truncated by the encoder).
    Text,
}

/// The `embedding` scorer.
#[derive(Debug)]
pub struct Embedding {
    encoder: Arc<Encoder>,
    paragraphs: ParagraphMode,
    fallback: Lexical,
    warned: AtomicBool,
}

impl Embedding {
    /// The scorer over a loaded encoder, with paragraphs as mean sentence embeddings
    /// (`SEGUE_EMBED_PARAGRAPHS=text` embeds paragraph text instead, to reproduce the comparison in
    /// models/README.md).
    pub fn new(encoder: Arc<Encoder>) -> Self {
        let paragraphs = match std::env::var("SEGUE_EMBED_PARAGRAPHS").as_deref() {
            Ok("text") => ParagraphMode::Text,
            _ => ParagraphMode::MeanOfSentences,
        };
        Embedding {
            encoder,
            paragraphs,
            fallback: Lexical::plain(),
            warned: AtomicBool::new(false),
        }
    }

    /// The same scorer with another paragraph mode.
    pub fn with_paragraph_mode(mut self, mode: ParagraphMode) -> Self {
        self.paragraphs = mode;
        self
    }

    /// The encoder it uses.
    pub fn encoder(&self) -> &Arc<Encoder> {
        &self.encoder
    }

    fn vectors(
        &self,
        units: &[Unit<'_>],
        level: Level,
    ) -> Result<Vec<Vec<f32>>, crate::model::ModelError> {
        let dim = self.encoder.dim();
        if level == Level::Sentence || self.paragraphs == ParagraphMode::Text {
            let texts: Vec<String> = units.iter().map(|u| u.join(" ")).collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            return Ok(self
                .encoder
                .embed(&refs)?
                .iter()
                .map(|v| v.to_vec())
                .collect());
        }
        let flat: Vec<&str> = units.iter().flat_map(|u| u.iter().copied()).collect();
        let embedded = self.encoder.embed(&flat)?;
        let mut next = embedded.iter();
        Ok(units
            .iter()
            .map(|u| {
                let mut mean = vec![0f32; dim];
                for v in next.by_ref().take(u.len()) {
                    for (m, x) in mean.iter_mut().zip(v.iter()) {
                        *m += x;
                    }
                }
                mean
            })
            .collect())
    }
}

struct EmbeddingPairs<'a> {
    level: Level,
    vectors: Vec<Vec<f32>>,
    norms: Vec<f32>,
    /// The units' texts, for the lexical table that names shared words in reasons.
    texts: Vec<Vec<String>>,
    fallback: &'a Lexical,
    /// That table, prepared on the first reason asked for: a table prepared only for scores (the
    /// language server's whole-level intrusion scores) never needs it.
    lexical: OnceLock<Box<dyn Pairwise + 'a>>,
}

impl EmbeddingPairs<'_> {
    fn lexical(&self) -> &dyn Pairwise {
        self.lexical
            .get_or_init(|| {
                let units: Vec<Unit<'_>> = self
                    .texts
                    .iter()
                    .map(|u| u.iter().map(String::as_str).collect())
                    .collect();
                self.fallback.prepare(&units, self.level)
            })
            .as_ref()
    }

    fn cosine(&self, from: usize, to: usize) -> Option<f64> {
        let (a, b) = (self.vectors.get(from)?, self.vectors.get(to)?);
        let (na, nb) = (self.norms[from], self.norms[to]);
        if na == 0.0 || nb == 0.0 {
            return Some(0.0);
        }
        let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        Some(f64::from(dot / (na * nb)))
    }
}

/// Maps a cosine to a transition score: clamped to [0, 1].
pub fn cosine_to_score(cosine: f64) -> f64 {
    if cosine.is_nan() {
        0.0
    } else {
        cosine.clamp(0.0, 1.0)
    }
}

/// The note for a cosine, in words: "its meaning is far from it" (under 0.2), "only loosely
/// related to it" (under 0.4), "close to it". The number itself is the transition's score, which
/// the hover, the text report's note line and JSON give; messages stay plain.
pub fn cosine_note(cosine: f64) -> String {
    let how = if cosine < 0.2 {
        "its meaning is far from it"
    } else if cosine < 0.4 {
        "its meaning is only loosely related to it"
    } else {
        "its meaning is close to it"
    };
    how.to_string()
}

impl Pairwise for EmbeddingPairs<'_> {
    fn len(&self) -> usize {
        self.vectors.len()
    }

    fn transition(&self, from: usize, to: usize) -> f64 {
        self.cosine(from, to).map_or(0.0, cosine_to_score)
    }

    fn intrusion(&self) -> Option<Vec<Option<f64>>> {
        super::intrusion::scores(&self.vectors, self.level)
    }

    fn reason(&self, from: usize, to: usize) -> Reason {
        match self.cosine(from, to) {
            Some(c) => Reason {
                shared: self.lexical().reason(from, to).shared,
                note: Some(cosine_note(c)),
            },
            None => Reason::default(),
        }
    }
}

impl Scorer for Embedding {
    fn name(&self) -> &'static str {
        "embedding"
    }

    fn context_policy(&self) -> ContextPolicy {
        ContextPolicy::Pairwise
    }

    fn runs_on(&self) -> Option<String> {
        let info = self.encoder.info();
        Some(format!(
            "{} on {} ({})",
            info.spec.name,
            info.provider,
            info.provider.ort_name()
        ))
    }

    fn description(&self) -> &'static str {
        "cosine of adjacent sentence embeddings (all-MiniLM-L6-v2); paragraphs by mean sentence embedding"
    }

    fn tier(&self) -> u8 {
        1
    }

    fn has_intrusion(&self) -> bool {
        super::intrusion::Model::Embedding.available()
    }

    fn prepare<'a>(&'a self, units: &[Unit<'_>], level: Level) -> Box<dyn Pairwise + 'a> {
        match self.vectors(units, level) {
            Ok(vectors) => {
                let norms = vectors
                    .iter()
                    .map(|v| v.iter().map(|x| x * x).sum::<f32>().sqrt())
                    .collect();
                Box::new(EmbeddingPairs {
                    level,
                    vectors,
                    norms,
                    texts: units
                        .iter()
                        .map(|u| u.iter().map(|s| s.to_string()).collect())
                        .collect(),
                    fallback: &self.fallback,
                    lexical: OnceLock::new(),
                })
            }
            Err(e) => {
                if !crate::model::cancel::stopped() && !self.warned.swap(true, Ordering::Relaxed) {
                    eprintln!("segue: warning: the embedding scorer failed ({e}); scoring with `lexical` instead");
                }
                self.fallback.prepare(units, level)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosines_map_into_the_unit_interval() {
        assert_eq!(cosine_to_score(-0.3), 0.0);
        assert_eq!(cosine_to_score(0.42), 0.42);
        assert_eq!(cosine_to_score(1.0000001), 1.0);
        assert_eq!(cosine_to_score(f64::NAN), 0.0);
    }

    #[test]
    fn notes_say_the_cosine_in_words() {
        assert_eq!(cosine_note(0.123), "its meaning is far from it");
        assert!(cosine_note(0.3).contains("loosely"));
        assert!(cosine_note(0.8).contains("close"));
        let r = Reason {
            shared: vec![],
            note: Some(cosine_note(0.12)),
        };
        assert!(r
            .describe("the previous sentence")
            .ends_with("its meaning is far from it"));
    }
}
