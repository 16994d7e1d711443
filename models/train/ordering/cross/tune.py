"""Sets the cross-encoder's weights in the sentence level's order objective, on dev, and writes them
to models/ordering/ordering.json (`cross`).

The cross-encoder is the installed ONNX export (models/onnx/cross/model.onnx, made by
models/install from the committed adapter), run here with ONNX Runtime exactly as Segue runs it:
the logit X[i][j] of "i before j" for every ordered pair of a set, symmetrised into
xprec[i][j] = log σ((X[i][j] − X[j][i]) / 2). The objective gains the same two terms the head's
precedence has (train.py's chain_matrix): w.cross_precedence·xprec of adjacent units and a Borda
potential w.cross_borda·Σ_j (xprec[i][j] − xprec[j][i]).

The weights are searched on the dev abstracts by train.py's coordinate ascent, starting from the
head's own dev weights. Because the head's weights were also set on these abstracts, the script
reports a second, held-out figure: 2-fold cross-validation over dev (weights searched on one half
of the abstracts, measured on the other, both ways, pooled).

Needs: the sentence head's parameters (target/ordering/params-sentence.npz, written by train.py)
and the dev embeddings cache. Run with models/train/.venv after `models/install`:
  models/train/.venv/bin/python models/train/ordering/cross/tune.py
"""
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import data  # noqa: E402
import decode  # noqa: E402
import train as T  # noqa: E402

ROOT = data.ROOT
MODELS = ROOT / "models"
ONNX = MODELS / "onnx" / "cross" / "model.onnx"
CACHE = ROOT / "target" / "xenc" / "dev_logits_onnx.npz"
MAX_TOKENS = 128
# Sets larger than this keep the head-only objective: n(n − 1) pair passes grow fast (240 at 16).
MAX_UNITS = 16
KEYS = ("cross_precedence", "cross_borda", "precedence", "borda", "successor", "coherence", "opening", "closing")


def logits(sentence_sets):
    """X[i][j] for every ordered pair of each set, with ONNX Runtime (2 threads, batches of 32)."""
    tok = Tokenizer.from_file(str(MODELS / "onnx" / "minilm" / "tokenizer.json"))
    tok.enable_truncation(MAX_TOKENS)
    tok.no_padding()
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    sess = ort.InferenceSession(str(ONNX), so, providers=["CPUExecutionProvider"])
    out = []
    for p in sentence_sets:
        n = len(p)
        pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
        X = np.zeros((n, n))
        for s in range(0, len(pairs), 32):
            chunk = pairs[s:s + 32]
            encs = [tok.encode(p[i], p[j]) for i, j in chunk]
            w = max(len(e.ids) for e in encs)
            feed = {k: np.zeros((len(encs), w), np.int64) for k in ["input_ids", "attention_mask", "token_type_ids"]}
            for r, e in enumerate(encs):
                feed["input_ids"][r, :len(e.ids)] = e.ids
                feed["attention_mask"][r, :len(e.ids)] = 1
                feed["token_type_ids"][r, :len(e.ids)] = e.type_ids
            for (i, j), x in zip(chunk, sess.run(["logit"], feed)[0]):
                X[i, j] = x
        out.append(X)
    return out


def with_cross(comps, xs):
    out = []
    for c, X in zip(comps, xs):
        n = len(X)
        assert n == len(c["open"])
        c = dict(c)
        c["xprec"] = decode.log_sigmoid((X - X.T) / 2) * ~np.eye(n, dtype=bool)
        out.append(c)
    return out


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
        xs = [z[f"d{k}"] for k in range(len(sets))]
    else:
        xs = logits(sets)
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        np.savez(CACHE, sha=np.array(sha), **{f"d{k}": x for k, x in enumerate(xs)})
    comps = T.shuffled(with_cross([T.components(p, i) for i in insts], xs))

    head = decode.metrics(T.decode_all(comps, head_w))
    alone = decode.metrics(T.decode_all(comps, {"cross_precedence": 1.0}))
    w, m = T.tune(comps, keys=KEYS, start=dict(head_w, cross_precedence=1.0, cross_borda=0.1))
    print("head only (shipped weights) ", rounded(head))
    print("cross-encoder alone         ", rounded(alone))
    print("head + cross-encoder        ", {k: v for k, v in w.items() if v}, rounded(m))

    # 2-fold cross-validation over dev: search on one half, measure on the other.
    half = np.array([int(hashlib.sha256(i.doc.encode()).hexdigest(), 16) % 2 for i in insts])
    preds = [None] * len(comps)
    for fold in (0, 1):
        fit = [c for c, h in zip(comps, half) if h != fold]
        wf, _ = T.tune(fit, keys=KEYS, start=dict(head_w, cross_precedence=1.0, cross_borda=0.1))
        idx = [k for k, h in enumerate(half) if h == fold]
        for k, o in zip(idx, T.decode_all([comps[k] for k in idx], wf)):
            preds[k] = o
    cv = decode.metrics(preds)
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
    meta_path.write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {meta_path}")


if __name__ == "__main__":
    main()
