"""The search of the order objective's weights with a set model's terms, on dev; reader/tune.py
uses it for the paragraph reader (its `with_cross`, `KEYS`, `NEXT_KEYS`, `two_fold`, `rounded`).

A set model gives the logit X[i][j] of "i before j" for every ordered pair of a set, symmetrised
into xprec[i][j] = log σ((X[i][j] − X[j][i]) / 2). The objective gains the same two terms the
head's precedence has (train.py's chain_matrix): w.cross_precedence·xprec of adjacent units and a
Borda potential w.cross_borda·Σ_j (xprec[i][j] − xprec[j][i]); with a successor output (logit
N[i][j] of "j directly follows i"), a third term w.cross_next·xnext of adjacent units, xnext[i] =
log-softmax of N[i][j] over j ≠ i. (The `cross_*` names are the metadata's; Segue calls them the
reader's terms.) Run on its own, this script tunes a pair export at models/onnx/cross/model.onnx,
which Segue no longer ships (models/research/ordering-cross/).

The weights are searched on the dev abstracts by train.py's coordinate ascent, starting from the
head's own dev weights. Because the head's weights were also set on these abstracts, the script
reports a second, held-out figure: 2-fold cross-validation over dev (weights searched on one half
of the abstracts, measured on the other, both ways, pooled).

Needs: the sentence head's parameters (target/ordering/params-sentence.npz, written by train.py)
and the dev embeddings cache. Run with models/train/.venv after `models/install`:
  models/train/.venv/bin/python -m models.train.ordering.weight_search [--no-write]
(--no-write prints the figures and leaves ordering.json alone).
"""
import hashlib
import json
import sys

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from models.train.ordering import data, decode
from models.train.ordering import train as T

ROOT = data.ROOT
MODELS = ROOT / "models"
ONNX = MODELS / "onnx" / "cross" / "model.onnx"
CACHE = ROOT / "target" / "xenc" / "dev_logits_onnx.npz"
MAX_TOKENS = 128
# Sets larger than this keep the head-only objective: n(n − 1) pair passes grow fast (240 at 16).
MAX_UNITS = 16
KEYS = ("cross_precedence", "cross_borda", "precedence", "borda", "successor", "coherence", "opening", "closing")
NEXT_KEYS = ("cross_next",)


def logits(sentence_sets):
    """(X, N) for each set, with ONNX Runtime (2 threads, batches of 32): X[i][j] the precedence
    logit of every ordered pair, N[i][j] the successor logit (None without a `next` output)."""
    tok = Tokenizer.from_file(str(MODELS / "onnx" / "minilm" / "tokenizer.json"))
    tok.enable_truncation(MAX_TOKENS)
    tok.no_padding()
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    sess = ort.InferenceSession(str(ONNX), so, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    out = []
    for p in sentence_sets:
        n = len(p)
        pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
        X = np.zeros((n, n))
        N = np.zeros((n, n)) if "next" in names else None
        for s in range(0, len(pairs), 32):
            chunk = pairs[s:s + 32]
            encs = [tok.encode(p[i], p[j]) for i, j in chunk]
            w = max(len(e.ids) for e in encs)
            feed = {k: np.zeros((len(encs), w), np.int64) for k in ["input_ids", "attention_mask", "token_type_ids"]}
            for r, e in enumerate(encs):
                feed["input_ids"][r, :len(e.ids)] = e.ids
                feed["attention_mask"][r, :len(e.ids)] = 1
                feed["token_type_ids"][r, :len(e.ids)] = e.type_ids
            ys = sess.run(names, feed)
            for r, (i, j) in enumerate(chunk):
                X[i, j] = ys[0][r]
                if N is not None:
                    N[i, j] = ys[1][r]
        out.append((X, N))
    return out


def with_cross(comps, xs):
    out = []
    for c, (X, N) in zip(comps, xs):
        n = len(X)
        assert n == len(c["open"])
        c = dict(c)
        off = ~np.eye(n, dtype=bool)
        c["xprec"] = decode.log_sigmoid((X - X.T) / 2) * off
        if N is not None:
            M = np.where(off, N, -np.inf)
            c["xnext"] = np.where(off, M - np.logaddexp.reduce(M, axis=1, keepdims=True), 0.0)
        out.append(c)
    return out


def two_fold(insts, comps, keys, start, always=()):
    """2-fold cross-validation over `insts` (halves by a hash of the document id): weights searched
    on one half (plus the `always` components), decoded on the other, both ways, pooled metrics."""
    half = np.array([int(hashlib.sha256(i.doc.encode()).hexdigest(), 16) % 2 for i in insts])
    preds = [None] * len(comps)
    for fold in (0, 1):
        fit = [c for c, h in zip(comps, half) if h != fold] + list(always)
        wf, _ = T.tune(fit, keys=keys, start=start)
        idx = [k for k, h in enumerate(half) if h == fold]
        for k, o in zip(idx, T.decode_all([comps[k] for k in idx], wf)):
            preds[k] = o
    return decode.metrics(preds)


def rounded(m):
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in m.items()}


