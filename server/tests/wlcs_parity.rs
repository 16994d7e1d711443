//! Parity of `segue::order::metrics::{rouge_w, wlcs_l}` with py-rouge 1.1.
//!
//! `tests/fixtures/wlcs_cases.json` holds py-rouge's ROUGE-W scores for unit-id orders, generated
//! by `tests/data/wlcs_reference.py` (see there for the settings). This test only reads the JSON;
//! Python is not needed to run it.

use std::path::PathBuf;

use segue::order::metrics::{rouge_w, wlcs_l, RougeW, WLCS_WEIGHT};
use serde::Deserialize;

const TOLERANCE: f64 = 1e-6;

#[derive(Debug, Deserialize)]
struct Fixture {
    settings: Settings,
    cases: Vec<Case>,
}

#[derive(Debug, Deserialize)]
struct Settings {
    alpha: f64,
    weights: Weights,
}

#[derive(Debug, Deserialize)]
struct Weights {
    w1_2: f64,
    w1_0: f64,
}

#[derive(Debug, Deserialize)]
struct Case {
    name: String,
    pred: Vec<usize>,
    gold: Vec<usize>,
    /// py-rouge with `weight_factor=1.2` (WLCS-l).
    w1_2: Prf,
    /// py-rouge with its default `weight_factor=1.0` (ROUGE-L).
    w1_0: Prf,
}

#[derive(Debug, Deserialize)]
struct Prf {
    p: f64,
    r: f64,
    f: f64,
}

fn fixture() -> Fixture {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/wlcs_cases.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

fn check(name: &str, label: &str, ours: RougeW, theirs: &Prf, failures: &mut Vec<String>) {
    for (stat, a, b) in [
        ("p", ours.p, theirs.p),
        ("r", ours.r, theirs.r),
        ("f", ours.f, theirs.f),
    ] {
        if (a - b).abs() > TOLERANCE {
            failures.push(format!("{name} {label} {stat}: ours {a}, py-rouge {b}"));
        }
    }
}

#[test]
fn fixture_settings_match_our_constants() {
    let fx = fixture();
    assert_eq!(fx.settings.weights.w1_2, WLCS_WEIGHT);
    assert_eq!(fx.settings.weights.w1_0, 1.0);
    assert_eq!(fx.settings.alpha, segue::order::metrics::ROUGE_ALPHA);
}

#[test]
fn wlcs_l_matches_py_rouge() {
    let fx = fixture();
    assert!(fx.cases.len() >= 20, "only {} cases", fx.cases.len());
    let mut failures = Vec::new();
    for case in &fx.cases {
        let ours = wlcs_l(&case.pred, &case.gold);
        if (ours - case.w1_2.f).abs() > TOLERANCE {
            failures.push(format!(
                "{}: wlcs_l ours {ours}, py-rouge {}",
                case.name, case.w1_2.f
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn rouge_w_precision_recall_f_match_py_rouge() {
    let fx = fixture();
    let mut failures = Vec::new();
    for case in &fx.cases {
        let w12 = rouge_w(&case.pred, &case.gold, fx.settings.weights.w1_2);
        check(&case.name, "w=1.2", w12, &case.w1_2, &mut failures);
        let w10 = rouge_w(&case.pred, &case.gold, fx.settings.weights.w1_0);
        check(&case.name, "w=1.0", w10, &case.w1_0, &mut failures);
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn fixture_covers_required_cases() {
    let fx = fixture();
    let random = fx
        .cases
        .iter()
        .filter(|c| c.name.starts_with("random_"))
        .count();
    assert!(random >= 30, "only {random} random permutations");
    for prefix in ["identical_", "reversed_", "adjacent_swap_"] {
        assert!(
            fx.cases.iter().any(|c| c.name.starts_with(prefix)),
            "no {prefix} case"
        );
    }
    for case in fx.cases.iter().filter(|c| c.name.starts_with("random_")) {
        assert!(
            (2..=20).contains(&case.gold.len()),
            "{}: length {}",
            case.name,
            case.gold.len()
        );
    }
}
