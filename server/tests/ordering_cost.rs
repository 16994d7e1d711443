//! What the ordering heads cost on a document, counted in unit pairs rather than timed: an
//! analysis scores each container the decoder reads (a paragraph's own sentences, a section's
//! paragraphs) as a set of its own, so the pairs grow with the containers rather than with the
//! square of the document; the scorers that share one ordering model (`ordering`,
//! `ordering-head` and `tier1`'s terms, as `segue score --tier 1` runs them) run the heads once per
//! set between them, and their scores are those of a model of their own. Skipped when the models
//! are not installed.

use segue::model::{shared_encoder, Encoder, ModelOptions};
use segue::order::reorder::{unit_texts, Container};
use segue::score::analysis::{analyze, Analysis};
use segue::score::ordering::OrderingModel;
use segue::score::precedence::{OrderingScorer, Variant};
use segue::score::tier1::{Tier1, Tier1Weights};
use segue::score::{Level, Scorer};
use segue::text::{parse, Document, Format};
use std::sync::Arc;

/// The ordering model and the encoder, or `None` (with a note) when they are not installed.
fn models() -> Option<(Arc<OrderingModel>, Arc<Encoder>)> {
    let options = ModelOptions::from_env();
    match (OrderingModel::load(&options), shared_encoder(&options)) {
        (Ok(m), Ok(e)) => Some((Arc::new(m), e)),
        (Err(e), _) => {
            eprintln!("skipping: {e}");
            None
        }
        (_, Err(e)) => {
            eprintln!("skipping: {e}");
            None
        }
    }
}

/// `paragraphs` paragraphs of two sentences each, under one heading.
fn document(paragraphs: usize) -> String {
    let mut text = String::from("# Notes\n\n");
    for k in 0..paragraphs {
        // Alternate openings: three paragraphs in a row that open alike are a list, not
        // judged (`score::parallel`).
        text.push_str(&format!(
            "{} parser reads block {k} before the renderer sees it. \
             Then block {k} goes to the cache with its span.\n\n",
            ["The", "A"][k % 2]
        ));
    }
    text
}

