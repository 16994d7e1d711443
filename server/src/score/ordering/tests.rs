//! Tests of the ordering model: metadata, cues, objective and loading.

use super::*;
use crate::model::ModelOptions;
use crate::score::{Pairwise, Unit};

fn spec() -> OrderingMeta {
    let text = r#"{"format": 1, "embedding": {"dim": 2},
      "cues": {"version": 1, "features": [
        {"name": "pron", "kind": "starts_with", "phrases": ["it", "for example"]},
        {"name": "also", "kind": "within", "skip": 1, "window": 3, "words": ["also"]},
        {"name": "colon", "kind": "ends_with", "chars": [":"]},
        {"name": "quote", "kind": "begins_with", "chars": ["\u201c"]},
        {"name": "lw", "kind": "log_words", "scale": 0.25},
        {"name": "ls", "kind": "log_sents", "scale": 0.5}]},
      "pairs": {"features": ["head_given", "jaccard", "boundary", "introduced"], "head": 8,
        "min_len": 3, "indefinite": ["a", "an"], "definite": ["the"], "stop_words": ["the", "is"]},
      "levels": {}}"#;
    OrderingMeta::parse(text).expect("valid")
}

#[test]
fn tokens_follow_the_python_rules() {
    assert_eq!(
        tokens("We’ll see: “It’s fine,” he said -- e.g. (this) 'twas OK."),
        vec!["we", "see", "it", "fine", "he", "said", "e.g", "this", "twas", "ok"]
    );
    assert!(tokens(" \t ").is_empty());
}

#[test]
fn unit_cues_evaluate_the_spec() {
    let m = spec();
    let c = unit_cues(&m.cues, &["For example, it also works:"]);
    assert_eq!(&c[..4], &[1.0, 0.0, 1.0, 0.0]);
    let c = unit_cues(&m.cues, &["It also works.", "“Quoted” end:"]);
    assert_eq!(&c[..4], &[1.0, 1.0, 1.0, 0.0]);
    assert!((c[4] - (0.25 * 5f64.ln_1p()) as f32).abs() < 1e-6);
    assert!((c[5] - (0.5 * 2f64.ln_1p()) as f32).abs() < 1e-6);
    assert_eq!(unit_cues(&m.cues, &[]), vec![0.0; 6]);
}

#[test]
fn pair_cues_are_directed() {
    let m = spec();
    let units: Vec<Unit<'_>> = vec![
        vec!["A closure is a function."],
        vec!["The closure captures values.", "It is anonymous."],
    ];
    let q = pair_cues(&m.pairs, &units);
    // 0 -> 1: b's head {closure, capture, value} has 1 of 3 in a; "a closure" ... "the closure".
    assert!((q[4] - 1.0 / 3.0).abs() < 1e-6);
    assert_eq!(q[7], 1.0);
    // 1 -> 0: a's head {closure, function}: closure is in b.
    assert!((q[8] - 0.5).abs() < 1e-6);
    assert_eq!(q[11], 0.0);
    assert!(q[..4].iter().all(|&x| x == 0.0));
}

