//! The findings test: how often the diagnostics rule fires on edited prose (false alarms), and how
//! often it catches a unit that does not belong (an *intruder*: a sentence or paragraph taken from
//! another document of the corpus and inserted at a random place).
//!
//! Each document is written out as plain text (sentences joined by a space, paragraphs by a blank
//! line) and goes through the same path as `segue check`: segmentation, [`analyze`], [`findings`]
//! with the shipped calibration (or another one, `segue eval --calibration FILE`). An intruder counts as caught when a finding of its level is
//! reported on it or on the unit right after it (a run of weak transitions is reported once, at
//! its first unit, so a finding on the next unit is also about the intruder).

use super::data::CorpusDoc;
use crate::score::analysis::analyze;
use crate::score::findings::{findings, Calibration, Sensitivity};
use crate::score::{Level, Scorer};
use crate::text::{parse, Format, Span};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// One row of results: a scorer at one level and sensitivity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FindingsRow {
    /// Scorer name.
    pub scorer: String,
    /// Level of the findings counted.
    pub level: Level,
    /// Sensitivity setting.
    pub sensitivity: Sensitivity,
    /// Findings per 100 transitions of this level on the original documents.
    pub false_alarms_per_100: f64,
    /// Transitions of this level in the original documents.
    pub transitions: usize,
    /// Fraction of inserted intruders that were caught.
    pub recall: f64,
    /// Intruders inserted.
    pub intruders: usize,
}

/// Writes paragraphs as plain text; returns the text.
fn write_plain(paragraphs: &[Vec<&str>]) -> String {
    paragraphs
        .iter()
        .map(|p| p.join(" "))
        .collect::<Vec<_>>()
        .join("\n\n")
        + "\n"
}

/// A document with one foreign unit inserted, and the byte span of that unit.
fn with_intruder(
    doc: &CorpusDoc,
    donor: &CorpusDoc,
    level: Level,
    rng: &mut ChaCha8Rng,
) -> Option<(String, Span)> {
    let mut paragraphs: Vec<Vec<&str>> = doc
        .paragraphs
        .iter()
        .map(|p| p.iter().map(String::as_str).collect())
        .collect();
    let marker: Vec<&str> = match level {
        Level::Sentence => {
            let donors = donor.sentences();
            let candidates: Vec<usize> = (0..paragraphs.len())
                .filter(|&i| paragraphs[i].len() >= 3)
                .collect();
            if candidates.is_empty() || donors.is_empty() {
                return None;
            }
            let p = candidates[rng.gen_range(0..candidates.len())];
            let at = rng.gen_range(1..paragraphs[p].len());
            let s = donors[rng.gen_range(0..donors.len())];
            paragraphs[p].insert(at, s);
            vec![s]
        }
        Level::Paragraph => {
            if paragraphs.len() < 3 || donor.paragraphs.is_empty() {
                return None;
            }
            let at = rng.gen_range(1..paragraphs.len());
            let d = &donor.paragraphs[rng.gen_range(0..donor.paragraphs.len())];
            let d: Vec<&str> = d.iter().map(String::as_str).collect();
            paragraphs.insert(at, d.clone());
            d
        }
    };
    let text = write_plain(&paragraphs);
    let needle = marker.join(" ");
    // Locate the inserted unit: the occurrence that was inserted is the only one unless the donor
    // text also occurs in the document, in which case the instance is skipped.
    let start = text.find(&needle)?;
    if text[start + 1..].contains(&needle) {
        return None;
    }
    Some((text, Span::new(start, start + needle.len())))
}

fn rng_for(seed: u64, doc: usize, level: Level) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(
        seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add((doc as u64) << 16)
            .wrapping_add(level as u64 * 7 + 5000),
    )
}

