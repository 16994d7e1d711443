//! The property-fuzzing driver shared by the fuzz tests (`text::fuzz`, `lsp::frame::fuzz`).
//!
//! A property runs [`DEFAULT_CASES`] generated cases under `cargo test`, from a fixed seed so the
//! run is reproducible. The long form is set by environment variables (see `tests/fuzz/run`):
//!
//! - `SEGUE_FUZZ_CASES=N`: N cases per batch (and per property when no time is given);
//! - `SEGUE_FUZZ_SECONDS=S`: keep running batches, each from a fresh random seed, until S seconds
//!   have passed for the property.
//!
//! Each property prints its case count to stderr (`--nocapture` shows it). A failure is shrunk
//! and saved under `proptest-regressions/`, and replayed first by every later run.

use proptest::strategy::Strategy;
use proptest::test_runner::{
    Config, FileFailurePersistence, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner,
};
use std::time::{Duration, Instant};

/// Cases per property in a plain `cargo test` run.
pub(crate) const DEFAULT_CASES: u32 = 256;

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok()?.trim().parse().ok()
}

/// A 32-byte ChaCha seed from a property's name and a batch number.
fn seed(name: &str, batch: u64, random: bool) -> [u8; 32] {
    let mut seed = [0u8; 32];
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    let noise = if random {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    } else {
        0
    };
    for (i, chunk) in seed.chunks_mut(8).enumerate() {
        let word = h
            .wrapping_add(batch.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .wrapping_add(noise)
            .rotate_left(i as u32 * 16);
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    seed
}

/// Runs `test` on cases drawn from `strategy`; panics with the shrunk counterexample on failure.
/// `source` is the calling file (`file!()`), next to which failures are persisted.
pub(crate) fn fuzz<S>(
    name: &str,
    source: &'static str,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) where
    S: Strategy,
    S::Value: std::fmt::Debug,
{
    let batch_cases = env_number("SEGUE_FUZZ_CASES").map_or(DEFAULT_CASES, |n| n.max(1) as u32);
    let budget = env_number("SEGUE_FUZZ_SECONDS").map(Duration::from_secs);
    let started = Instant::now();
    let mut cases: u64 = 0;
    let mut batch = 0;
    loop {
        let config = Config {
            cases: batch_cases,
            failure_persistence: Some(Box::new(FileFailurePersistence::SourceParallel(
                "proptest-regressions",
            ))),
            source_file: Some(source),
            max_shrink_iters: 10_000,
            ..Config::default()
        };
        let rng = TestRng::from_seed(
            RngAlgorithm::ChaCha,
            &seed(name, batch, budget.is_some() || batch > 0),
        );
        let mut runner = TestRunner::new_with_rng(config, rng);
        match runner.run(&strategy, &test) {
            Ok(()) => {}
            Err(TestError::Fail(why, value)) => {
                panic!("fuzz {name}: {why}\nminimal failing input: {value:#?}")
            }
            Err(TestError::Abort(why)) => panic!("fuzz {name}: aborted: {why}"),
        }
        cases += u64::from(batch_cases);
        batch += 1;
        if budget.is_none_or(|b| started.elapsed() >= b) {
            break;
        }
    }
    eprintln!(
        "fuzz {name}: {cases} cases in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