/// The pair cues as the Python trainer states them, over sets of strings: what
/// [`pair_cues`] computes with sorted token ids.
fn pair_cues_by_sets(spec: &PairSpec, units: &[Unit<'_>]) -> Vec<f32> {
    use std::collections::HashSet;
    let content = |toks: &[String]| -> Vec<String> {
        toks.iter()
            .filter(|t| {
                t.chars().count() >= spec.min_len && !spec.stop_words.iter().any(|s| s == *t)
            })
            .map(|t| match t.strip_suffix('s') {
                Some(stem) if t.chars().count() > 3 => stem.to_string(),
                _ => t.clone(),
            })
            .collect()
    };
    let after = |toks: &[String], dets: &[String]| -> HashSet<String> {
        let mut out = HashSet::new();
        for (k, t) in toks.iter().enumerate() {
            if dets.iter().any(|d| d == t) {
                out.extend(content(&toks[k + 1..(k + 3).min(toks.len())]));
            }
        }
        out
    };
    struct P {
        all: HashSet<String>,
        head: Vec<String>,
        first: HashSet<String>,
        last: HashSet<String>,
        indef: HashSet<String>,
        def: HashSet<String>,
    }
    let profiles: Vec<P> = units
        .iter()
        .map(|u| {
            let toks: Vec<Vec<String>> = if u.is_empty() {
                vec![Vec::new()]
            } else {
                u.iter().map(|s| tokens(s)).collect()
            };
            let every: Vec<String> = toks.iter().flatten().cloned().collect();
            let first = content(&toks[0]);
            P {
                all: content(&every).into_iter().collect(),
                head: first.iter().take(spec.head).cloned().collect(),
                first: first.into_iter().collect(),
                last: content(&toks[toks.len() - 1]).into_iter().collect(),
                indef: after(&every, &spec.indefinite),
                def: after(&every, &spec.definite),
            }
        })
        .collect();
    let n = units.len();
    let mut out = vec![0f32; n * n * 4];
    for (i, a) in profiles.iter().enumerate() {
        for (j, b) in profiles.iter().enumerate() {
            if i == j {
                continue;
            }
            let head = if b.head.is_empty() {
                0.0
            } else {
                b.head.iter().filter(|t| a.all.contains(*t)).count() as f64 / b.head.len() as f64
            };
            let union = a.all.union(&b.all).count();
            let jaccard = if union == 0 {
                0.0
            } else {
                a.all.intersection(&b.all).count() as f64 / union as f64
            };
            let m = a.last.len().min(b.first.len());
            let boundary = if m == 0 {
                0.0
            } else {
                a.last.intersection(&b.first).count() as f64 / m as f64
            };
            let introduced = a.indef.intersection(&b.def).next().is_some();
            out[(i * n + j) * 4..(i * n + j + 1) * 4].copy_from_slice(&[
                head as f32,
                jaccard as f32,
                boundary as f32,
                if introduced { 1.0 } else { 0.0 },
            ]);
        }
    }
    out
}

#[test]
fn pair_cues_count_as_sets_of_strings_do() {
    let m = spec();
    let units: Vec<Unit<'_>> = vec![
        vec!["A closure is a function."],
        vec!["The closure captures values.", "It is anonymous."],
        vec![],
        vec!["Closures closures closures: the values, the values and a value."],
        vec![
            "An index maps keys.",
            "The keys are hashed; a hash is kept.",
            "The hash.",
        ],
        vec!["It’s the parser’s job: a parser reads the tokens, the tokens go."],
        vec!["Is the is."],
        vec![
            "Tokens. Tokens! Keys? Values;",
            "Function of closures and the index.",
        ],
    ];
    let got = pair_cues(&m.pairs, &units);
    let want = pair_cues_by_sets(&m.pairs, &units);
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.to_bits(), w.to_bits(), "pair {}, cue {}", k / 4, k % 4);
    }
    assert!(got.iter().any(|&x| x > 0.0 && x < 1.0));
}

fn outputs(n: usize, seed: u64) -> HeadOutputs {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let g: Vec<f32> = (0..n * n).map(|_| rng.gen_range(-2.0..2.0)).collect();
    let precedence = (0..n * n).map(|k| g[k] - g[(k % n) * n + k / n]).collect();
    HeadOutputs {
        n,
        precedence,
        successor: (0..n * n).map(|_| rng.gen_range(-3.0..3.0)).collect(),
        opening: (0..n).map(|_| rng.gen_range(-3.0..3.0)).collect(),
        closing: (0..n).map(|_| rng.gen_range(-3.0..3.0)).collect(),
    }
}