#[test]
fn scorers_over_one_model_run_its_heads_once_per_set() {
    let options = ModelOptions::from_env();
    let Some((model, encoder)) = models() else {
        return;
    };
    let scorers: Vec<Box<dyn Scorer>> = vec![
        Box::new(OrderingScorer::new(encoder.clone(), model.clone())),
        Box::new(OrderingScorer::new(encoder.clone(), model.clone()).with_variant(Variant::Head)),
        Box::new(Tier1::terms(
            OrderingScorer::new(encoder.clone(), model.clone()).with_variant(Variant::Head),
            &Tier1Weights::shipped(),
        )),
    ];
    // 40 paragraphs: 40 sets of 2 sentences and one of 40 paragraphs (beyond the reader).
    let text = document(40);
    let doc = parse(&text, Format::Markdown);
    let before = model.cells_scored();
    let analyses: Vec<_> = scorers.iter().map(|s| analyze(&doc, s.as_ref())).collect();
    let cells = model.cells_scored() - before;
    assert_eq!(
        cells,
        40 * 2 * 2 + 40 * 40,
        "every set's pairs go through the heads once, not once per scorer"
    );
    // A model of its own (nothing shared) scores every transition the same.
    let fresh = Arc::new(OrderingModel::load(&options).expect("loaded once already"));
    let alone = OrderingScorer::new(encoder.clone(), fresh.clone());
    let own = analyze(&doc, &alone);
    assert_eq!(
        fresh.cells_scored() - 8,
        40 * 2 * 2 + 40 * 40,
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

/// `sections` sections of `paragraphs` paragraphs of three sentences, the last paragraph of each
/// with a list attached (its items are sentences of the paragraph, but not its own).
fn sectioned(sections: usize, paragraphs: usize) -> String {
    let mut text = String::new();
    for s in 0..sections {
        text.push_str(&format!("# Part {s}\n\n"));
        for p in 0..paragraphs {
            text.push_str(&format!(
                "{} {s}.{p} reads the block. It hands stage {s}.{p} a span. \
                 Then the cache keeps part {s} for block {p}.\n\n",
                ["Stage", "Step"][p % 2]
            ));
        }
        text.push_str(&format!("- item one of {s}\n- item two of {s}\n\n"));
    }
    text
}

/// Checks that every transition of `analysis` scores as `alone` scores it in a table of its
/// container alone (what `segue reorder` decodes).
fn assert_as_alone(doc: &Document, analysis: &Analysis, alone: &dyn Scorer) {
    for t in analysis.sentences.iter().chain(&analysis.paragraphs) {
        let (container, from, to) = match t.level {
            Level::Sentence => (
                Container::Paragraph {
                    section: t.from.section,
                    paragraph: t.from.paragraph,
                },
                t.from.sentence.unwrap_or(0),
                t.to.sentence.unwrap_or(0),
            ),
            Level::Paragraph => (
                Container::Section(t.from.section),
                t.from.paragraph,
                t.to.paragraph,
            ),
        };
        let units = unit_texts(doc, container).expect("a container of the document");
        let table = alone.prepare(&units, t.level);
        assert_eq!(
            t.score.to_bits(),
            table.transition(from, to).to_bits(),
            "{} {t:?}",
            alone.name()
        );
        assert_eq!(t.reason.note, table.reason(from, to).note);
    }
}

#[test]
fn an_analysis_scores_each_container_as_a_set_of_its_own() {
    let Some((model, encoder)) = models() else {
        return;
    };
    let scorer =
        |variant| OrderingScorer::new(encoder.clone(), model.clone()).with_variant(variant);
    let terms = Tier1::terms(scorer(Variant::Head), &Tier1Weights::shipped());
    // A long document: 54 sentences in 18 paragraphs, beyond what the paragraph reader reads.
    let doc = parse(&sectioned(3, 6), Format::Markdown);
    let before = model.cells_scored();
    let analysis = analyze(&doc, &scorer(Variant::Full));
    analyze(&doc, &terms);
    // 18 paragraphs of 3 own sentences and 3 sections of 6 paragraphs (the list items joined to
    // the paragraph before them), not all 60 sentences and 18 paragraphs as two sets.
    assert_eq!(model.cells_scored() - before, 18 * 3 * 3 + 3 * 6 * 6);
    assert_eq!(analysis.sentences.len(), 18 * 2);
    assert!(!analysis.paragraphs.is_empty());
    // Per container, the heads' objective, as `ordering-head` scores the container alone.
    assert_as_alone(&doc, &analysis, &scorer(Variant::Head));
    // A short document (12 sentences, 4 paragraphs): the reader's terms too, each container
    // exactly as the decoder's table of it.
    let doc = parse(&sectioned(2, 2), Format::Markdown);
    for s in [&scorer(Variant::Full) as &dyn Scorer, &terms] {
        assert_as_alone(&doc, &analyze(&doc, s), s);
    }
}

/// One heading, then `paragraphs` paragraphs of two sentences, every paragraph's pair its own
/// but drawn from 60 + 60 sentences, so that the encoder reads few.
fn long_section(paragraphs: usize) -> String {
    let mut text = String::from("# Notes\n\n");
    for k in 0..paragraphs {
        let (a, b) = (k % 60, (k / 60) % 60);
        text.push_str(&format!(
            "{} parser reads block {a} before the renderer sees it. \
             Then the cache keeps entry {b} with its span.\n\n",
            ["The", "A"][k % 2]
        ));
    }
    text
}

/// The long form of `every_set_an_analysis_plans_is_kept_for_the_next_scorer`, at the size
/// where the memo's own budget ran out (about 30 s in a debug build: `cargo test --test
/// ordering_cost -- --ignored`).
#[test]
#[ignore = "long: 11 windows of 512 units"]
fn a_section_in_windows_goes_through_the_heads_once() {
    use segue::score::precedence::{window_starts, MAX_SET};
    let Some((model, encoder)) = models() else {
        return;
    };
    let scorer =
        |variant| OrderingScorer::new(encoder.clone(), model.clone()).with_variant(variant);
    let scorers: Vec<Box<dyn Scorer>> = vec![
        Box::new(scorer(Variant::Full)),
        Box::new(scorer(Variant::Head)),
        Box::new(Tier1::terms(
            scorer(Variant::Head),
            &Tier1Weights::shipped(),
        )),
    ];
    // 3,000 paragraphs in one section: 11 windows of 512, more than the memo holds when each
    // window's scores are kept whole and only 64 MiB of them.
    let n = 3000;
    let text = long_section(n);
    let doc = parse(&text, Format::Markdown);
    let units = unit_texts(&doc, Container::Section(0)).expect("one section");
    assert_eq!(units.len(), n);
    let windows = window_starts(n).len() as u64;
    assert_eq!(windows, 11);
    let before = model.cells_scored();
    for s in &scorers {
        let table = s.prepare_in(&units, Level::Paragraph, std::slice::from_ref(&(0..n)));
        assert!(table.transition(n - 2, n - 1) > 0.0 || table.transition(0, 1) > 0.0);
    }
    assert_eq!(
        model.cells_scored() - before,
        windows * (MAX_SET * MAX_SET) as u64,
        "each window through the heads once, whichever scorer asks first"
    );
}

#[test]
fn every_set_an_analysis_plans_is_kept_for_the_next_scorer() {
    let Some((model, encoder)) = models() else {
        return;
    };
    // A memo with no budget of its own keeps only what the scorers plan before scoring a level.
    let model = Arc::new(
        Arc::into_inner(model)
            .expect("not shared yet")
            .with_memo_budget(0),
    );
    let scorer =
        |variant| OrderingScorer::new(encoder.clone(), model.clone()).with_variant(variant);
    let scorers: Vec<Box<dyn Scorer>> = vec![
        Box::new(scorer(Variant::Full)),
        Box::new(scorer(Variant::Head)),
        Box::new(Tier1::terms(
            scorer(Variant::Head),
            &Tier1Weights::shipped(),
        )),
    ];
    let doc = parse(&sectioned(3, 6), Format::Markdown);
    let before = model.cells_scored();
    for s in &scorers {
        analyze(&doc, s.as_ref());
    }
    // 18 paragraphs of 3 own sentences and 3 sections of 6 paragraphs, once between the three.
    assert_eq!(model.cells_scored() - before, 18 * 3 * 3 + 3 * 6 * 6);
}