def main():
    meta_path = MODELS / "ordering" / "ordering.json"
    meta = json.loads(meta_path.read_text())
    head_w = meta["levels"]["sentence"]["weights"]
    p = dict(np.load(ROOT / "target" / "ordering" / "params-sentence.npz"))
    p.pop("info", None)
    insts = data.sentence_instances(data.load(T.SHARED / "dev.abstracts.jsonl"), 4, 10)
    sets = [[t[0] for t in inst.texts] for inst in insts]
    sha = hashlib.sha256(ONNX.read_bytes()).hexdigest()
    if CACHE.exists() and str(np.load(CACHE)["sha"]) == sha:
        z = np.load(CACHE)
        xs = [(z[f"d{k}"], z[f"n{k}"] if f"n{k}" in z else None) for k in range(len(sets))]
    else:
        xs = logits(sets)
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        arrays = {f"d{k}": x for k, (x, _) in enumerate(xs)}
        arrays.update({f"n{k}": nx for k, (_, nx) in enumerate(xs) if nx is not None})
        np.savez(CACHE, sha=np.array(sha), **arrays)
    has_next = xs[0][1] is not None
    keys = KEYS + (NEXT_KEYS if has_next else ())
    start = dict(head_w, cross_precedence=1.0, cross_borda=0.1, **({"cross_next": 0.5} if has_next else {}))
    comps = T.shuffled(with_cross([T.components(p, i) for i in insts], xs))

    head = decode.metrics(T.decode_all(comps, head_w))
    alone = decode.metrics(T.decode_all(comps, {"cross_precedence": 1.0}))
    w, m = T.tune(comps, keys=keys, start=start)
    print("head only (shipped weights) ", rounded(head))
    print("cross-encoder alone         ", rounded(alone))
    if has_next:
        nxt = decode.metrics(T.decode_all(comps, {"cross_next": 1.0}))
        both = decode.metrics(T.decode_all(comps, {"cross_next": 1.0, "cross_precedence": 1.0, "cross_borda": 0.3}))
        print("cross successor alone       ", rounded(nxt))
        print("cross successor + precedence", rounded(both))
    print("head + cross-encoder        ", {k: v for k, v in w.items() if v}, rounded(m))

    cv = two_fold(insts, comps, keys, start)
    print("head + cross-encoder, 2-fold", rounded(cv))

    meta["cross"] = {
        "file": "onnx/cross/model.onnx",
        "sha256": sha,
        "max_tokens": MAX_TOKENS,
        "max_units": MAX_UNITS,
        "levels": {"sentence": {"weights": {k: v for k, v in w.items() if v}}},
        "dev": {
            "instances": len(insts),
            "head_only": rounded(head),
            "cross_alone": rounded(alone),
            "head_and_cross": rounded(m),
            "head_and_cross_2fold": rounded(cv),
        },
    }
    if has_next:
        meta["cross"]["dev"]["cross_successor_alone"] = rounded(nxt)
    if "--no-write" in sys.argv:
        return
    meta_path.write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {meta_path}")


if __name__ == "__main__":
    main()