#[test]
fn the_chain_table_ranks_orders_as_the_objective() {
    use crate::score::order_score;
    let n = 6;
    let vectors: Vec<Vec<f32>> = (0..n)
        .map(|i| unit_vector(&[vec![1.0, i as f32]], 2))
        .collect();
    let s = OrderScores::new(&outputs(n, 3), &vectors);
    let w = OrderWeights {
        successor: 0.5,
        coherence: 1.0,
        precedence: 0.5,
        borda: 0.1,
        opening: 1.0,
        closing: 0.5,
        ..OrderWeights::default()
    };
    let t = s.chain(&w);
    let direct = |o: &[usize]| {
        let phi = s.potential(&w);
        let adj: f64 = o
            .windows(2)
            .map(|p| {
                let k = p[0] * n + p[1];
                w.successor * s.successor[k]
                    + w.coherence * s.coherence[k]
                    + w.precedence * s.precedence[k]
            })
            .sum();
        adj + phi[o[0]] - phi[o[n - 1]]
    };
    let orders = [
        vec![0, 1, 2, 3, 4, 5],
        vec![5, 3, 1, 0, 2, 4],
        vec![2, 0, 4, 1, 5, 3],
    ];
    for o in &orders {
        assert!((t.objective(o) - direct(o)).abs() < 1e-9);
    }
    // The [0, 1] transitions are an affine image of the objective: same ranking.
    let mut by_obj: Vec<usize> = (0..3).collect();
    by_obj.sort_by(|&a, &b| t.objective(&orders[a]).total_cmp(&t.objective(&orders[b])));
    let mut by_score: Vec<usize> = (0..3).collect();
    by_score.sort_by(|&a, &b| order_score(&t, &orders[a]).total_cmp(&order_score(&t, &orders[b])));
    assert_eq!(by_obj, by_score);
    for i in 0..n {
        for j in 0..n {
            assert!((0.0..=1.0).contains(&t.transition(i, j)));
        }
    }
    // Over every order, the best by the table's transitions (what the decoders maximise) is the
    // best by the objective.
    let mut all = Vec::new();
    permutations(&mut (0..n).collect::<Vec<_>>(), 0, &mut all);
    assert_eq!(all.len(), 720);
    let by = |f: &dyn Fn(&[usize]) -> f64| {
        all.iter()
            .max_by(|a, b| f(a).total_cmp(&f(b)))
            .cloned()
            .expect("orders")
    };
    let best_by_objective = by(&|o: &[usize]| t.objective(o));
    let best_by_score = by(&|o: &[usize]| order_score(&t, o));
    assert!(t.objective(&best_by_score) >= t.objective(&best_by_objective) - 1e-9);
}

fn permutations(v: &mut Vec<usize>, k: usize, out: &mut Vec<Vec<usize>>) {
    if k == v.len() {
        out.push(v.clone());
        return;
    }
    for i in k..v.len() {
        v.swap(k, i);
        permutations(v, k + 1, out);
        v.swap(k, i);
    }
}

#[test]
fn reader_terms_enter_the_objective_as_configured() {
    let out = outputs(4, 3);
    let vectors = vec![vec![1.0, 0.0]; 4];
    let plain = OrderScores::new(&out, &vectors);
    // Logits that favour the order 3, 2, 1, 0 strongly.
    let x: Vec<f32> = (0..16)
        .map(|k| {
            let (i, j) = (k / 4, k % 4);
            if i == j {
                0.0
            } else if i > j {
                4.0
            } else {
                -4.0
            }
        })
        .collect();
    let scored = plain.clone().with_reader(&x);
    assert_eq!(
        plain.clone().with_reader(&x[..15]),
        plain,
        "wrong sizes are ignored"
    );
    assert!((scored.reader[3 * 4].exp() - 1.0 / (1.0 + (-4.0f64).exp())).abs() < 1e-12);
    // Without reader weights nothing changes; with them the reversed order wins.
    let w = OrderWeights {
        successor: 0.1,
        ..OrderWeights::default()
    };
    assert_eq!(
        scored.chain(&w).objective(&[0, 1, 2, 3]),
        plain.chain(&w).objective(&[0, 1, 2, 3])
    );
    let adjacent = OrderWeights {
        reader_precedence: 1.0,
        ..w
    };
    let best = best_order(&scored.chain(&adjacent));
    assert_eq!(best, vec![3, 2, 1, 0]);
    // The Borda potential only decides the ends.
    let borda = OrderWeights {
        reader_borda: 1.0,
        ..w
    };
    let best = best_order(&scored.chain(&borda));
    assert_eq!((best[0], best[3]), (3, 0), "{best:?}");
    // Reasons quote the reader's precedence.
    let t = scored.chain(&w);
    let note = t.reason(0, 1).note.unwrap_or_default();
    assert!(note.contains("expects it to come before"), "{note}");
}

