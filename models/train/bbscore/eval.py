#!/usr/bin/env python3
"""Discrimination on dev (original vs degraded order) for the embedding cosine, BBScore and
BBScore+CLF, from cached MiniLM vectors, plus the spliced-paragraph check.

Degradations are those of `segue eval` (R1, R2: one/two units moved; R: full shuffle; D_b: blocks
of b units shuffled), 5 copies per document, level and degradation; ties count half. The random
streams differ from the Rust ones, so figures agree with `segue eval` statistically, not exactly.

Scorers (an order's score; higher = judged more coherent):
  embedding     mean adjacent cosine of MiniLM vectors, clamped at 0 (the `embedding` scorer)
  bbscore       -B, seed 001's score over the whole order (bridge from its first to last unit)
  bbscore-path  -B with each unit's likelihood given the unit before it and the last unit (the
                Markov factorisation of the bridge's joint likelihood of the path)
  bbscore-pair  mean adjacent exp(-step/2): the pairwise form `segue eval` measures until the
                order-score hook is in (see docs/bbscore.md)
  bbscore-clf   the classifier's logit over FEATURES (bb.py), when target/bbscore/clf.npz exists

Spliced check: every dev document of >= 3 paragraphs gets a copy in which about a third of its
paragraphs (at least one, never the first) are replaced by paragraphs of another dev document of
the same source, at the same positions; a scorer is right when it prefers the original.

Usage, from the repository root: python -m models.train.bbscore.eval [--data dev] [--head target/bbscore/head.npz] [--limit N] [--json OUT]
"""

import argparse
import json
import os
from pathlib import Path

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402

from models.train.bbscore import bb
from models.train.bbscore.data import SHARED, WORK, Corpus


def load_head(path: Path):
    p = dict(np.load(path))
    meta = json.loads(path.with_suffix(".json").read_text())
    return p, meta


def load_clf(path: Path):
    if not path.exists():
        return None
    z = dict(np.load(path))
    return z


class Scorers:
    def __init__(self, head, meta, clf):
        self.head, self.sigma, self.clf = head, meta["sigma"], clf

    def latents(self, X):
        return bb.head_forward(self.head, X)

    def score_all(self, X, Z, order, level):
        """Scores of one order under every scorer."""
        e, z = X[order], Z[order]
        cos = (e[1:] * e[:-1]).sum(axis=1)
        sig = self.sigma[level]
        out = {"embedding": float(np.clip(cos, 0, 1).mean())}
        b = bb.bbscore(z, sig)
        out["bbscore"] = -b if not np.isnan(b) else 0.0
        b = bb.path_bbscore(z, sig)
        out["bbscore-path"] = -b if not np.isnan(b) else 0.0
        out["bbscore-pair"] = float(np.exp(-bb.step_excess(z, sig) / 2).mean())
        if self.clf is not None:
            f = bb.features(z, e, sig, level == "paragraph")
            x = (f - self.clf["mean"]) / self.clf["std"]
            out["bbscore-clf"] = float(bb.mlp_forward(self.clf, x[None, :])[0])
        return out


def discrimination(corpus, sc, levels, copies, seed):
    tallies = {}
    for di, (_, _, _, S, P) in enumerate(corpus.docs):
        for level in levels:
            X = S if level == "sentence" else P
            n = len(X)
            if n < 2:
                continue
            Z = sc.latents(X)
            orig = sc.score_all(X, Z, list(range(n)), level)
            for k, kind in enumerate(bb.DEGRADATIONS):
                rng = np.random.default_rng([seed, di, k, levels.index(level)])
                for _ in range(copies):
                    o = bb.degrade(kind, n, rng)
                    if o is None:
                        break
                    deg = sc.score_all(X, Z, o, level)
                    for name, v in orig.items():
                        w = 0.5 if abs(v - deg[name]) < 1e-12 else float(v > deg[name])
                        t = tallies.setdefault((name, level, kind), [0.0, 0])
                        t[0] += w
                        t[1] += 1
    return tallies


