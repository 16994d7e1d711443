"""Fits the weights of the combined tier-1 scorer (`tier1`, server/src/score/tier1.rs).

Input: discrimination comparisons (one JSON object per original vs degraded pair: scorer, level,
degradation, doc, copy, original, degraded) for the parts `embedding` and `tier0` (from
`segue eval --comparisons FILE`) and the ordering objective's terms, each on its own: the heads'
`successor`, `precedence`, `borda`, `opening` and `closing`, and the paragraph reader's
`cross_precedence`, `cross_next` and `cross_borda` (sentences of documents of at most 16
sentences; constant elsewhere), from the research test `server/tests/discrimination_terms.rs`,
which writes target/comb/terms.jsonl. For each level, a
logistic regression without intercept on the differences (original - degraded) of the parts'
order scores, standardised, with both signs, finds the weighted mean of the scores that best
tells originals from degraded copies. The weights are mapped back to the raw scores, clipped at 0,
normalised to sum 1 and written as JSON.

It prints the discrimination accuracy of each part and of the blend, in-sample and 2-fold (weights
fitted on the even-numbered documents and measured on the odd ones, and the other way round).

    segue eval --tier 1 --scorer embedding --scorer tier0 --data ../shared/data/dev.jsonl \
        --comparisons target/comb/dev.jsonl
    cargo test --release -p segue --test discrimination_terms -- --ignored --nocapture
    models/train/.venv/bin/python models/train/tier1/fit.py target/comb/dev.jsonl \
        target/comb/terms.jsonl --out models/tier1/tier1.json
"""
import argparse
import json

import numpy as np

PARTS = ["embedding", "tier0", "successor", "precedence", "borda", "opening", "closing",
         "cross_precedence", "cross_next", "cross_borda"]
DEGRADATIONS = ["R1", "R2", "R", "D1", "D2", "D5", "D10"]


def load(paths, parts):
    table = {}
    for path in paths:
        for line in open(path):
            r = json.loads(line)
            if r["scorer"] in parts:
                key = (r["level"], r["degradation"], r["doc"], r["copy"])
                table.setdefault(key, {})[r["scorer"]] = r["original"] - r["degraded"]
    return {k: v for k, v in table.items() if len(v) == len(parts)}


def fit(x, l2=1e-3, steps=2000, lr=0.5):
    """Logistic regression without intercept: every row of x is a positive, -x a negative."""
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30)))
        w -= lr * (-(x * (1 - p)[:, None]).mean(0) + l2 * w)
    return w


def raw_weights(d):
    """Weights on the raw score differences d (rows: comparisons), non-negative, summing to 1."""
    sd = d.std(0) + 1e-12
    w = np.maximum(fit(d / sd) / sd, 0.0)
    return w / w.sum()


def accuracy(z):
    return float(np.mean(np.where(np.abs(z) < 1e-12, 0.5, (z > 0).astype(float))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("comparisons", nargs="+", help="JSONL files from segue eval --comparisons")
    ap.add_argument("--out", help="write the weights here (JSON; only for the default parts)")
    ap.add_argument(
        "--parts",
        default=",".join(PARTS),
        help="comma-separated scorers to blend, to try other blends (default: %(default)s)",
    )
    ap.add_argument("--source", default="dev.jsonl (490 documents)", help="data description for the JSON")
    args = ap.parse_args()
    parts = args.parts.split(",")
    if args.out and parts != PARTS:
        ap.error("--out writes the shipped blend, whose parts are " + ",".join(PARTS))
    table = load(args.comparisons, parts)
    levels = {}
    for level in ["sentence", "paragraph"]:
        keys = sorted(k for k in table if k[0] == level)
        d = np.array([[table[k][p] for p in parts] for k in keys])
        docs = np.array([k[2] for k in keys])
        deg = np.array([k[1] for k in keys])
        w = raw_weights(d)
        z2 = np.zeros(len(keys))
        for fold in (0, 1):
            train = docs % 2 != fold
            z2[~train] = d[~train] @ raw_weights(d[train])
        print(f"\n{level}: {len(keys)} comparisons; weights " + ", ".join(f"{p} {v:.4f}" for p, v in zip(parts, w)))
        print(f"{'scorer':<22}" + "".join(f"{x:>7}" for x in DEGRADATIONS))
        rows = [(p, d[:, i]) for i, p in enumerate(parts)] + [("blend", d @ w), ("blend, 2-fold", z2)]
        for name, z in rows:
            print(f"{name:<22}" + "".join(f"{100 * accuracy(z[deg == x]):7.2f}" for x in DEGRADATIONS))
        levels[level] = {p: round(float(v), 6) for p, v in zip(parts, w)}
    if args.out:
        out = {
            "source": f"{args.source}: logistic fit on original-vs-degraded order scores (R1, R2, R, D1, D2, D5, D10; 5 copies, seed 13), models/train/tier1/fit.py",
            "levels": levels,
        }
        with open(args.out, "w") as f:
            json.dump(out, f, indent=2)
            f.write("\n")
        print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
