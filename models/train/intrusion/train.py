"""Trains the intrusion model: how likely a unit (sentence or paragraph) is not part of the text
around it, from the `embedding` scorer's own vectors (all-MiniLM-L6-v2). The verdict models weigh
its score for the `embedding` scorer (server/src/score/intrusion.rs; models/intrusion/README.md).

Features of an interior unit i of a document's units u_0 … u_{n-1} (sentences of the whole
document, or paragraphs as their mean sentence vector, renormalised), all from unit-length vectors:

- fourteen cosine features, from cosines c(i, j): a = c(i-1, i), b = c(i, i+1), s = c(i-1, i+1),
  max and min of a and b, s minus each, each minus the document's median adjacent cosine, that
  median and its robust spread (1.4826 MAD), the mean cosine of i with the units within three
  places, that mean minus the mean cosine among those other units, and the cosine of i with the
  sum of all other units;
- four vector blocks of the vector's dimension (384): u_i * r and |u_i - r|, where r is the sum of
  all other units renormalised, and u_i * w and |u_i - w|, where w is the sum of the units within
  three places renormalised. A learned weight per dimension: which directions of meaning make a
  unit foreign to its document and its neighbourhood, where a cosine weighs every direction alike.

A logistic regression over them, standardised, with balanced classes (Adam, L2 `L2`, `STEPS`
full-batch steps). The vector blocks' standardisation is folded into their weights and the bias on
export, so the Rust side computes them on the fly without keeping the features.

Training (train part of the real-prose corpus, tests/prose/: 8 genres in their original formats,
segmented by Segue's own parser): each document copied COPIES times with one unit of a document of
*another genre* inserted at a random place — a sentence inside a paragraph of at least three
sentences, or a paragraph between two paragraphs, as `segue eval --task prose` plants them. The
examples are every unit of the original and, in each copy, the inserted unit (the positive) and the
units just before and after it.

Thresholds (dev part, allowed for thresholds): per level and sensitivity, the logit above which a
unit is flagged so that on the original dev documents the flags come to TARGETS false alarms per
100 transitions. The verdict models, not these thresholds, decide findings; the figures compare
the model with the cosine features alone, trained the same way.

    tests/prose/fetch
    for p in train dev; do
      SEGUE_PROSE_DIR=target/prose/$p SEGUE_PROSE_OUT=target/intrusion/prose-$p.jsonl \\
        cargo test --release -p segue --test intrusion_data -- --ignored prose
      models/train/.venv/bin/python models/train/embed.py target/intrusion/prose-$p.jsonl
    done
    models/train/.venv/bin/python -m models.train.intrusion.train   # about 5 minutes
    models/train/.venv/bin/python -m models.train.intrusion.train --hidden-genres   # the check

`tier0`'s model on its static word vectors (models/tier0/README.md), with excerpts of each training
document added as short documents of their own:

    for p in train dev; do models/train/.venv/bin/python models/train/static_vectors.py embed $p; done
    models/train/.venv/bin/python -m models.train.intrusion.train --vectors static --excerpts 10
"""
import argparse
import json
import random
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]

FEATURES = [
    "in", "out", "skip", "best", "worst", "skip_minus_best", "skip_minus_worst",
    "best_minus_median", "worst_minus_median", "median", "spread",
    "window_mean", "window_excess", "rest",
]
VECTOR_BLOCKS = ["rest_product", "rest_distance", "window_product", "window_distance"]
WINDOW = 3
COPIES = 30
DEV_COPIES = 10
L2 = 0.1
STEPS = 800
LR = 0.02
TARGETS = {"low": 1.0, "medium": 2.0, "high": 4.0}
# Excerpts of each training document added as documents of their own (`--excerpts`).
EXCERPT_MAX = 15
EXCERPT_COPIES = 8


def unit(v):
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.maximum(n, 1e-12)


def load(part, vectors="encoder"):
    """The documents of target/intrusion/prose-PART.jsonl with their cached vectors: the
    encoder's (embed.py) or tier 0's static ones (static_vectors.py)."""
    rows = [json.loads(l) for l in open(ROOT / "target" / "intrusion" / f"prose-{part}.jsonl")]
    prefix = "" if vectors == "encoder" else "static-"
    z = np.load(ROOT / "target" / "embeddings" / f"{prefix}prose-{part}.npz")
    vectors, offsets = z["vectors"], z["doc_offsets"]
    if len(offsets) - 1 != len(rows):
        raise SystemExit(f"prose-{part}: the embeddings do not match the corpus; re-run embed.py")
    docs = []
    for k, r in enumerate(rows):
        S = vectors[offsets[k]:offsets[k + 1]].astype(np.float64)
        sizes = [len(p) for p in r["paragraphs"]]
        assert sum(sizes) == len(S), r["id"]
        bounds = np.cumsum([0] + sizes)
        P = np.array([S[a:b].mean(0) for a, b in zip(bounds[:-1], bounds[1:])]).reshape(-1, S.shape[1])
        docs.append({"id": r["id"], "genre": r["genre"], "S": unit(S), "P": unit(P), "sizes": sizes})
    return docs


