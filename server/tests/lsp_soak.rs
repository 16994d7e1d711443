//! Soak: `segue serve` over stdio with three open documents of about 5,000 words each and
//! thousands of random incremental edits, its resident memory sampled from `/proc` after every
//! burst of edits. With the tier-1 models installed (CI installs them) the model stage runs
//! too: it completes after every other burst and is cancelled by the next burst otherwise.
//!
//! - `soak_memory_stays_flat` (the short form, in the suite; about two minutes): 2,000 edits.
//!   Every fourth sample is *settled*: taken once the server has been idle long enough to hand its
//!   free pages back (`Trimmer::IDLE`). After a warm-up (the first half of the edits, while the
//!   caches fill and ONNX Runtime's arena meets new batch shapes) the least-squares slope of the
//!   settled samples over the edits must stay under [`SHORT_BOUND_MIB_PER_1000`]. The other samples are taken 50 ms after the diagnostics, while
//!   edits keep coming: they rise between the server's periodic releases (every
//!   `Trimmer::EVERY`) and fall at each, a sawtooth of about 5 MiB whose phase at the window's
//!   ends moved a 2,000-edit slope between −0.5 and 3.1 MiB per 1,000 edits for the same build
//!   (2026-11-29; 3.1 in a CI run). The settled samples' slope was 0.16 and 1.08 in two runs of that
//!   build (0.13 and 0.95 fitted to the kept samples of two runs that waited 800 ms, not 700). The embedding cache is capped at 1,000 entries (`SEGUE_CACHE`, about the three
//!   documents' sentences and paragraphs) so that it is full by the end of the warm-up: a bounded
//!   cache still filling is not growth. (Without the server's allocator set-up,
//!   `segue::lsp::memory`, the slope of all samples was 3.9 MiB per 1,000 edits in a debug build
//!   on 2026-11-25.) The ten-minute form below is the check of a slow leak. Latency
//!   (edit → diagnostics) is reported, never asserted: median and p95, and the p95 of each third
//!   of the run, to show that it holds steady.
//! - `soak_long` (ignored; `tests/soak` runs it in release): the same for `SEGUE_SOAK_MINUTES`
//!   (default 10); the slope in MiB per minute must stay under 1 MiB/min once the warm-up is
//!   over. (With the default cache of 16,384 entries, the cache's own filling, up to about 50 MiB,
//!   shows in a 10-minute slope: set `SEGUE_SOAK_CACHE=16384` to see it.) Measured in release on
//!   the 2-core development machine on 2026-11-29, load average 2 to 3 from other builds:
//!   20,088 edits in 10 minutes, settled RSS 175 → 190 MiB, 0.06 MiB per 1,000 edits,
//!   0.10 MiB/min after the first half. Slopes per minute grow
//!   with the edit rate, which the load sets (about 3,000 edits a minute at tier 1 and 11,000 at
//!   tier 0 at a load average of 1 to 6 on 2026-11-25).
//!
//! The workload has a constant size, so memory that grows is the server's: every edit is whole
//! words at a space, inserted when the line is shorter than when opened and deleted otherwise,
//! and never a word that ends a sentence, so every line stays at its length, every document at
//! its sentences, and the sentences at their lengths in tokens. Edits that deleted up to 24
//! characters anywhere let sentences merge and cut words into fragments of more tokens:
//! replaying them, the documents' 898 sentences (p95 41 tokens, longest 64) became 433 after
//! 32,000 edits (p95 120, longest 174). The encoder's batches widened with them and ONNX
//! Runtime's CPU arena extends for a wider shape: the steps of the ten-minute soak of 2026-11-25
//! (RSS 159 → 190 MiB, 1.30 MiB/min, +9 MiB at about 9,500 edits and +4 at about 21,000; on
//! 2026-11-27, 18,520 edits: 169 → 180 MiB, 0.32 MiB per 1,000 edits, 0.80 MiB/min). With whole
//! words, 887 sentences after 32,000 edits (p95 39, longest 63).
//!
//! Set `SEGUE_SOAK_EDITS` to change the short form's length, `SEGUE_SOAK_CACHE` its cache cap,
//! `SEGUE_SOAK_TIER0=1` to run it without the models, `SEGUE_SOAK_SAMPLES=FILE` to keep the
//! samples, and `SEGUE_TEST_SERVER=WRAPPER` to run the server under a profiler.

