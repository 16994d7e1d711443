#!/usr/bin/env python3
"""Dev discrimination (original vs degraded order) for the fine-tuned-encoder BBScore runs of ft.py
next to the frozen-encoder BBScore (target/bbscore/head.npz on the cached MiniLM vectors) and the
embedding cosine, all in one pass over the same dev documents and the same degraded orders
(eval.py's protocol: R1, R2, R, D1, D2, D5, D10, 5 copies, rng [seed, doc, degradation, level],
ties count half; higher score = judged more coherent, B enters as -B).

Scorers: embedding (adjacent cosine of the frozen vectors, clamped at 0), bbscore / bbscore-path
(frozen head), and per run R: R:bbscore, R:bbscore-path, R:cosine (adjacent cosine of the
fine-tuned encoder's vectors).

Usage: eval_ft.py target/bbft/l3 [target/bbft/l0 ...] [--json OUT] [--level both]
"""

import argparse
import json
import os
import sys
from pathlib import Path

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import bb  # noqa: E402
from data import SHARED, WORK, Corpus  # noqa: E402
from ft import para_vectors  # noqa: E402


def load(path):
    return dict(np.load(path / "head.npz")), json.loads((path / "head.json").read_text())


def scores(systems, level, order):
    out = {}
    for name, X, Z, sigma, cos_name in systems:
        e, z = X[order], Z[order]
        if cos_name:
            cos = (e[1:] * e[:-1]).sum(axis=1) / np.maximum(np.linalg.norm(e[1:], axis=1) * np.linalg.norm(e[:-1], axis=1), 1e-12)
            out[cos_name] = float(np.clip(cos, 0, 1).mean())
        b = bb.bbscore(z, sigma[level])
        out[f"{name}bbscore"] = -b if not np.isnan(b) else 0.0
        b = bb.path_bbscore(z, sigma[level])
        out[f"{name}bbscore-path"] = -b if not np.isnan(b) else 0.0
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--copies", type=int, default=5)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--level", choices=["sentence", "paragraph", "both"], default="both")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    dev = Corpus(SHARED / "dev.jsonl")
    base_head, base_meta = dict(np.load(WORK / "head.npz")), json.loads((WORK / "head.json").read_text())
    runs = []
    for r in args.runs:
        h, m = load(r)
        z = np.load(r / "dev.npz")
        V, off = z["vectors"].astype(np.float64), z["doc_offsets"]
        if len(off) - 1 != len(dev):
            sys.exit(f"{r}/dev.npz has {len(off) - 1} documents, dev has {len(dev)}")
        runs.append((r.name, h, m, V, off))
    levels = ["sentence", "paragraph"] if args.level == "both" else [args.level]
    tallies = {}
    for di, (_, src, paras, S, P) in enumerate(dev.docs):
        for level in levels:
            X0 = S if level == "sentence" else P
            n = len(X0)
            if n < 2:
                continue
            group = ">=21" if n >= 21 else "<21"
            systems = [("", X0, bb.head_forward(base_head, X0), base_meta["sigma"], "embedding")]
            for name, h, m, V, off in runs:
                Sd = V[off[di]:off[di + 1]]
                assert len(Sd) == len(S)
                X = Sd if level == "sentence" else para_vectors(paras, Sd)
                systems.append((name + ":", X, bb.head_forward(h, X), m["sigma"], name + ":cosine"))
            orig = scores(systems, level, list(range(n)))
            for k, kind in enumerate(bb.DEGRADATIONS):
                rng = np.random.default_rng([args.seed, di, k, levels.index(level)])
                for _ in range(args.copies):
                    o = bb.degrade(kind, n, rng)
                    if o is None:
                        break
                    deg = scores(systems, level, o)
                    for name, v in orig.items():
                        w = 0.5 if abs(v - deg[name]) < 1e-12 else float(v > deg[name])
                        for g in ("all", group):
                            t = tallies.setdefault((name, level, g, kind), [0.0, 0])
                            t[0] += w
                            t[1] += 1
    names = list(orig.keys())
    rows = []
    for level in levels:
        for g in ("all", ">=21", "<21"):
            print(f"\n{level}, documents: {g} ({len(dev)} dev documents in all), {args.copies} copies")
            print("| scorer | " + " | ".join(bb.DEGRADATIONS) + " |")
            print("|---|" + "---:|" * len(bb.DEGRADATIONS))
            for name in names:
                cells = []
                for d in bb.DEGRADATIONS:
                    w, n = tallies.get((name, level, g, d), (0, 0))
                    cells.append(f"{100 * w / n:.2f}" if n else "-")
                    rows.append({"scorer": name, "level": level, "group": g, "degradation": d,
                                 "accuracy": w / n if n else None, "pairs": n})
                print(f"| {name} | " + " | ".join(cells) + " |")
    # Drift: mean |z_i - z_{i+k}|^2 over sentence pairs k apart in a document, relative to the mean
    # over all pairs of the same document (1 = position leaves no trace; a Brownian bridge grows
    # with k). Documents of >= 21 sentences.
    lags = [1, 2, 4, 8, 16]
    drift = {}
    print("\ndrift (sentence latents, documents >= 21 sentences): lag " + " ".join(map(str, lags)))
    for name, h, m, V, off in [("frozen", base_head, base_meta, None, None)] + runs:
        num, den = np.zeros(len(lags)), np.zeros(len(lags))
        for di, (_, _, _, S, _) in enumerate(dev.docs):
            if len(S) < 21:
                continue
            X = S if V is None else V[off[di]:off[di + 1]]
            z = bb.head_forward(h, X)
            g = (z**2).sum(1)
            D = g[:, None] + g[None, :] - 2 * z @ z.T
            allp = D[np.triu_indices(len(z), 1)].mean()
            for j, k in enumerate(lags):
                num[j] += np.diagonal(D, k).mean() / allp
                den[j] += 1
        drift[name] = list(num / den)
        print(f"{name:<10}" + " ".join(f"{v:.3f}" for v in num / den))
    if args.json:
        args.json.write_text(json.dumps({"runs": [str(r) for r in args.runs], "results": rows, "drift": drift}, indent=1) + "\n")


if __name__ == "__main__":
    main()
