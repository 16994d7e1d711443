#!/usr/bin/env python3
"""Trains the BBScore latent head with the Brownian-bridge contrastive loss of Time Control
(Wang et al. 2022), estimates sigma_m by maximum likelihood, and saves the head to
target/bbscore/head.npz (export.py turns it into models/bbscore/).

The encoder is frozen: its 384-d unit-length sentence vectors (models/train/embed.py, cached) go
through a small head  z = tanh(x W1 + b1) W2 + b2.  A triplet (x_0, x_t, x_T) is three sentences
of one training document at positions t_0 < t < t_T (span t_T - t_0 log-uniform between 2 and
the document's length, t uniform inside); with tau = t - t_0 and T = t_T - t_0 the
positive z_t should be likely under the bridge from z_0 to z_T,

    mu = z_0 + (tau/T)(z_T - z_0),  s^2 = tau (T - tau) / T,

and the loss is the cross-entropy of picking it, by  -|z - mu|^2 / (2 s^2),  among the z_t of
every triplet in the batch (negatives from other positions of the same document, since a batch
holds several triplets per document, and from other documents).

Data: target/bbscore/train.bb.jsonl (subset.py) and its embeddings, train only; the quarter of
its documents that data.for_classifier picks is left to the classifier (train_clf.py). Deterministic for
a --seed (numpy Generator).

Usage, from the repository root: python -m models.train.bbscore.train [--dim 32] [--hidden 256] [--steps 3000] [--seed 0]
"""

import argparse
import json
import os
import time
from pathlib import Path

# One BLAS thread: these matrices are small, and threads fight on a busy 2-core machine (10x slower).
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import autograd.numpy as anp
import numpy as np
from autograd import grad

from models.train.bbscore import bb
from models.train.bbscore.data import WORK, Corpus, for_classifier


def init(rng, dim_in, hidden, dim):
    return {
        "W1": rng.normal(0, 1 / np.sqrt(dim_in), (dim_in, hidden)),
        "b1": np.zeros(hidden),
        "W2": rng.normal(0, 1 / np.sqrt(hidden), (hidden, dim)),
        "b2": np.zeros(dim),
    }


def forward(p, x):
    return anp.dot(anp.tanh(anp.dot(x, p["W1"]) + p["b1"]), p["W2"]) + p["b2"]


def loss_fn(p, X0, Xt, XT, alpha, var, l2):
    z0, zt, zT = forward(p, X0), forward(p, Xt), forward(p, XT)
    mu = z0 * (1 - alpha[:, None]) + zT * alpha[:, None]
    d2 = anp.sum(mu**2, 1)[:, None] + anp.sum(zt**2, 1)[None, :] - 2 * anp.dot(mu, zt.T)
    logits = -d2 / (2 * var[:, None])
    m = anp.max(logits, axis=1, keepdims=True)
    lse = anp.log(anp.sum(anp.exp(logits - m), axis=1)) + m[:, 0]
    ce = anp.mean(lse - anp.diag(logits))
    reg = l2 * (anp.sum(p["W1"] ** 2) + anp.sum(p["W2"] ** 2))
    return ce + reg


def sample_batch(rng, docs, n_docs, per_doc, max_span=0):
    X0, Xt, XT, alpha, var = [], [], [], [], []
    for k in rng.choice(len(docs), size=n_docs, replace=False):
        S = docs[k]
        n = len(S)
        for _ in range(per_doc):
            hi = n - 1 if max_span <= 0 else min(n - 1, max_span)
            # Span T in [2, hi], log-uniform: local triplets (which judge a unit by its
            # neighbours) as often as document-wide ones.
            span = min(hi, int(np.exp(rng.uniform(np.log(2), np.log(hi + 1)))))
            t0 = int(rng.integers(0, n - span))
            tau = int(rng.integers(1, span))
            X0.append(S[t0])
            Xt.append(S[t0 + tau])
            XT.append(S[t0 + span])
            alpha.append(tau / span)
            var.append(tau * (span - tau) / span)
    return np.array(X0), np.array(Xt), np.array(XT), np.array(alpha), np.array(var)