mod common;

use common::*;
use segue::lsp::memory::Trimmer;
use serde_json::json;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The short form's bound on growth after the warm-up, MiB per 1,000 edits.
const SHORT_BOUND_MIB_PER_1000: f64 = 3.0;
/// Edits sent before the server is asked for diagnostics (a typist's burst).
const BURST: usize = 8;
/// The model stage is waited for, and memory sampled, after every `MODEL_EVERY`th burst.
const MODEL_EVERY: usize = 2;
/// How long the server is left idle before a sample.
const SETTLE: Duration = Duration::from_millis(50);
/// Every `SETTLED_EVERY`th sample is a settled one: taken once the server has been idle long
/// enough to hand its free pages back ([`Trimmer::IDLE`]).
const SETTLED_EVERY: usize = 4;
/// How long the server is left idle before a settled sample: past [`Trimmer::IDLE`].
const SETTLED: Duration = Trimmer::IDLE.saturating_add(Duration::from_millis(200));

/// A small deterministic generator (xorshift64*), so every run makes the same edits.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One open document as the client sees it.
struct Doc {
    uri: lsp::Uri,
    lines: Vec<String>,
    version: i32,
    /// The length the edits keep the document at (its length when opened), in bytes.
    target: usize,
    /// The lines the edits go to: its prose lines when opened.
    prose: Vec<usize>,
    /// The length of each line when opened, in bytes: the edits keep every line at it.
    widths: Vec<usize>,
}

/// What ends a sentence: the edits never delete a word with one.
const TERMINATORS: [char; 3] = ['.', '!', '?'];

impl Doc {
    /// A document as opened, with the text `text`.
    fn new(uri: lsp::Uri, text: &str) -> Doc {
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let prose = prose_lines(&lines);
        let widths = lines.iter().map(String::len).collect();
        Doc {
            uri,
            lines,
            version: 1,
            target: text.len(),
            prose,
            widths,
        }
    }

    fn text(&self) -> String {
        self.lines.join("\n")
    }

    /// The length of [`Doc::text`] in bytes.
    fn len(&self) -> usize {
        self.lines.iter().map(String::len).sum::<usize>() + self.lines.len().saturating_sub(1)
    }

    /// Sentence ends in the document.
    fn terminators(&self) -> usize {
        self.lines
            .iter()
            .map(|l| l.matches(TERMINATORS).count())
            .sum()
    }

    /// A random edit inside one prose line, made of whole words at a space (so never before the
    /// line's first word, and the line stays a paragraph): insert one to three words when the
    /// line is shorter than when opened, else delete the one to three words after the space,
    /// stopping before a word that ends a sentence. The change is applied to the client's copy
    /// and returned for sending. So the workload keeps a constant size however long the soak
    /// runs: every line stays at its length, the document at its sentences and the sentences
    /// at their lengths in tokens (were sentences allowed to merge, or words cut into fragments
    /// that take more tokens, they would grow longer all along, and so would the model's batches
    /// and the memory they take, rightly).
    fn random_edit(
        &mut self,
        rng: &mut Rng,
        words: &[&str],
    ) -> lsp::TextDocumentContentChangeEvent {
        let line = self.prose[rng.below(self.prose.len())];
        let chars: Vec<char> = self.lines[line].chars().collect();
        let col16 = |upto: usize| chars[..upto].iter().map(|c| c.len_utf16()).sum::<usize>() as u32;
        let pos = |c: usize| lsp::Position::new(line as u32, col16(c));
        let spaces: Vec<usize> = (0..chars.len()).filter(|&c| chars[c] == ' ').collect();
        let at = spaces
            .get(rng.below(spaces.len()))
            .copied()
            .unwrap_or(chars.len());
        let (range, text, kept): (lsp::Range, String, Vec<char>) =
            if self.lines[line].len() < self.widths[line] {
                let n = 1 + rng.below(3);
                let inserted: String = (0..n)
                    .map(|_| format!(" {}", words[rng.below(words.len())]))
                    .collect();
                let mut kept = chars[..at].to_vec();
                kept.extend(inserted.chars());
                kept.extend_from_slice(&chars[at..]);
                (lsp::Range::new(pos(at), pos(at)), inserted, kept)
            } else {
                // Each word goes with the space before it.
                let mut end = at;
                for _ in 0..1 + rng.below(3) {
                    let next = (end + 1..chars.len())
                        .find(|&c| chars[c] == ' ')
                        .unwrap_or(chars.len());
                    if chars[(end + 1).min(next)..next]
                        .iter()
                        .any(|c| TERMINATORS.contains(c))
                    {
                        break;
                    }
                    end = next;
                }
                let mut kept = chars[..at].to_vec();
                kept.extend_from_slice(&chars[end..]);
                (lsp::Range::new(pos(at), pos(end)), String::new(), kept)
            };
        self.lines[line] = kept.into_iter().collect();
        lsp::TextDocumentContentChangeEvent {
            range: Some(range),
            range_length: None,
            text,
        }
    }
}

