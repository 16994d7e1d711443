#!/usr/bin/env python3
"""Generate tests/fixtures/wlcs_cases.json: py-rouge's ROUGE-W scores for unit-id orders.

The fixture is read by server/tests/wlcs_parity.rs, which checks that
`segue::order::metrics::{rouge_w, wlcs_l}` reproduce py-rouge exactly (within 1e-6).
The Rust test only reads the JSON; Python is needed only to regenerate it:

    python3 -m venv /tmp/metrics-venv
    /tmp/metrics-venv/bin/pip install -r tests/data/requirements-metrics.txt
    /tmp/metrics-venv/bin/python tests/data/wlcs_reference.py

Each order (a list of unit ids) is rendered as one line of space-separated decimal ids, so every
unit id is one token and the whole order is one "sentence" for py-rouge. Hypothesis = predicted
order, reference = gold order.

py-rouge settings: every constructor default (alpha=0.5, stemming=True, limit_length=True,
length_limit=665, length_limit_type='bytes', ensure_compatibility=True, apply_avg=True) except
metrics=['rouge-w'] and weight_factor, which is recorded for both
  * 1.2 -- the official ROUGE-W weight (py-rouge docstring: "Official rouge score defines it at
    1.2"); this is what seed 000 reports as WLCS-l (F score), and
  * 1.0 -- py-rouge's default, with which ROUGE-W degenerates to ROUGE-L (plain LCS).
Orders here are short (< 665 bytes), so py-rouge's default truncation never applies.

One deviation, which does not change any token: py-rouge tokenizes with nltk.word_tokenize, whose
default first splits sentences with the Punkt model (an nltk_data download that is not available
offline). We call nltk.word_tokenize(..., preserve_line=True), which skips that sentence split.
After py-rouge's preprocessing a line holds only [a-z0-9 ] characters, so Punkt could never split
it, and the tokens are exactly the space-separated ids either way.
"""

import argparse
import json
import random
import sys
from importlib import metadata
from pathlib import Path

import nltk
from rouge import Rouge

SEED = 20240517
N_RANDOM = 40
WEIGHTS = {"w1_2": 1.2, "w1_0": 1.0}


def _tokenize_no_punkt(text, language="english"):
    return nltk.word_tokenize(text, language, preserve_line=True)


Rouge.tokenize_text = staticmethod(_tokenize_no_punkt)

EVALUATORS = {key: Rouge(metrics=["rouge-w"], weight_factor=w) for key, w in WEIGHTS.items()}


def render(order):
    return " ".join(str(u) for u in order)


def score(pred, gold):
    out = {}
    for key, evaluator in EVALUATORS.items():
        s = evaluator.get_scores(render(pred), render(gold))["rouge-w"]
        out[key] = {"p": s["p"], "r": s["r"], "f": s["f"]}
    return out


def cases():
    rng = random.Random(SEED)
    out = []

    def add(name, pred, gold):
        out.append({"name": name, "pred": list(pred), "gold": list(gold), **score(pred, gold)})

    # Edge cases.
    add("single", [0], [0])
    for n in (2, 5, 12, 20):
        gold = list(range(n))
        add(f"identical_{n}", gold, gold)
        add(f"reversed_{n}", gold[::-1], gold)
    for n, k in ((2, 0), (5, 2), (9, 0), (9, 7), (20, 10)):
        gold = list(range(n))
        pred = gold[:]
        pred[k], pred[k + 1] = pred[k + 1], pred[k]
        add(f"adjacent_swap_{n}_at_{k}", pred, gold)
    add("far_swap_10", [9, 1, 2, 3, 4, 5, 6, 7, 8, 0], list(range(10)))
    add("rotation_8", [3, 4, 5, 6, 7, 0, 1, 2], list(range(8)))
    add("two_blocks_swapped_10", [5, 6, 7, 8, 9, 0, 1, 2, 3, 4], list(range(10)))
    add("interleaved_8", [0, 4, 1, 5, 2, 6, 3, 7], list(range(8)))
    add("non_contiguous_ids", [42, 7, 1003, 15, 300], [7, 15, 42, 300, 1003])
    # Not permutations: the Rust port follows py-rouge on any token sequences.
    add("pred_shorter", [2, 0], [0, 1, 2])
    add("gold_shorter", [0, 3, 1, 2], [0, 1])
    add("disjoint", [5, 6, 7], [0, 1, 2])
    add("repeated_ids", [1, 1, 2], [1, 2, 1, 3])
    add("empty_pred", [], [0, 1])
    add("both_empty", [], [])

    # Random permutations of lengths 2..=20 with gold = 0..n, plus a few with shuffled gold ids.
    for i in range(N_RANDOM):
        n = rng.randint(2, 20)
        gold = list(range(n))
        if i % 4 == 3:
            gold = rng.sample(range(100), n)
        pred = gold[:]
        rng.shuffle(pred)
        add(f"random_{i:02}_n{n}", pred, gold)
    return out


def main():
    default_out = Path(__file__).resolve().parents[1] / "fixtures" / "wlcs_cases.json"
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=default_out)
    args = parser.parse_args()

    data = {
        "generator": "tests/data/wlcs_reference.py",
        "py_rouge_version": metadata.version("py-rouge"),
        "nltk_version": metadata.version("nltk"),
        "seed": SEED,
        "settings": {
            "metric": "rouge-w",
            "alpha": 0.5,
            "weights": WEIGHTS,
            "note": "all other Rouge() arguments at their defaults; one line of space-separated ids per order",
        },
        "cases": cases(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # One case per line keeps the fixture small and its diffs readable.
    all_cases = data.pop("cases")
    cases_json = ",\n".join("  " + json.dumps(c) for c in all_cases)
    head = json.dumps(data, indent=1)[:-2]
    with open(args.out, "w", encoding="utf-8") as fp:
        fp.write(f'{head},\n "cases": [\n{cases_json}\n ]\n}}\n')
    print(f"wrote {len(all_cases)} cases to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
