"""Spike: does MiniLM (frozen) reading a sentence PAIR carry order information?
Precedence P(a before b) from e(a;b) - e(b;a), logistic regression, dev pairwise accuracy."""
from pathlib import Path
import json, sys, time, os
import numpy as np, onnxruntime as ort
from tokenizers import Tokenizer
R = str(Path(__file__).resolve().parents[4]) + "/"
opts = ort.SessionOptions(); opts.intra_op_num_threads = 2; opts.inter_op_num_threads = 1
sess = ort.InferenceSession(R + "models/onnx/minilm/model.onnx", opts, providers=["CPUExecutionProvider"])
tok = Tokenizer.from_file(R + "models/onnx/minilm/tokenizer.json"); tok.enable_truncation(256); tok.no_padding()
names = [i.name for i in sess.get_inputs()]; out = sess.get_outputs()[0].name

def embed_pairs(pairs, bs=32):
    encs = tok.encode_batch(pairs)
    order = sorted(range(len(encs)), key=lambda k: len(encs[k].ids)); res = [None] * len(encs)
    for s in range(0, len(order), bs):
        idx = order[s:s + bs]; w = max(len(encs[k].ids) for k in idx)
        ids = np.zeros((len(idx), w), np.int64); m = np.zeros_like(ids)
        for r, k in enumerate(idx):
            e = encs[k]; ids[r, :len(e.ids)] = e.ids; m[r, :len(e.ids)] = 1
        feed = {names[0]: ids, names[1]: m}
        if len(names) > 2: feed[names[2]] = np.zeros_like(ids)
        o = sess.run([out], feed)[0]
        for r, k in enumerate(idx): res[k] = o[r]
    return np.array(res)

def load(path, lo, hi, limit=None):
    ps = []
    for l in open(path):
        d = json.loads(l); s = d.get("sentences") or d["paragraphs"][0]
        if lo <= len(s) <= hi: ps.append(s)
        if limit and len(ps) >= limit: break
    return ps

def featurize(paras):
    X, y, A, B = [], [], [], []
    pairs = []; meta = []
    for p in paras:
        n = len(p)
        for i in range(n):
            for j in range(i + 1, n):
                pairs.append((p[i], p[j])); pairs.append((p[j], p[i])); meta.append((i, j, n))
    t = time.time(); E = embed_pairs(pairs); print(f"{len(pairs)} pair encodings in {time.time()-t:.0f}s", flush=True)
    fwd, bwd = E[0::2], E[1::2]
    return fwd, bwd, meta

def train_lr(F, y, l2=1e-3, it=500, lr=0.5):
    w = np.zeros(F.shape[1])
    for _ in range(it):
        p = 1 / (1 + np.exp(-(F @ w)))
        w -= lr * (F.T @ (p - y) / len(y) + l2 * w)
    return w

tr = load("/work/shared/data/train.abstracts.jsonl", 3, 10)
dv = load("/work/shared/data/dev.abstracts.jsonl", 4, 10)
print(len(tr), "train paragraphs", len(dv), "dev", flush=True)
f_tr, b_tr, _ = featurize(tr); f_dv, b_dv, m_dv = featurize(dv)
np.savez(R + "target/xenc/pairs.npz", f_tr=f_tr, b_tr=b_tr, f_dv=f_dv, b_dv=b_dv)
# antisymmetric features: D = e(a;b) - e(b;a); label 1 for (a before b); augment with the swapped copy
D = f_tr - b_tr; F = np.concatenate([D, -D]); y = np.concatenate([np.ones(len(D)), np.zeros(len(D))])
for l2 in (1e-4, 1e-3, 1e-2):
    w = train_lr(F * 10, y, l2=l2)
    acc = ((((f_dv - b_dv) * 10) @ w) > 0).mean()
    acc_tr = ((D * 10) @ w > 0).mean()
    print(f"l2 {l2}: train pair acc {acc_tr:.3f}  dev pair acc {acc:.3f}", flush=True)