/// Lines worth editing: long prose lines (no headings, code, tables or list items).
fn prose_lines(lines: &[String]) -> Vec<usize> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            l.len() > 60
                && !l.starts_with(['#', ' ', '|', '`', '-', '*'])
                && !l.chars().next().is_some_and(|c| c.is_ascii_digit())
        })
        .map(|(i, _)| i)
        .collect()
}

/// The three documents: overlapping halves of the 10,000-word bench document (about 5,000
/// words each), cut at blank lines.
fn documents() -> Vec<(String, String)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/bench-10k.md");
    let text = std::fs::read_to_string(path).expect("bench document");
    let lines: Vec<&str> = text.lines().collect();
    let mut words_before = Vec::with_capacity(lines.len() + 1);
    let mut total = 0;
    for l in &lines {
        words_before.push(total);
        total += l.split_whitespace().count();
    }
    // The first blank line at or after `words` words.
    let cut = |words: usize| {
        (0..lines.len())
            .find(|&i| words_before[i] >= words && lines[i].trim().is_empty())
            .unwrap_or(lines.len())
    };
    [
        (0, total / 2),
        (total / 4, 3 * total / 4),
        (total / 2, total),
    ]
    .iter()
    .enumerate()
    .map(|(i, &(a, b))| {
        let (a, b) = (if a == 0 { 0 } else { cut(a) }, cut(b));
        (format!("soak-{i}.md"), lines[a..b].join("\n"))
    })
    .collect()
}

/// The resident set of `pid` in MiB, from `/proc/<pid>/status`.
fn rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Least-squares slope of `y` over `x`.
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let (mx, my) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), &(x, y)| (a + x / n, b + y / n));
    let (num, den) = points.iter().fold((0.0, 0.0), |(a, b), &(x, y)| {
        (a + (x - mx) * (y - my), b + (x - mx) * (x - mx))
    });
    if den == 0.0 {
        0.0
    } else {
        num / den
    }
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(((v.len().saturating_sub(1)) as f64 * p).round() as usize)
        .copied()
        .unwrap_or(f64::NAN)
}

/// The p95 of each third of `v` (in the order measured), to show whether latency holds steady
/// as the session goes on.
fn p95_by_thirds(v: &[f64]) -> [f64; 3] {
    let n = v.len();
    [0, 1, 2].map(|k| percentile(&mut v[k * n / 3..(k + 1) * n / 3].to_vec(), 0.95))
}

/// What one soak measured.
struct Soak {
    edits: usize,
    minutes: f64,
    start_mib: f64,
    end_mib: f64,
    /// Slope after the warm-up, MiB per 1,000 edits.
    per_1000: f64,
    /// Slope after the warm-up, MiB per minute.
    per_minute: f64,
}

