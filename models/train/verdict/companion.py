"""Measures companion verdicts (server/src/score/verdict.rs, `Companion`) on verdict rows: for each
weight, the findings per 1,000 words on documents as published and the share of planted units
caught, per sensitivity, when the `embedding` verdict's margin over its threshold plus `weight`
times the `tier0` verdict's margin must reach zero (weight 0: the `embedding` verdict alone), and
with a companion, the `embedding` intrusion probability must reach the encoder gate.

Both tiers' rows must come from the same documents, copies and seed, so that planted units line up:

    segue eval --task prose --tier 0 --data target/prose/dev --copies 2 \\
        --verdict-rows-out target/verdict/tier0-dev.jsonl
    segue eval --task prose --tier 1 --data target/prose/dev --copies 2 \\
        --verdict-rows-out target/verdict/tier1-dev.jsonl
    python -m models.train.verdict.companion target/verdict dev            # the weights, gate 0.2
    python -m models.train.verdict.companion target/verdict dev --gates    # the gates, committed weight

The rate here counts every unit that passes (the product reports one unit per run of consecutive
passing units), so it reads a little above `segue eval --task prose`'s. Needs numpy.
"""
import json
import sys
from pathlib import Path

import numpy as np

WEIGHTS = [0.0, 0.5, 1.0, 2.0]
# The encoder gate: with a companion weighed in, a unit whose `embedding` intrusion probability is
# under GATE is not flagged (`PLACED_BY_MEANING` in server/src/score/findings.rs); GATES are the
# values `--gates` compares at the committed weight.
GATE = 0.2
GATES = [0.0, 0.05, 0.12, 0.2, 0.3]
SENSITIVITIES = ["low", "medium", "high"]
LEVELS = ["sentence", "paragraph"]


def load(path):
    rows = {}
    for line in open(path):
        r = json.loads(line)["rows"]
        rows[(r["id"], r["level"], r["copy"])] = r
    return rows


def logits(r, m):
    X = np.array(r["features"])
    z = ((X - np.array(m["mean"])) / np.array(m["scale"])) @ np.array(m["weights"]) + m["bias"]
    z = z - m["length_weight"] * np.clip(m["reference"] - X[:, -1], 0, m["length_cap"])
    return z - m["link_weight"] * np.array(r["linked"], dtype=float)


def placed(r):
    """Per row, the `embedding` intrusion probability (the verdict's `intrusion` feature is its
    logit, `has_intrusion` says whether there is one), or 1 where there is none."""
    X = np.array(r["features"])
    return np.where(X[:, 3] > 0, 1 / (1 + np.exp(-X[:, 2])), 1.0)


def main():
    folder, part = Path(sys.argv[1]), sys.argv[2]
    gates = "--gates" in sys.argv[3:]
    file = json.loads(Path("models/verdict/verdict.json").read_text())
    verdict = file["scorers"]
    committed = file["companions"]["embedding"]["weight"]
    a, b = load(folder / f"tier0-{part}.jsonl"), load(folder / f"tier1-{part}.jsonl")
    keys = [k for k in b if k in a and a[k]["labels"] == b[k]["labels"]]
    words = sum(a[k]["words"] for k in keys if k[2] == 0 and k[1] == "sentence")
    print(f"{part}: {len(keys)} aligned row groups, {words} words as published")
    runs = [(committed, g) for g in GATES] if gates else [(w, GATE) for w in WEIGHTS]
    for sens in SENSITIVITIES:
        for weight, gate in runs:
            cells, alarms = [], 0
            for level in LEVELS:
                m0, m1 = verdict["tier0"][level], verdict["embedding"][level]
                t0, t1 = m0["thresholds"][sens], m1["thresholds"][sens]
                fa = caught = planted = 0
                for k in keys:
                    if k[1] != level:
                        continue
                    margin = logits(b[k], m1) - t1 + weight * (logits(a[k], m0) - t0)
                    fire = (margin >= 0) & np.array(b[k]["eligible"])
                    if weight > 0:
                        fire &= placed(b[k]) >= gate
                    labels = np.array(b[k]["labels"])
                    if k[2] == 0:
                        fa += int(fire.sum())
                    else:
                        caught += int(fire[labels == 1].any())
                        planted += 1
                alarms += fa
                cells.append(f"{level} {100 * caught / max(planted, 1):5.1f} % caught")
            print(f"  {sens:<6} weight {weight:3.1f} gate {gate:4.2f}: {1000 * alarms / words:.3f} per 1,000 words | "
                  + " | ".join(cells))


if __name__ == "__main__":
    main()
