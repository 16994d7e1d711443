//! Research tool, ignored by default: the discrimination comparisons of each term of the ordering
//! heads' objective on its own (successor, precedence, Borda, opening, closing) and of the
//! paragraph reader's terms (`reader_precedence`, `reader_next`, `reader_borda`: only for sets the
//! reader reads, documents of at most 16 units at either level; constant elsewhere), to see
//! whether `tier1` gains from weighting them separately. Writes `target/comb/terms.jsonl` in the
//! format of `segue eval --comparisons`, for `models/train/tier1/fit.py`:
//!
//! ```sh
//! cargo test --release -p segue --test discrimination_terms -- --ignored --nocapture
//! ```
//!
//! `SEGUE_TERMS=reader_precedence,reader_next` measures only the named terms (and writes
//! `target/comb/terms-<names>.jsonl`, or `terms-<names>-<level>.jsonl` with `SEGUE_LEVELS=sentence`
//! or `paragraph`), e.g. to refit after a new reader. `SEGUE_MAX_UNITS=16` scores only sets of at
//! most that many units and gives larger ones a constant table: for the reader's terms, which are
//! constant there anyway, the same comparisons in a fraction of the time.

use segue::eval::data::read_corpus;
use segue::eval::degrade::Degradation;
use segue::eval::discrimination::{comparisons, DiscriminationSpec};
use segue::model::{shared_encoder, ModelOptions};
use segue::score::ordering::{OrderWeights, OrderingModel};
use segue::score::precedence::OrderingScorer;
use segue::score::{Level, Pairwise, Reason, Scorer, Unit};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// The heads' objective with one term only.
struct Term {
    name: &'static str,
    weights: OrderWeights,
    inner: OrderingScorer,
    /// Sets larger than this get a constant table (`SEGUE_MAX_UNITS`).
    max_units: usize,
}

struct Failed(usize);

impl Pairwise for Failed {
    fn len(&self) -> usize {
        self.0
    }
    fn transition(&self, _: usize, _: usize) -> f64 {
        0.0
    }
    fn reason(&self, _: usize, _: usize) -> Reason {
        Reason::default()
    }
}

impl Scorer for Term {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        "one term of the ordering heads' objective"
    }
    fn tier(&self) -> u8 {
        1
    }
    fn prepare<'a>(&'a self, units: &[Unit<'_>], level: Level) -> Box<dyn Pairwise + 'a> {
        if units.len() > self.max_units {
            return Box::new(Failed(units.len()));
        }
        let reader = self.weights.uses_reader();
        let table = self.inner.vectors(units).ok().and_then(|v| {
            let scores = if reader {
                self.inner
                    .model()
                    .scores_with_reader(level, units, &v)
                    .ok()?
                    .0
            } else {
                self.inner.model().scores(level, units, &v).ok()?
            };
            Some(scores.chain(&self.weights))
        });
        match table {
            Some(t) => Box::new(t),
            None => Box::new(Failed(units.len())),
        }
    }
}

#[test]
#[ignore = "research tool: about 10 minutes on dev with the models"]
fn ordering_terms_on_dev() {
    let options = ModelOptions::from_env();
    let (Ok(encoder), Ok(model)) = (shared_encoder(&options), OrderingModel::load(&options)) else {
        eprintln!("skipping: the tier 1 models are not installed (run models/install)");
        return;
    };
    let model = Arc::new(model);
    let data = std::env::var_os("SEGUE_DEV_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"));
    let docs = read_corpus(&data.join("dev.jsonl")).expect("dev.jsonl");
    let spec = DiscriminationSpec {
        degradations: ["R1", "R2", "R", "D1", "D2", "D5", "D10"]
            .iter()
            .map(|d| Degradation::parse(d).expect("degradation"))
            .collect(),
        levels: match std::env::var("SEGUE_LEVELS").as_deref() {
            Ok("sentence") => vec![Level::Sentence],
            Ok("paragraph") => vec![Level::Paragraph],
            _ => vec![Level::Sentence, Level::Paragraph],
        },
        copies: 5,
        seed: 13,
    };
    let max_units = std::env::var("SEGUE_MAX_UNITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    let one = |name: &'static str, set: fn(&mut OrderWeights)| {
        let mut weights = OrderWeights::default();
        set(&mut weights);
        Term {
            name,
            weights,
            inner: OrderingScorer::new(encoder.clone(), model.clone()),
            max_units,
        }
    };
    let terms = [
        one("successor", |w| w.successor = 1.0),
        one("precedence", |w| w.precedence = 1.0),
        one("borda", |w| w.borda = 1.0),
        one("opening", |w| w.opening = 1.0),
        one("closing", |w| w.closing = 1.0),
        one("cross_precedence", |w| w.reader_precedence = 1.0),
        one("cross_next", |w| w.reader_next = 1.0),
        one("cross_borda", |w| w.reader_borda = 1.0),
    ];
    let only: Option<Vec<String>> = std::env::var("SEGUE_TERMS")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/comb");
    std::fs::create_dir_all(&out).expect("target/comb");
    let file = match &only {
        Some(names) => match std::env::var("SEGUE_LEVELS") {
            Ok(level) => format!("terms-{}-{level}.jsonl", names.join("-")),
            Err(_) => format!("terms-{}.jsonl", names.join("-")),
        },
        None => "terms.jsonl".to_string(),
    };
    let mut f = std::fs::File::create(out.join(&file)).expect("terms file");
    for term in terms
        .iter()
        .filter(|t| only.as_ref().is_none_or(|o| o.iter().any(|n| n == t.name)))
    {
        let all = comparisons(term, &docs, &spec);
        let wins: f64 = all.iter().map(|c| c.win()).sum();
        eprintln!(
            "{}: {:.2} % over all comparisons",
            term.name,
            100.0 * wins / all.len() as f64
        );
        for c in all {
            serde_json::to_writer(&mut f, &c).expect("write");
            f.write_all(b"\n").expect("write");
        }
    }
}