/// Runs the soak until `done(edits, elapsed)` says stop. `cache` caps the model caches.
fn soak(cache: Option<&str>, done: impl Fn(usize, Duration) -> bool) -> Soak {
    let tier1 = std::env::var("SEGUE_SOAK_TIER0").is_err() && models_installed();
    let mut env = vec![("RUST_LOG", "segue=info")];
    if tier1 {
        env.push(("SEGUE_MODELS_DIR", ""));
        // Every stage publishes (tier 0's diagnostics are not held back for the model stage's),
        // so that both stages are timed and the heavier path is soaked.
        env.push(("SEGUE_TIER0_PREVIEW_MS", "0"));
    }
    if let Some(n) = cache {
        env.push(("SEGUE_CACHE", n));
        // The scorers' text memos are bounded too; small enough to fill during the warm-up.
        env.push(("SEGUE_MEMO", "256"));
    }
    let mut c = Client::spawn_with_env(&env);
    c.initialize(push_caps(), None, Some(json!({"debounce": 0})));
    let mut docs: Vec<Doc> = documents()
        .into_iter()
        .map(|(name, text)| Doc::new(scratch_uri(&name), &text))
        .collect();
    for d in &docs {
        c.open(&d.uri, "markdown", 1, &d.text());
        c.diagnostics(&d.uri, 1);
    }
    if tier1 {
        // Wait until the models are loaded and the model stage has scored the documents.
        let deadline = Instant::now() + timeout().max(Duration::from_secs(120));
        for d in &docs {
            loop {
                let s = c
                    .request_raw(
                        "workspace/executeCommand",
                        json!({"command": "segue.showDocumentScore", "arguments": [{"uri": d.uri.as_str(), "silent": true}]}),
                    )
                    .expect("score");
                if s["tier"] == 1 {
                    break;
                }
                assert!(Instant::now() < deadline, "tier 1 never ran: {s}");
                c.drain_for(Duration::from_millis(200));
            }
        }
    }
    let words: Vec<String> = docs[0]
        .text()
        .split_whitespace()
        .filter(|w| w.chars().all(char::is_alphabetic) && w.len() > 2)
        .map(str::to_string)
        .collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let mut rng = Rng(0x005e_ed0f_5e9e);
    let pid = c.pid();
    let start_kib = docs.iter().map(Doc::len).sum::<usize>() as f64 / 1024.0;
    let start = Instant::now();
    let start_mib = rss_mib(pid);
    let mut samples: Vec<(usize, f64, f64)> = Vec::new();
    let mut settled: Vec<(usize, f64, f64)> = Vec::new();
    let (mut tier0_ms, mut model_ms) = (Vec::new(), Vec::new());
    let mut edits = 0;
    let mut burst = 0;
    while !done(edits, start.elapsed()) {
        let count = docs.len();
        let d = &mut docs[burst % count];
        for _ in 0..BURST {
            let change = d.random_edit(&mut rng, &words);
            d.version += 1;
            c.change(&d.uri, d.version, vec![change]);
        }
        edits += BURST;
        let (uri, version) = (d.uri.clone(), d.version);
        let sent = Instant::now();
        c.diagnostics(&uri, version);
        tier0_ms.push(sent.elapsed().as_secs_f64() * 1e3);
        if burst % MODEL_EVERY == 0 {
            if tier1 {
                c.diagnostics(&uri, version);
                model_ms.push(sent.elapsed().as_secs_f64() * 1e3);
            }
            // Sample when the server has finished with this version (and had a moment to give
            // freed memory back), so that every sample is taken in the same state.
            c.drain_for(SETTLE);
            samples.push((edits, start.elapsed().as_secs_f64() / 60.0, rss_mib(pid)));
            if (burst / MODEL_EVERY).is_multiple_of(SETTLED_EVERY) {
                c.drain_for(SETTLED);
                settled.push((edits, start.elapsed().as_secs_f64() / 60.0, rss_mib(pid)));
            }
        }
        c.inbox.clear();
        burst += 1;
    }
    // The server's copy still matches the client's: the edits were applied as sent.
    for d in &docs {
        assert_eq!(c.debug_text(&d.uri), (d.version, d.text()));
    }
    let warm = &settled[settled.len() / 2..];
    let per_edit: Vec<(f64, f64)> = warm.iter().map(|&(e, _, m)| (e as f64, m)).collect();
    let per_min: Vec<(f64, f64)> = warm.iter().map(|&(_, t, m)| (t, m)).collect();
    let result = Soak {
        edits,
        minutes: start.elapsed().as_secs_f64() / 60.0,
        start_mib,
        end_mib: settled.last().map_or(start_mib, |s| s.2),
        per_1000: slope(&per_edit) * 1000.0,
        per_minute: slope(&per_min),
    };
    let (tier0_thirds, model_thirds) = (p95_by_thirds(&tier0_ms), p95_by_thirds(&model_ms));
    let p = |v: &mut Vec<f64>, q| percentile(v, q);
    eprintln!(
        "soak ({}): {} edits in {:.1} min; documents {:.0} → {:.0} KiB; RSS {:.0} → {:.0} MiB (peak \
         {:.0}); slope after warm-up {:.2} MiB per 1,000 edits, {:.2} MiB/min; tier 0 edit → \
         diagnostics median {:.0} ms, p95 {:.0} ms (by thirds of the run {:.0} / {:.0} / {:.0}); \
         model stage median {:.0} ms, p95 {:.0} ms (by thirds {:.0} / {:.0} / {:.0})",
        if tier1 { "tier 1" } else { "tier 0" },
        result.edits,
        result.minutes,
        start_kib,
        docs.iter().map(Doc::len).sum::<usize>() as f64 / 1024.0,
        result.start_mib,
        result.end_mib,
        samples.iter().map(|s| s.2).fold(0.0, f64::max),
        result.per_1000,
        result.per_minute,
        p(&mut tier0_ms, 0.5),
        p(&mut tier0_ms, 0.95),
        tier0_thirds[0],
        tier0_thirds[1],
        tier0_thirds[2],
        p(&mut model_ms, 0.5),
        p(&mut model_ms, 0.95),
        model_thirds[0],
        model_thirds[1],
        model_thirds[2],
    );
    if let Ok(path) = std::env::var("SEGUE_SOAK_SAMPLES") {
        let rows: String = (samples.iter().map(|s| (s, "no")))
            .chain(settled.iter().map(|s| (s, "yes")))
            .map(|((e, t, m), kind)| format!("{e}\t{t:.3}\t{m:.1}\t{kind}\n"))
            .collect();
        let _ = std::fs::write(path, format!("edits\tminutes\trss_mib\tsettled\n{rows}"));
    }
    assert!(c.shutdown_and_exit().success());
    result
}