#[test]
fn the_reader_successor_enters_the_objective_as_configured() {
    let n = 4;
    let out = outputs(n, 3);
    let vectors = vec![vec![1.0, 0.0]; n];
    let plain = OrderScores::new(&out, &vectors);
    // Successor logits that say 2 → 0 → 3 → 1.
    let mut y = vec![-3.0f32; n * n];
    for (i, j) in [(2, 0), (0, 3), (3, 1)] {
        y[i * n + j] = 5.0;
    }
    let scored = plain.clone().with_reader_successor(&y);
    assert_eq!(
        plain.clone().with_reader_successor(&y[..15]),
        plain,
        "wrong sizes are ignored"
    );
    for i in 0..n {
        let total: f64 = (0..n)
            .filter(|&j| j != i)
            .map(|j| scored.reader_next[i * n + j].exp())
            .sum();
        assert!((total - 1.0).abs() < 1e-9, "row {i} sums to {total}");
    }
    let w = OrderWeights {
        successor: 0.1,
        ..OrderWeights::default()
    };
    assert_eq!(
        scored.chain(&w).objective(&[0, 1, 2, 3]),
        plain.chain(&w).objective(&[0, 1, 2, 3]),
        "no weight, no effect"
    );
    let next = OrderWeights {
        reader_next: 1.0,
        ..w
    };
    let best = best_order(&scored.chain(&next));
    assert_eq!(best, vec![2, 0, 3, 1]);
}

#[test]
fn log_probabilities_are_normalised() {
    let n = 5;
    let vectors = vec![vec![1.0f32, 0.0]; n];
    let s = OrderScores::new(&outputs(n, 8), &vectors);
    let total: f64 = s.opening.iter().map(|x| x.exp()).sum();
    assert!((total - 1.0).abs() < 1e-9);
    for i in 0..n {
        let row: f64 = (0..n)
            .filter(|&j| j != i)
            .map(|j| s.successor[i * n + j].exp())
            .sum();
        assert!((row - 1.0).abs() < 1e-9);
        for j in 0..n {
            if i != j {
                let p = s.precedence[i * n + j].exp() + s.precedence[j * n + i].exp();
                assert!((p - 1.0).abs() < 1e-5);
            }
        }
    }
}

#[test]
fn metadata_errors_are_reported() {
    assert!(OrderingMeta::parse("{").is_err());
    let bad = r#"{"format": 9, "embedding": {"dim": 2}, "cues": {"version": 1, "features": []},
      "pairs": {"features": [], "head": 8, "min_len": 3, "indefinite": [], "definite": [], "stop_words": []}, "levels": {}}"#;
    assert!(OrderingMeta::parse(bad).unwrap_err().contains("format 9"));
}

#[test]
fn a_missing_folder_is_not_installed() {
    let dir = std::env::temp_dir().join("segue-no-such-ordering-dir");
    let err = OrderingModel::load_from(&dir, &dir, &ModelOptions::default()).unwrap_err();
    assert!(matches!(err, OrderingError::NotInstalled { .. }), "{err}");
    assert!(err.to_string().contains("models/ordering"));
}

/// The order with the highest objective, by trying every one (small sets only).
fn best_order(t: &ChainTable) -> Vec<usize> {
    let mut all = Vec::new();
    permutations(&mut (0..t.len()).collect::<Vec<_>>(), 0, &mut all);
    all.into_iter()
        .max_by(|a, b| t.objective(a).total_cmp(&t.objective(b)))
        .expect("a set")
}