def splice(corpus, sc, seed, fraction=1 / 3):
    """The spliced-paragraph check; returns {scorer: [wins, pairs]} per level."""
    by_source = {}
    for k, d in enumerate(corpus.docs):
        by_source.setdefault(d[1], []).append(k)
    rng = np.random.default_rng(seed)
    tallies = {}
    for k, (_, src, paras, S, P) in enumerate(corpus.docs):
        if len(paras) < 3:
            continue
        others = [j for j in by_source[src] if j != k]
        if not others:
            continue
        m = max(1, round(fraction * len(paras)))
        positions = sorted(rng.choice(np.arange(1, len(paras)), size=min(m, len(paras) - 1), replace=False))
        # Sentence rows of each paragraph of the original.
        starts = np.cumsum([0] + [len(p) for p in paras])
        new_s, new_p = [], []
        for pi in range(len(paras)):
            if pi in positions:
                j = others[int(rng.integers(0, len(others)))]
                _, _, oparas, oS, oP = corpus.docs[j]
                q = int(rng.integers(0, len(oparas)))
                ostarts = np.cumsum([0] + [len(p) for p in oparas])
                new_s.append(oS[ostarts[q]:ostarts[q + 1]])
                new_p.append(oP[q])
            else:
                new_s.append(S[starts[pi]:starts[pi + 1]])
                new_p.append(P[pi])
        for level, Xo, Xs in (("sentence", S, np.concatenate(new_s)), ("paragraph", P, np.array(new_p))):
            a = sc.score_all(Xo, sc.latents(Xo), list(range(len(Xo))), level)
            b = sc.score_all(Xs, sc.latents(Xs), list(range(len(Xs))), level)
            for name in a:
                w = 0.5 if abs(a[name] - b[name]) < 1e-12 else float(a[name] > b[name])
                t = tallies.setdefault((name, level), [0.0, 0])
                t[0] += w
                t[1] += 1
    return tallies


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="dev", help="corpus stem under $SEGUE_DATA_DIR (default ../shared/data; dev) or a JSONL path")
    ap.add_argument("--head", type=Path, default=WORK / "head.npz")
    ap.add_argument("--clf", type=Path, default=WORK / "clf.npz")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--copies", type=int, default=5)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--level", choices=["sentence", "paragraph", "both"], default="both")
    ap.add_argument("--no-splice", action="store_true")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    path = Path(args.data) if args.data.endswith(".jsonl") else SHARED / f"{args.data}.jsonl"
    corpus = Corpus(path, limit=args.limit)
    head, meta = load_head(args.head)
    sc = Scorers(head, meta, load_clf(args.clf))
    levels = ["sentence", "paragraph"] if args.level == "both" else [args.level]
    tallies = discrimination(corpus, sc, levels, args.copies, args.seed)
    names = sorted({k[0] for k in tallies}, key=lambda s: ["embedding", "bbscore", "bbscore-path", "bbscore-pair", "bbscore-clf"].index(s))
    print(f"discrimination accuracy (%), {len(corpus)} documents of {path.name}, {args.copies} copies, head {args.head.name}")
    print(f"{'scorer':<14}{'level':<11}" + "".join(f"{d:>8}" for d in bb.DEGRADATIONS))
    rows = []
    for level in levels:
        for name in names:
            cells = []
            for d in bb.DEGRADATIONS:
                w, n = tallies.get((name, level, d), (0, 0))
                cells.append(f"{100 * w / n:8.2f}" if n else f"{'-':>8}")
                rows.append({"scorer": name, "level": level, "degradation": d, "accuracy": w / n if n else None, "pairs": n})
            print(f"{name:<14}{level:<11}" + "".join(cells))
    out = {"documents": len(corpus), "data": str(path), "head": str(args.head), "results": rows}
    if not args.no_splice:
        sp = splice(corpus, sc, args.seed)
        print("\nspliced paragraphs (original preferred, %):")
        out["splice"] = []
        for (name, level), (w, n) in sorted(sp.items(), key=lambda kv: (kv[0][1], names.index(kv[0][0]))):
            print(f"{name:<14}{level:<11}{100 * w / n:8.2f}  ({n} pairs)")
            out["splice"].append({"scorer": name, "level": level, "accuracy": w / n, "pairs": n})
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
