//! `cargo bench --bench check`: time to check a ~10,000-word Markdown document on tier 0,
//! next to a baseline measured in the same run (pulldown-cmark parsing the same text alone), so
//! figures can be reported as ratios that do not depend on the machine.

use criterion::{criterion_group, criterion_main, Criterion};
use segue::score::analysis::analyze;
use segue::score::findings::{findings, Calibration, Sensitivity};
use segue::score::ScorerSet;
use segue::text::{parse, Format};
use std::hint::black_box;

const DOC: &str = include_str!("../../tests/fixtures/bench-10k.md");

fn bench(c: &mut Criterion) {
    let set = ScorerSet::builtin();
    let calibration = Calibration::shipped();
    let mut group = c.benchmark_group("check-10k-words");
    group.sample_size(20);
    group.bench_function("baseline: pulldown-cmark parse only", |b| {
        b.iter(|| pulldown_cmark::Parser::new(black_box(DOC)).count())
    });
    group.bench_function("segment (sections, paragraphs, sentences)", |b| {
        b.iter(|| parse(black_box(DOC), Format::Markdown))
    });
    for name in set.names() {
        let Some(scorer) = set.get(name) else {
            continue;
        };
        group.bench_function(
            format!("check with {name} (segment + score + findings)"),
            |b| {
                b.iter(|| {
                    let doc = parse(black_box(DOC), Format::Markdown);
                    let analysis = analyze(&doc, scorer.as_ref());
                    findings(&analysis, &calibration, Sensitivity::Medium)
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