def level_units(doc, level):
    """Unit vectors at `level` and whether a transition leads into each (a finding can fall there)."""
    if level == "sentence":
        return doc["S"], np.array([k > 0 for n in doc["sizes"] for k in range(n)], bool)
    return doc["P"], np.array([k > 0 for k in range(len(doc["P"]))], bool)


def features_at(U, rows):
    """The cosine features and the vector blocks of the interior units `rows` of U."""
    n = len(U)
    adj = np.einsum("ij,ij->i", U[:-1], U[1:])
    med = float(np.median(adj))
    spread = float(np.median(np.abs(adj - med)) * 1.4826)
    total = U.sum(0)
    F, FV = [], []
    for i in rows:
        lo, hi = max(0, i - WINDOW), min(n, i + WINDOW + 1)
        idx = np.arange(lo, hi)
        C = U[idx] @ U[idx].T
        ii = i - lo
        a, b, s = C[ii - 1, ii], C[ii, ii + 1], C[ii - 1, ii + 1]
        others = [j for j in range(len(idx)) if j != ii]
        win = float(np.mean(C[ii, others]))
        among = [C[j, k] for x, j in enumerate(others) for k in others[x + 1:]]
        excess = win - (float(np.mean(among)) if among else med)
        rest = total - U[i]
        rest_cos = float(U[i] @ rest / max(np.linalg.norm(rest), 1e-12))
        best, worst = max(a, b), min(a, b)
        F.append([a, b, s, best, worst, s - best, s - worst, best - med, worst - med, med, spread,
                  win, excess, rest_cos])
        r, w = unit(rest), unit(U[idx[others]].sum(0))
        FV.append(np.concatenate([U[i] * r, np.abs(U[i] - r), U[i] * w, np.abs(U[i] - w)]))
    return np.array(F).reshape(-1, len(FEATURES)), np.array(FV, dtype=np.float32).reshape(len(rows), -1)


def planted(doc, docs, level, rng):
    """A copy of `doc` at `level` with a unit of a document of another genre inserted:
    (vectors, reportable, position), or None where the document has no place for one."""
    U, rep = level_units(doc, level)
    donor = rng.choice([d for d in docs if d["genre"] != doc["genre"]])
    DU, _ = level_units(donor, level)
    if len(DU) == 0:
        return None
    v = DU[rng.randrange(len(DU))]
    if level == "sentence":
        cands = [k for k, n in enumerate(doc["sizes"]) if n >= 3]
        if not cands:
            return None
        k = rng.choice(cands)
        pos = sum(doc["sizes"][:k]) + rng.randrange(1, doc["sizes"][k])
    else:
        if len(U) < 2:
            return None
        pos = rng.randrange(1, len(U))
    return (np.vstack([U[:pos], v[None], U[pos:]]),
            np.concatenate([rep[:pos], [True], rep[pos:]]), pos)


def dataset(docs, level, copies, seed):
    """Rows of the originals (every interior unit) and of `copies` planted copies per document
    (the planted unit and its two neighbours): cosine features, vector blocks, label, whether the
    unit is reportable, and a group per copy (copy 0: the original)."""
    rng = random.Random(seed)
    X, XV, y, rep_all, group = [], [], [], [], []
    for di, doc in enumerate(docs):
        U, rep = level_units(doc, level)
        n = doc.get("copies", copies)
        items = [(U, rep, None)] + [p for p in (planted(doc, docs, level, rng) for _ in range(n)) if p]
        for ci, (U, rep, pos) in enumerate(items):
            if len(U) < 3:
                continue
            if pos is None:
                rows = list(range(1, len(U) - 1))
            else:
                rows = [i for i in (pos - 1, pos, pos + 1) if 1 <= i < len(U) - 1]
            if not rows:
                continue
            F, FV = features_at(U, rows)
            X.append(F)
            XV.append(FV)
            y.append(np.array([1.0 if i == pos else 0.0 for i in rows]))
            rep_all.append(rep[rows])
            group.append(np.full(len(rows), di * 1000 + ci))
    return np.vstack(X), np.vstack(XV), np.concatenate(y), np.concatenate(rep_all), np.concatenate(group)


