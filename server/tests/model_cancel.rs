//! A newer edit stops a tier-1 model stage between two inference batches: the engine runs the
//! `embedding` scorer on a document whose sentences are all new to the encoder, with a cancellation
//! token that turns true once a few batches have run (what a newer edit of the same document does
//! in the server). The run must end as cancelled within a batch or two of that point, instead of
//! embedding the whole document. Counts batches, not time. Skips when `models/install` has not run.

use segue::lsp::engine::{Cancelled, Engine, Job};
use segue::model::cancel::scope;
use segue::model::{shared_encoder, CancelToken, ModelOptions};
use segue::score::embedding::Embedding;
use segue::score::findings::{Calibration, Sensitivity};
use segue::score::Scorer;
use segue::text::Format;
use std::sync::Arc;

/// 144 distinct sentences in paragraphs of six.
fn document() -> String {
    let things = ["river", "engine", "garden", "ledger", "harbour", "violin"];
    let acts = ["measures", "repairs", "paints", "counts", "guards", "tunes"];
    (0..24)
        .map(|p| {
            (0..6)
                .map(|s| {
                    let i = p * 6 + s;
                    // Alternate openings: three units in a row that open alike are a list,
                    // not judged (`score::parallel`).
                    format!(
                        "{} {i} {} the {} near gate {}.",
                        ["Worker", "Keeper"][i % 2],
                        acts[i % 6],
                        things[(i / 6) % 6],
                        i * 7 + 3
                    )
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[test]
fn a_superseded_model_stage_stops_between_batches() {
    let options = ModelOptions {
        batch_size: 4,
        ..ModelOptions::from_env()
    };
    let Ok(encoder) = shared_encoder(&options) else {
        eprintln!("skipping: the tier 1 models are not installed (run models/install)");
        return;
    };
    let scorer: Arc<dyn Scorer> = Arc::new(Embedding::new(encoder.clone()));
    let policy = scorer.context_policy();
    let job = Job {
        version: 1,
        text: Arc::from(document()),
        format: Some(Format::Markdown),
        skip: None,
        scorer: scorer.clone(),
        judge: segue::order::reorder::Judge {
            scorer,
            named: true,
        },
        policy,
        calibration: Arc::new(Calibration::shipped()),
        sensitivity: Sensitivity::Medium,
    };
    let start = encoder.stats().batches;
    // "A newer edit arrives" once three batches have run.
    let enc = encoder.clone();
    let token = CancelToken::new(move || enc.stats().batches >= start + 3);
    let mut engine = Engine::new();
    let poll = token.clone();
    let result = scope(Some(token), || engine.run(&job, 1, &|| poll.is_cancelled()));
    assert!(matches!(result, Err(Cancelled)), "{result:?}");
    let stopped_after = encoder.stats().batches - start;
    // Each of the two levels may finish the batch it had started; nothing more runs.
    assert!(
        stopped_after <= 5,
        "{stopped_after} batches ran after the stage was superseded at 3"
    );

    // The same engine then analyses the document in full: the stopped stage left nothing behind
    // that changes the result (the 144 sentences need 36 batches of 4, besides those the
    // stopped stage ran: its vectors were never cached).
    let analyzed = engine
        .run(&job, 2, &|| false)
        .expect("a run that is not cancelled");
    assert!(!analyzed.analysis.sentences.is_empty());
    let full = encoder.stats().batches - start;
    assert!(full >= 36 + stopped_after, "{full}");
    assert!(
        stopped_after * 8 < full,
        "the stopped stage ran {stopped_after} of {full} batches"
    );
}