/// The embedding cache's cap: `SEGUE_SOAK_CACHE`, else 1,000 entries.
fn cache_cap() -> String {
    std::env::var("SEGUE_SOAK_CACHE").unwrap_or_else(|_| "1000".into())
}

/// The soak's workload has a constant size: however many edits it makes, every document stays
/// within a few hundred bytes of its length when opened, every line within a few words of its
/// own, and no sentence end is lost (so memory that grows is the server's).
#[test]
fn edits_keep_each_document_at_its_length() {
    let mut rng = Rng(0x005e_ed0f_5e9e);
    for (name, text) in documents() {
        let mut doc = Doc::new(scratch_uri(&name), &text);
        let words: Vec<&str> = text
            .split_whitespace()
            .filter(|w| w.chars().all(char::is_alphabetic) && w.len() > 2)
            .collect();
        let longest = words.iter().map(|w| w.len()).max().unwrap_or(0);
        let ends = doc.terminators();
        for _ in 0..10_000 {
            doc.random_edit(&mut rng, &words);
        }
        assert_eq!(doc.len(), doc.text().len());
        let drift = doc.len() as f64 - doc.target as f64;
        assert!(
            drift.abs() < 512.0,
            "{name}: {} bytes after 10,000 edits, {} when opened",
            doc.len(),
            doc.target
        );
        assert_eq!(
            doc.terminators(),
            ends,
            "{name}: a sentence end was deleted"
        );
        for (i, line) in doc.lines.iter().enumerate() {
            assert!(
                line.len() <= doc.widths[i] + 3 * (longest + 1),
                "{name}: line {i} grew from {} to {} bytes",
                doc.widths[i],
                line.len()
            );
        }
    }
}

#[test]
fn soak_memory_stays_flat() {
    let edits: usize = std::env::var("SEGUE_SOAK_EDITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let s = soak(Some(&cache_cap()), |n, _| n >= edits);
    assert!(
        s.per_1000 < SHORT_BOUND_MIB_PER_1000,
        "resident memory grew {:.2} MiB per 1,000 edits after the warm-up ({:.0} → {:.0} MiB)",
        s.per_1000,
        s.start_mib,
        s.end_mib
    );
}

#[test]
#[ignore = "10-minute soak; run with tests/soak"]
fn soak_long() {
    let minutes: f64 = std::env::var("SEGUE_SOAK_MINUTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10.0);
    let s = soak(Some(&cache_cap()), |_, t| t.as_secs_f64() >= minutes * 60.0);
    assert!(
        s.per_minute < 1.0,
        "resident memory grew {:.2} MiB/min after the warm-up ({:.0} → {:.0} MiB)",
        s.per_minute,
        s.start_mib,
        s.end_mib
    );
}