def excerpts(docs, per_doc, seed):
    """`per_doc` excerpts of each document: runs of 3 to EXCERPT_MAX consecutive paragraphs, each
    a document of its own with EXCERPT_COPIES planted copies, so that the model also sees the short
    documents writers check (its features read the whole document and the units around each)."""
    rng = random.Random(seed)
    out = []
    for doc in docs:
        m = len(doc["sizes"])
        if m < 4:
            continue
        for _ in range(per_doc):
            k = rng.randint(3, min(EXCERPT_MAX, m - 1))
            a = rng.randrange(0, m - k + 1)
            bounds = np.cumsum([0] + doc["sizes"])
            out.append({"id": f'{doc["id"]}#{a}+{k}', "genre": doc["genre"],
                        "S": doc["S"][bounds[a]:bounds[a + k]], "P": doc["P"][a:a + k],
                        "sizes": doc["sizes"][a:a + k], "copies": EXCERPT_COPIES})
    return out


def fit(X, y, l2=L2, steps=STEPS, lr=LR):
    """Balanced logistic regression on standardised X (Adam, full batch): mean, scale, w, b."""
    mean, scale = X.mean(0), X.std(0) + 1e-9
    Z = ((X - mean) / scale).astype(np.float64)
    weight = np.where(y == 1, (len(y) - y.sum()) / max(y.sum(), 1), 1.0)
    weight /= weight.mean()
    w, b = np.zeros(Z.shape[1]), 0.0
    m1, v1, mb, vb = np.zeros_like(w), np.zeros_like(w), 0.0, 0.0
    for t in range(1, steps + 1):
        p = 1 / (1 + np.exp(-(Z @ w + b)))
        g = weight * (p - y) / len(y)
        gw, gb = Z.T @ g + l2 * w, g.sum()
        m1, v1 = 0.9 * m1 + 0.1 * gw, 0.999 * v1 + 0.001 * gw ** 2
        mb, vb = 0.9 * mb + 0.1 * gb, 0.999 * vb + 0.001 * gb ** 2
        c1, c2 = 1 - 0.9 ** t, 1 - 0.999 ** t
        w -= lr * (m1 / c1) / (np.sqrt(v1 / c2) + 1e-8)
        b -= lr * (mb / c1) / (np.sqrt(vb / c2) + 1e-8)
    return mean, scale, w, b


def logit(model, X):
    mean, scale, w, b = model
    return ((X - mean) / scale) @ w + b


def caught_strengths(s, y, group):
    """Per planted unit, the larger logit of it and of the unit after it (either is a catch)."""
    out = []
    for i in np.where(y == 1)[0]:
        v = s[i]
        if i + 1 < len(s) and group[i + 1] == group[i]:
            v = max(v, s[i + 1])
        out.append(v)
    return np.array(out)


def threshold_for(values, transitions, per_100):
    """The smallest threshold that flags at most per_100 values per 100 transitions."""
    allowed = int(per_100 * transitions / 100)
    v = np.sort(values)[::-1]
    return float(v[allowed]) + 1e-9 if allowed < len(v) else float(v[-1])