/// Runs the findings test of `scorer` over `docs` at `levels` and every sensitivity, with the
/// absolute floors of `calibration`.
pub fn findings_test(
    scorer: &dyn Scorer,
    docs: &[CorpusDoc],
    levels: &[Level],
    seed: u64,
    calibration: &Calibration,
) -> Vec<FindingsRow> {
    let sensitivities = [Sensitivity::Low, Sensitivity::Medium, Sensitivity::High];
    let mut rows = Vec::new();
    for &level in levels {
        let mut alarms = [0usize; 3];
        let mut caught = [0usize; 3];
        let (mut transitions, mut intruders) = (0usize, 0usize);
        for (di, doc) in docs.iter().enumerate() {
            let paragraphs: Vec<Vec<&str>> = doc
                .paragraphs
                .iter()
                .map(|p| p.iter().map(String::as_str).collect())
                .collect();
            let original = write_plain(&paragraphs);
            let analysis = analyze(&parse(&original, Format::Plain), scorer);
            transitions += analysis.at(level).len();
            for (k, &s) in sensitivities.iter().enumerate() {
                alarms[k] += findings(&analysis, calibration, s)
                    .iter()
                    .filter(|f| f.level == level)
                    .count();
            }
            if docs.len() < 2 {
                continue;
            }
            let mut rng = rng_for(seed, di, level);
            let mut donor = rng.gen_range(0..docs.len() - 1);
            if donor >= di {
                donor += 1;
            }
            let Some((text, span)) = with_intruder(doc, &docs[donor], level, &mut rng) else {
                continue;
            };
            intruders += 1;
            let doc = parse(&text, Format::Plain);
            let analysis = analyze(&doc, scorer);
            // The unit right after the intruder, where a finding about it may also land.
            let next = analysis
                .at(level)
                .iter()
                .find(|t| t.from.span.end >= span.end && t.from.span.start <= span.end)
                .map(|t| t.to.span);
            for (k, &s) in sensitivities.iter().enumerate() {
                let hit = findings(&analysis, calibration, s).iter().any(|f| {
                    f.level == level
                        && (overlaps(f.to, span) || Some(f.to) == next && !overlaps(f.from, span))
                });
                caught[k] += usize::from(hit);
            }
        }
        for (k, &s) in sensitivities.iter().enumerate() {
            rows.push(FindingsRow {
                scorer: scorer.name().to_string(),
                level,
                sensitivity: s,
                false_alarms_per_100: 100.0 * alarms[k] as f64 / transitions.max(1) as f64,
                transitions,
                recall: caught[k] as f64 / intruders.max(1) as f64,
                intruders,
            });
        }
    }
    rows
}

fn overlaps(a: Span, b: Span) -> bool {
    a.start < b.end && b.start < a.end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::lexical::Lexical;

    fn doc(id: &str, paragraphs: &[&[&str]]) -> CorpusDoc {
        CorpusDoc {
            id: id.into(),
            paragraphs: paragraphs
                .iter()
                .map(|p| p.iter().map(|s| s.to_string()).collect())
                .collect(),
        }
    }

    #[test]
    fn inserts_the_intruder_where_it_says() {
        let a = doc(
            "a",
            &[
                &["Cats purr.", "Cats sleep.", "Cats eat fish."],
                &["Cats hunt mice."],
            ],
        );
        let b = doc("b", &[&["Rockets burn fuel."]]);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let (text, span) = with_intruder(&a, &b, Level::Sentence, &mut rng).expect("inserted");
        assert_eq!(span.slice(&text), "Rockets burn fuel.");
        assert!(text.starts_with("Cats purr. "));
    }

    #[test]
    fn counts_alarms_and_intruders() {
        let cats = doc(
            "a",
            &[&[
                "The cat purrs on the mat.",
                "Our cat sleeps on the mat.",
                "The cat eats fish on the mat.",
                "This cat hunts mice near the mat.",
            ]],
        );
        let rockets = doc(
            "b",
            &[&[
                "Rockets burn liquid fuel.",
                "Rocket engines need oxidiser.",
                "Rocket fuel is stored cold.",
                "Rockets reach orbit fast.",
            ]],
        );
        let rows = findings_test(
            &Lexical::plain(),
            &[cats, rockets],
            &[Level::Sentence],
            3,
            &Calibration::shipped(),
        );
        assert_eq!(rows.len(), 3);
        assert!(rows.iter().all(|r| r.intruders == 2 && r.transitions == 6));
        // An unrelated sentence inside a paragraph that repeats its topic is caught.
        let high = &rows[2];
        assert!(high.recall > 0.0, "{rows:#?}");
    }
}
