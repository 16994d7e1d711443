use segue::score::analysis::analyze;
use segue::score::ScorerSet;
use segue::text::{parse, Format, markdown};
use std::time::Instant;

#[test]
#[ignore]
fn timings() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/bench-10k.md")).unwrap();
    let set = ScorerSet::builtin();
    for _ in 0..3 {
        let t = Instant::now();
        let b = markdown::blocks(&doc);
        let tb = t.elapsed();
        let t = Instant::now();
        let d = parse(&doc, Format::Markdown);
        let tp = t.elapsed();
        eprintln!("blocks {} {:?} parse {:?} sentences {}", b.len(), tb, tp, d.sentences().count());
        for name in set.names() {
            let s = set.get(name).unwrap();
            let t = Instant::now();
            let a = analyze(&d, s.as_ref());
            eprintln!("  {name}: {:?} ({} + {})", t.elapsed(), a.sentences.len(), a.paragraphs.len());
        }
    }
}
