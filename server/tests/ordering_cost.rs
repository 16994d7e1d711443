//! What the ordering heads cost on a document, counted in unit pairs rather than timed: the
//! scorers that share one ordering model (`ordering`, `ordering-head` and `tier1`'s terms, as
//! `segue score --tier 1` runs them) run the heads once per set between them, and their scores
//! are those of a model of their own. Skipped when the models are not installed.

use segue::model::{shared_encoder, ModelOptions};
use segue::score::analysis::analyze;
use segue::score::ordering::OrderingModel;
use segue::score::precedence::{OrderingScorer, Variant};
use segue::score::tier1::{Tier1, Tier1Weights};
use segue::score::Scorer;
use segue::text::{parse, Format};
use std::sync::Arc;

/// `paragraphs` paragraphs of two sentences each, under one heading.
fn document(paragraphs: usize) -> String {
    let mut text = String::from("# Notes\n\n");
    for k in 0..paragraphs {
        text.push_str(&format!(
            "The parser reads block {k} before the renderer sees it. \
             Then block {k} goes to the cache with its span.\n\n"
        ));
    }
    text
}

#[test]
fn scorers_over_one_model_run_its_heads_once_per_set() {
    let options = ModelOptions::from_env();
    let (model, encoder) = match (OrderingModel::load(&options), shared_encoder(&options)) {
        (Ok(m), Ok(e)) => (Arc::new(m), e),
        (Err(e), _) => return eprintln!("skipping: {e}"),
        (_, Err(e)) => return eprintln!("skipping: {e}"),
    };
    let scorers: Vec<Box<dyn Scorer>> = vec![
        Box::new(OrderingScorer::new(encoder.clone(), model.clone())),
        Box::new(OrderingScorer::new(encoder.clone(), model.clone()).with_variant(Variant::Head)),
        Box::new(Tier1::terms(
            OrderingScorer::new(encoder.clone(), model.clone()).with_variant(Variant::Head),
            &Tier1Weights::shipped(),
        )),
    ];
    // 40 paragraphs: a set of 80 sentences and one of 40 paragraphs, both beyond the reader.
    let text = document(40);
    let doc = parse(&text, Format::Markdown);
    let before = model.cells_scored();
    let analyses: Vec<_> = scorers.iter().map(|s| analyze(&doc, s.as_ref())).collect();
    let cells = model.cells_scored() - before;
    assert_eq!(
        cells,
        80 * 80 + 40 * 40,
        "every set's pairs go through the heads once, not once per scorer"
    );
    // A model of its own (nothing shared) scores every transition the same.
    let fresh = Arc::new(OrderingModel::load(&options).expect("loaded once already"));
    let alone = OrderingScorer::new(encoder.clone(), fresh.clone());
    let own = analyze(&doc, &alone);
    assert_eq!(
        fresh.cells_scored() - 8,
        80 * 80 + 40 * 40,
        "2 probes of 2 units"
    );
    assert!(!own.sentences.is_empty() && !own.paragraphs.is_empty());
    for (a, b) in [
        (&own.sentences, &analyses[0].sentences),
        (&own.paragraphs, &analyses[0].paragraphs),
    ] {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert_eq!(x.score.to_bits(), y.score.to_bits(), "{x:?} vs {y:?}");
            assert_eq!(x.skip.map(f64::to_bits), y.skip.map(f64::to_bits));
        }
    }
}
