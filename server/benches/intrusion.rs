//! `cargo bench --bench intrusion`: what the intrusion model adds to a model-stage run of the
//! `embedding` scorer, for documents of 100, 500 and 2,000 units of 384-wide vectors (the values
//! are random; the cost does not depend on them).
//!
//! - `intrusion`: every unit's features and score ([`segue::score::intrusion::scores`]);
//! - `transitions` (the baseline, measured in the same run): the n − 1 adjacent and n − 2 skip
//!   cosines that the fixed interruption rule needs.
//!
//! The encoder's time is not included: both use the same vectors, which the embedding cache
//! supplies after the first run.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use segue::score::intrusion::scores;
use segue::score::Level;
use std::hint::black_box;
use std::time::Duration;

const SIZES: [usize; 3] = [100, 500, 2000];

fn vectors(n: usize) -> Vec<Vec<f32>> {
    let mut rng = ChaCha8Rng::seed_from_u64(n as u64);
    (0..n)
        .map(|_| (0..384).map(|_| rng.gen_range(-1.0f32..1.0)).collect())
        .collect()
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let (mut dot, mut na, mut nb) = (0f32, 0f32, 0f32);
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    f64::from(dot / (na.sqrt() * nb.sqrt()).max(f32::MIN_POSITIVE))
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("intrusion");
    group
        .measurement_time(Duration::from_secs(3))
        .sample_size(20);
    for n in SIZES {
        let v = vectors(n);
        group.bench_with_input(BenchmarkId::new("transitions", n), &v, |b, v| {
            b.iter(|| {
                let adjacent: Vec<f64> = v.windows(2).map(|w| cosine(&w[0], &w[1])).collect();
                let skip: Vec<f64> = v.windows(3).map(|w| cosine(&w[0], &w[2])).collect();
                black_box((adjacent, skip))
            })
        });
        group.bench_with_input(BenchmarkId::new("intrusion", n), &v, |b, v| {
            b.iter(|| black_box(scores(v, Level::Sentence)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
