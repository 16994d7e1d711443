#!/usr/bin/env python3
"""Trains BBScore+CLF: a 3-layer MLP over Brownian-bridge features of an order (bb.FEATURES),
on pairs of an original training document and a degraded copy of it, and saves it to
target/bbscore/clf.npz (export.py turns it into models/bbscore/clf.onnx).

Pairs: every training document of target/bbscore/train.bb.jsonl that the head did not see
(data.for_classifier: a quarter, by hash), at sentence and paragraph level,
against --copies degraded copies for each of R1, R2, R, D2, D5, D10 (the degradations of
`segue eval`; D1 is the same as R). The loss is the pairwise logistic loss
softplus(-(f(original) - f(degraded))), so f ranks orders; sigmoid(f) is the scorer's [0, 1]
order score. Features are standardised with the training mean and std (folded into the ONNX).
Trained on train only; hyper-parameters chosen on dev with eval.py.

Usage, from the repository root: python -m models.train.bbscore.train_clf [--head target/bbscore/head.npz] [--hidden 32 16] [--steps 3000] [--seed 0]
"""

import argparse
import json
import os
import time
from pathlib import Path

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import autograd.numpy as anp  # noqa: E402
import numpy as np  # noqa: E402
from autograd import grad  # noqa: E402

from models.train.bbscore import bb
from models.train.bbscore.data import WORK, Corpus, for_classifier
from models.train.bbscore.train import adam

KINDS = ["R1", "R2", "R", "D2", "D5", "D10"]


def pairs(corpus, head, sigma, copies, seed):
    A, B = [], []
    for di, (doc_id, _, _, S, P) in enumerate(corpus.docs):
        if not for_classifier(doc_id):
            continue
        for li, level in enumerate(("sentence", "paragraph")):
            X = S if level == "sentence" else P
            n = len(X)
            if n < 3:
                continue
            Z = bb.head_forward(head, X)
            s = sigma[level]
            fo = bb.features(Z, X, s, level == "paragraph")
            rng = np.random.default_rng([seed, di, li])
            for kind in KINDS:
                for _ in range(copies):
                    o = bb.degrade(kind, n, rng)
                    if o is None:
                        break
                    A.append(fo)
                    B.append(bb.features(Z[o], X[o], s, level == "paragraph"))
    return np.array(A), np.array(B)


def forward(p, x):
    h = anp.maximum(anp.dot(x, p["C1"]) + p["c1"], 0)
    h = anp.maximum(anp.dot(h, p["C2"]) + p["c2"], 0)
    return (anp.dot(h, p["C3"]) + p["c3"])[:, 0]


def loss_fn(p, A, B, l2):
    margin = forward(p, A) - forward(p, B)
    loss = anp.mean(anp.logaddexp(0.0, -margin))
    return loss + l2 * (anp.sum(p["C1"] ** 2) + anp.sum(p["C2"] ** 2) + anp.sum(p["C3"] ** 2))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=WORK / "train.bb.jsonl")
    ap.add_argument("--head", type=Path, default=WORK / "head.npz")
    ap.add_argument("--hidden", type=int, nargs=2, default=[32, 16])
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--copies", type=int, default=4)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--l2", type=float, default=1e-2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=WORK / "clf.npz")
    args = ap.parse_args()
    head = dict(np.load(args.head))
    sigma = json.loads(args.head.with_suffix(".json").read_text())["sigma"]
    corpus = Corpus(args.data)
    t0 = time.time()
    A, B = pairs(corpus, head, sigma, args.copies, args.seed)
    n_docs = sum(for_classifier(d[0]) for d in corpus.docs)
    print(f"{len(A)} training pairs from {n_docs} documents the head did not see, in {time.time() - t0:.0f}s")
    both = np.concatenate([A, B])
    mean, std = both.mean(axis=0), both.std(axis=0)
    std[std < 1e-6] = 1.0
    An, Bn = (A - mean) / std, (B - mean) / std
    rng = np.random.default_rng(args.seed)
    h1, h2 = args.hidden
    F = A.shape[1]
    p = {
        "C1": rng.normal(0, 1 / np.sqrt(F), (F, h1)),
        "c1": np.zeros(h1),
        "C2": rng.normal(0, 1 / np.sqrt(h1), (h1, h2)),
        "c2": np.zeros(h2),
        "C3": rng.normal(0, 1 / np.sqrt(h2), (h2, 1)),
        "c3": np.zeros(1),
    }
    state = {"t": 0, "m": {k: np.zeros_like(v) for k, v in p.items()}, "v": {k: np.zeros_like(v) for k, v in p.items()}}
    g = grad(loss_fn)
    t1 = time.time()
    for step in range(1, args.steps + 1):
        idx = rng.integers(0, len(An), size=min(args.batch, len(An)))
        lr = args.lr * min(1.0, 2 * (1 - step / args.steps) + 0.05)
        adam(p, g(p, An[idx], Bn[idx], args.l2), state, lr)
        if step % 500 == 0 or step == 1:
            acc = float((forward(p, An) > forward(p, Bn)).mean())
            print(f"step {step:5}  loss {loss_fn(p, An, Bn, 0.0):.4f}  train pair accuracy {100 * acc:.2f}%", flush=True)
    train_s = time.time() - t1
    np.savez(args.out, mean=mean, std=std, **p)
    meta = {
        "features": bb.FEATURES,
        "hidden": [h1, h2],
        "steps": args.steps,
        "batch": args.batch,
        "copies": args.copies,
        "degradations": KINDS,
        "lr": args.lr,
        "l2": args.l2,
        "seed": args.seed,
        "pairs": len(A),
        "documents": n_docs,
        "train_seconds": round(train_s + (t1 - t0), 1),
    }
    args.out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"{args.out}: saved ({train_s:.0f}s training)")


if __name__ == "__main__":
    main()