def hidden_genres(train, dev):
    """Prints, per level and genre, the dev false alarms per 100 transitions and planted units
    caught of the genre's documents, for the model trained on every genre and for one trained
    without that genre, each at the threshold that gives 2 false alarms per 100 over all of dev."""
    for level in ("sentence", "paragraph"):
        X, XV, y, _, group = dataset(train, level, COPIES, seed=101)
        Xd, XVd, yd, repd, groupd = dataset(dev, level, DEV_COPIES, seed=7)
        train_genre = np.array([train[k // 1000]["genre"] for k in group])
        dev_genre = np.array([dev[k // 1000]["genre"] for k in groupd])
        A, Ad = np.hstack([X, XV]), np.hstack([Xd, XVd])
        original = (groupd % 1000 == 0) & repd

        def judged(model, genre):
            s = logit(model, Ad)
            t = threshold_for(s[original], int(original.sum()), 2.0)
            mine = dev_genre == genre
            fa = 100 * float(((s >= t) & original & mine).sum()) / max(int((original & mine).sum()), 1)
            caught = caught_strengths(np.where(mine, s, -1e9), np.where(mine, yd, 0), groupd)
            return fa, 100 * float((caught >= t).mean())

        full = fit(A, y)
        for genre in sorted({d["genre"] for d in train}):
            keep = train_genre != genre
            a, b = judged(full, genre), judged(fit(A[keep], y[keep]), genre)
            print(f"{level} {genre}: all genres {a[0]:.2f} / 100, {a[1]:.1f} % caught; "
                  f"genre hidden {b[0]:.2f} / 100, {b[1]:.1f} % caught", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vectors", choices=["encoder", "static"], default="encoder",
                    help="the encoder's vectors (the embedding scorer's model, intrusion.json) or "
                         "tier 0's static word vectors (static.json)")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--excerpts", type=int, default=0,
                    help="excerpts per training document added as short documents")
    ap.add_argument("--hidden-genres", action="store_true",
                    help="print the hidden-genre check instead of training (about 20 minutes)")
    args = ap.parse_args()
    static = args.vectors == "static"
    args.out = args.out or ROOT / "models" / "intrusion" / ("static.json" if static else "intrusion.json")
    train, dev = load("train", args.vectors), load("dev", args.vectors)
    if args.excerpts:
        train = train + excerpts(train, args.excerpts, seed=11)
    if args.hidden_genres:
        hidden_genres(train, dev)
        return
    dim = train[0]["S"].shape[1]
    out = {
        "about": ("Intrusion model for the tier0 scorer, on its static word vectors"
                  if static else "Intrusion model for the embedding scorer")
                 + ": P(unit does not belong) from cosine features and per-dimension vector "
                   "features; models/train/intrusion/train.py"
                 + (" --vectors static" if static else ""),
        "features": FEATURES,
        "vector_blocks": VECTOR_BLOCKS,
        "vector_dim": dim,
        "window": WINDOW,
        "levels": {},
        "training": {"data": "target/intrusion/prose-train.jsonl (train part of tests/prose)",
                     "documents": len(train), "copies_per_document": COPIES, "l2": L2,
                     "steps": STEPS, "learning_rate": LR},
        "threshold_targets_per_100_transitions": TARGETS,
    }
    fixture = {}
    for level in ("sentence", "paragraph"):  # about 2 minutes each
        X, XV, y, _, _ = dataset(train, level, COPIES, seed=101)
        full = fit(np.hstack([X, XV]), y)
        cosines = fit(X, y, l2=1e-3, steps=1500, lr=0.05)
        Xd, XVd, yd, repd, groupd = dataset(dev, level, DEV_COPIES, seed=7)
        original = (groupd % 1000 == 0) & repd
        transitions = int(original.sum())
        figures = {"documents": len(dev), "transitions": transitions, "intruders": int(yd.sum())}
        thresholds = {}
        s_full, s_cos = logit(full, np.hstack([Xd, XVd])), logit(cosines, Xd)
        for name, per_100 in TARGETS.items():
            t = threshold_for(s_full[original], transitions, per_100)
            tc = threshold_for(s_cos[original], transitions, per_100)
            thresholds[name] = t
            figures[name] = {
                "false_alarms_per_100": round(100 * float((s_full[original] >= t).sum()) / transitions, 2),
                "caught_percent": round(100 * float((caught_strengths(s_full, yd, groupd) >= t).mean()), 1),
                "cosine_features_only_caught_percent":
                    round(100 * float((caught_strengths(s_cos, yd, groupd) >= tc).mean()), 1),
            }
        # Fold the vector blocks' standardisation into their weights and the bias.
        mean, scale, w, b = full
        k = len(FEATURES)
        vector_weights = w[k:] / scale[k:]
        bias = b - float((w[k:] * mean[k:] / scale[k:]).sum())
        out["levels"][level] = {
            "mean": mean[:k].round(8).tolist(), "scale": scale[:k].round(8).tolist(),
            "weights": w[:k].round(8).tolist(), "bias": round(bias, 8),
            "vector_weights": vector_weights.round(7).tolist(),
            "thresholds": {n: round(v, 6) for n, v in thresholds.items()},
            "training_examples": int(len(y)), "training_intruders": int(y.sum()),
            "dev": figures,
        }
        fixture[level] = out["levels"][level]
        print(level, json.dumps(figures), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, separators=(",", ":")) + "\n")
    print("wrote", args.out)
    if static:
        return
    # A fixture for the Rust side: features and logits of the first sentences of dev documents.
    sentence = fixture["sentence"]
    cases = []
    for n, doc in zip((3, 5, 9), dev):
        U = doc["S"][:n].round(6)
        F, FV = features_at(U, list(range(1, n - 1)))
        logits = (((F - np.array(sentence["mean"])) / np.array(sentence["scale"])) @ np.array(sentence["weights"])
                  + FV.astype(np.float64) @ np.array(sentence["vector_weights"]) + sentence["bias"])
        cases.append({"vectors": U.tolist(), "features": F.tolist(), "sentence_logits": logits.tolist()})
    (args.out.parent / "reference.json").write_text(json.dumps({"cases": cases}) + "\n")
    print("wrote", args.out.parent / "reference.json")


if __name__ == "__main__":
    main()
