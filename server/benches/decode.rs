//! `cargo bench --bench decode`: how long the ordering decoders take for n = 8, 12 and 16 units,
//! on the trained model's transition table shape (a dense [n, n] table; the values are random, the
//! decoders' cost does not depend on them).
//!
//! - `exact`: the subset dynamic programme (O(2ⁿ·n²)), what `segue eval --decoder exact` and
//!   `segue reorder` use up to 16 units;
//! - `beam`: beam search, width 64 (used beyond 16 units);
//! - `greedy`: greedy chains from every start unit (the lexical baseline's decoder);
//! - `head`: when the models are installed, building the table from unit vectors with the ordering
//!   head (cue features + ONNX Runtime on the CPU), without the sentence encoder.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use segue::model::ModelOptions;
use segue::order::decode::{beam, exact, greedy, Problem, BEAM_WIDTH};
use segue::score::ordering::{
    unit_vector, ChainTable, HeadOutputs, OrderScores, OrderWeights, OrderingModel,
};
use segue::score::{Level, Unit};
use std::hint::black_box;
use std::time::Duration;

const SIZES: [usize; 3] = [8, 12, 16];

fn table(n: usize, seed: u64) -> ChainTable {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let g: Vec<f32> = (0..n * n).map(|_| rng.gen_range(-2.0..2.0)).collect();
    let out = HeadOutputs {
        n,
        precedence: (0..n * n).map(|k| g[k] - g[(k % n) * n + k / n]).collect(),
        successor: (0..n * n).map(|_| rng.gen_range(-3.0..3.0)).collect(),
        opening: (0..n).map(|_| rng.gen_range(-3.0..3.0)).collect(),
        closing: (0..n).map(|_| rng.gen_range(-3.0..3.0)).collect(),
    };
    let vectors: Vec<Vec<f32>> = (0..n)
        .map(|_| {
            unit_vector(
                &[(0..384)
                    .map(|_| rng.gen_range(-1.0f32..1.0))
                    .collect::<Vec<f32>>()],
                384,
            )
        })
        .collect();
    let w = OrderWeights {
        successor: 0.5,
        coherence: 1.0,
        precedence: 0.5,
        borda: 0.05,
        opening: 1.0,
        closing: 0.5,
        ..OrderWeights::default()
    };
    OrderScores::new(&out, &vectors).chain(&w)
}

fn decoders(c: &mut Criterion) {
    let mut group = c.benchmark_group("decode");
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    group.sample_size(10);
    for n in SIZES {
        let t = table(n, n as u64);
        group.bench_with_input(BenchmarkId::new("exact", n), &t, |b, t| {
            b.iter(|| black_box(exact(&Problem::new(t))))
        });
        group.bench_with_input(BenchmarkId::new("beam", n), &t, |b, t| {
            b.iter(|| black_box(beam(&Problem::new(t), BEAM_WIDTH, Duration::from_secs(5))))
        });
        group.bench_with_input(BenchmarkId::new("greedy", n), &t, |b, t| {
            b.iter(|| black_box(greedy(t)))
        });
    }
    group.finish();
}

fn heads(c: &mut Criterion) {
    let model = match OrderingModel::load(&ModelOptions::from_env()) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("decode bench: skipping the head benchmarks: {e}");
            return;
        }
    };
    let sentences = [
        "The first collection type we will look at is the vector.",
        "Vectors allow you to store more than one value in a single data structure.",
        "They can only store values of the same type.",
        "However, an enum can hold values of different kinds.",
    ];
    let mut group = c.benchmark_group("head");
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    group.sample_size(10);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for n in SIZES {
        let units: Vec<Unit<'_>> = (0..n)
            .map(|i| vec![sentences[i % sentences.len()]])
            .collect();
        let vectors: Vec<Vec<f32>> = (0..n)
            .map(|_| {
                unit_vector(
                    &[(0..384)
                        .map(|_| rng.gen_range(-1.0f32..1.0))
                        .collect::<Vec<f32>>()],
                    384,
                )
            })
            .collect();
        group.bench_function(BenchmarkId::new("sentence", n), |b| {
            // A run and its scores, as a set the model has not scored yet costs (`scores` would
            // answer the later iterations from its memo).
            b.iter(|| {
                black_box(
                    model
                        .run(Level::Sentence, &units, &vectors)
                        .map(|out| OrderScores::new(&out, &vectors).n),
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, decoders, heads);
criterion_main!(benches);