def adam(params, g, state, lr, b1=0.9, b2=0.999, eps=1e-8):
    state["t"] += 1
    t = state["t"]
    for k in params:
        state["m"][k] = b1 * state["m"][k] + (1 - b1) * g[k]
        state["v"][k] = b2 * state["v"][k] + (1 - b2) * g[k] ** 2
        mh = state["m"][k] / (1 - b1**t)
        vh = state["v"][k] / (1 - b2**t)
        params[k] = params[k] - lr * mh / (np.sqrt(vh) + eps)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=WORK / "train.bb.jsonl")
    ap.add_argument("--dim", type=int, default=32)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--docs-per-batch", type=int, default=32)
    ap.add_argument("--per-doc", type=int, default=8)
    ap.add_argument("--max-span", type=int, default=0, help="longest triplet span in units (0: whole document)")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--l2", type=float, default=1e-5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=WORK / "head.npz")
    args = ap.parse_args()

    corpus = Corpus(args.data)
    docs = [d[3] for d in corpus.docs if len(d[3]) >= 3 and not for_classifier(d[0])]
    print(f"{len(docs)} training documents for the head, {sum(len(d) for d in docs)} sentences")
    rng = np.random.default_rng(args.seed)
    params = init(rng, docs[0].shape[1], args.hidden, args.dim)
    state = {"t": 0, "m": {k: np.zeros_like(v) for k, v in params.items()}, "v": {k: np.zeros_like(v) for k, v in params.items()}}
    g = grad(loss_fn)
    t0 = time.time()
    running = None
    for step in range(1, args.steps + 1):
        batch = sample_batch(rng, docs, args.docs_per_batch, args.per_doc, args.max_span)
        lr = args.lr * min(1.0, 2 * (1 - step / args.steps) + 0.05)
        gr = g(params, *batch, args.l2)
        adam(params, gr, state, lr)
        if step % 100 == 0 or step == 1:
            loss = loss_fn(params, *batch, 0.0)
            running = loss if running is None else 0.8 * running + 0.2 * loss
            print(f"step {step:5}  loss {loss:.3f}  (running {running:.3f}, chance {np.log(len(batch[0])):.3f})  {time.time() - t0:.0f}s", flush=True)
    train_s = time.time() - t0

    # sigma_m by maximum likelihood over all training documents (the head's and the classifier's),
    # per level.
    sent = [bb.head_forward(params, S) for _, _, _, S, _ in corpus.docs]
    para = [bb.head_forward(params, P) for _, _, _, _, P in corpus.docs]
    raw = {"sentence": bb.sigma_mle(sent), "paragraph": bb.sigma_mle(para)}
    # The contrastive loss does not fix the latents' scale. Scale them so that the smaller sigma_m
    # is 1: then every bridge variance is >= 1/2 > 1/(2 pi), every ln L_i < 0, and seed 001's
    # |ln prod L_i| never flips sign (with tiny variances the densities exceed 1 and |.| would rank
    # a less likely order as better). B's ranking of orders is otherwise unchanged.
    scale = 1.0 / np.sqrt(min(raw.values()))
    params["W2"] = params["W2"] * scale
    params["b2"] = params["b2"] * scale
    sigma = {k: v * scale**2 for k, v in raw.items()}
    print(f"sigma_m (MLE on train, before scaling by {scale:.3f}): sentence {raw['sentence']:.5f}, paragraph {raw['paragraph']:.5f}; training {train_s:.0f}s")
    np.savez(args.out, **params)
    meta = {
        "dim": args.dim,
        "hidden": args.hidden,
        "steps": args.steps,
        "docs_per_batch": args.docs_per_batch,
        "per_doc": args.per_doc,
        "max_span": args.max_span,
        "lr": args.lr,
        "l2": args.l2,
        "seed": args.seed,
        "sigma": sigma,
        "sigma_before_scaling": raw,
        "latent_scale": scale,
        "train_documents": len(docs),
        "train_sentences": int(sum(len(d) for d in docs)),
        "sigma_documents": len(corpus.docs),
        "train_seconds": round(train_s, 1),
        "final_loss": float(running),
    }
    args.out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"{args.out}: saved")


if __name__ == "__main__":
    main()
