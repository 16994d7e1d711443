#!/usr/bin/env python3
"""Fine-tunes all-MiniLM-L6-v2 (top --layers transformer layers) together with the BBScore head
using Time Control's Brownian-bridge contrastive loss, then fits sigma_m by maximum likelihood on
held-out training documents and encodes dev for eval_ft.py.

Model: sentence -> MiniLM (64 tokens, mean pooling, unit length, as sentence-transformers) ->
head tanh(x W1 + b1) W2 + b2 (384 -> 256 -> 32), the head initialised from target/bbscore/head.npz
(the frozen-encoder head of train.py, unscaled). Embeddings and the lower 6 - layers layers stay
frozen. --layers 0 trains the head alone on the cached frozen vectors (a control for the
sampling/loss below, no encoder).

Batch: --docs documents of the head's training documents (target/bbscore/train.bb.jsonl minus the
classifier quarter, data.for_classifier; train split only). From each, --per-doc sorted positions
inside a window of log-uniform span (first and last position of the window always in); every
triple i < j < k of them is a triplet (z_i, z_j, z_k) with tau = j - i, T = k - i (sentence
positions in the document), mu = z_i + tau/T (z_k - z_i), s^2 = tau (T - tau)/T, and the loss is
the cross-entropy of picking z_j, by -|z - mu|^2 / (2 s^2), among every sentence encoded in the
batch except the triplet's own end points (so negatives are other positions of the same document
and sentences of other documents).

sigma_m: MLE (bb.sigma_mle) per level on the classifier quarter of train.bb.jsonl (train split,
never seen by this training); the latents are then scaled so that the smaller sigma_m is 1 (as
train.py does).

Usage:
  ft.py --layers 3 --budget 720 --out target/bbft/l3      # train, sigma, encode dev
"""

import argparse
import json
import math
import os
import random
import sys
import time
from pathlib import Path

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import bb  # noqa: E402
from data import EMB, SHARED, WORK, Corpus, for_classifier  # noqa: E402

ROOT = HERE.parents[3]
MINILM = ROOT / "target" / "xenc" / "minilm"
MAXLEN = 64


def read_docs(path):
    """[(id, paragraphs, flat sentences)] as data.Corpus reads them (empty paragraphs dropped)."""
    out = []
    for line in open(path, encoding="utf-8"):
        if not line.strip():
            continue
        d = json.loads(line)
        paras = [p for p in (d.get("paragraphs") or [d["sentences"]]) if p]
        out.append((str(d.get("id", len(out))), paras, [s for p in paras for s in p]))
    return out


class Encoder(torch.nn.Module):
    def __init__(self, layers, head):
        super().__init__()
        from tokenizers import Tokenizer
        from transformers import BertModel

        self.layers = layers
        self.tok = Tokenizer.from_file(str(MINILM / "tokenizer.json"))
        self.tok.enable_truncation(MAXLEN)
        self.tok.no_padding()
        self.bert = BertModel.from_pretrained(str(MINILM), add_pooling_layer=False) if layers > 0 else None
        if self.bert is not None:
            for p in self.bert.parameters():
                p.requires_grad = False
            for L in self.bert.encoder.layer[6 - layers:]:
                for p in L.parameters():
                    p.requires_grad = True
        self.W1 = torch.nn.Parameter(torch.tensor(head["W1"], dtype=torch.float32))
        self.b1 = torch.nn.Parameter(torch.tensor(head["b1"], dtype=torch.float32))
        self.W2 = torch.nn.Parameter(torch.tensor(head["W2"], dtype=torch.float32))
        self.b2 = torch.nn.Parameter(torch.tensor(head["b2"], dtype=torch.float32))

    def train_mode(self):
        self.train()
        if self.bert is not None:
            self.bert.embeddings.eval()
            for L in self.bert.encoder.layer[: 6 - self.layers]:
                L.eval()

    def embed(self, sents, chunk=32):
        """Unit-length mean-pooled vectors [n, 384], computed in length-sorted chunks (less padding)."""
        enc = self.tok.encode_batch(sents)
        order = sorted(range(len(sents)), key=lambda i: len(enc[i].ids))
        out = [None] * len(sents)
        for s in range(0, len(order), chunk):
            idx = order[s:s + chunk]
            w = max(len(enc[i].ids) for i in idx)
            ids = torch.zeros(len(idx), w, dtype=torch.long)
            mk = torch.zeros_like(ids)
            for r, i in enumerate(idx):
                n = len(enc[i].ids)
                ids[r, :n] = torch.tensor(enc[i].ids)
                mk[r, :n] = 1
            h = self.bert(input_ids=ids, attention_mask=mk).last_hidden_state
            m = mk.unsqueeze(-1).float()
            v = (h * m).sum(1) / m.sum(1)
            v = v / v.norm(dim=1, keepdim=True).clamp_min(1e-12)
            for r, i in enumerate(idx):
                out[i] = v[r]
        return torch.stack(out)

    def head(self, x):
        return torch.tanh(x @ self.W1 + self.b1) @ self.W2 + self.b2


def sample(rng, docs, n_docs, per_doc):
    """Sentences to encode (doc index, position) and the triplets over them."""
    items, trip = [], []
    for k in rng.sample(range(len(docs)), n_docs):
        n = len(docs[k])
        if n - 1 <= per_doc - 1:
            pos = list(range(n))
        else:
            span = min(n - 1, int(math.exp(rng.uniform(math.log(per_doc - 1), math.log(n)))))
            a = rng.randrange(0, n - span)
            pos = sorted({a, a + span} | set(rng.sample(range(a + 1, a + span), per_doc - 2)))
        base = len(items)
        items += [(k, p) for p in pos]
        m = len(pos)
        for i in range(m):
            for j in range(i + 1, m):
                for l in range(j + 1, m):
                    T, tau = pos[l] - pos[i], pos[j] - pos[i]
                    trip.append((base + i, base + j, base + l, tau / T, tau * (T - tau) / T))
    return items, trip


def bridge_loss(z, trip):
    i0 = torch.tensor([t[0] for t in trip])
    it = torch.tensor([t[1] for t in trip])
    iT = torch.tensor([t[2] for t in trip])
    a = torch.tensor([t[3] for t in trip], dtype=torch.float32)[:, None]
    var = torch.tensor([t[4] for t in trip], dtype=torch.float32)[:, None]
    mu = z[i0] * (1 - a) + z[iT] * a
    d2 = (mu**2).sum(1)[:, None] + (z**2).sum(1)[None, :] - 2 * mu @ z.T
    logits = -d2 / (2 * var)
    r = torch.arange(len(trip))
    mask = torch.zeros_like(logits, dtype=torch.bool)
    mask[r, i0] = True
    mask[r, iT] = True
    logits = logits.masked_fill(mask, float("-inf"))
    return torch.nn.functional.cross_entropy(logits, it), math.log(len(z) - 2)


@torch.no_grad()
def encode_corpus(model, docs, cached=None):
    """Per document: sentence vectors [n, 384] (fine-tuned encoder, or the cached frozen ones)."""
    model.eval()
    if cached is not None:
        return [c[3].astype(np.float32) for c in cached.docs]
    flat = [s for _, _, ss in docs for s in ss]
    V = np.zeros((len(flat), 384), dtype=np.float32)
    for s in range(0, len(flat), 2048):
        V[s:s + 2048] = model.embed(flat[s:s + 2048], chunk=64).numpy()
    out, o = [], 0
    for _, _, ss in docs:
        out.append(V[o:o + len(ss)])
        o += len(ss)
    return out


def para_vectors(paras, S):
    P, o = [], 0
    for p in paras:
        m = S[o:o + len(p)].astype(np.float64).mean(axis=0)
        P.append(m / max(np.linalg.norm(m), 1e-12))
        o += len(p)
    return np.array(P)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layers", type=int, default=3, help="top MiniLM layers trained (0: head only, cached vectors)")
    ap.add_argument("--budget", type=float, default=720, help="training seconds")
    ap.add_argument("--docs", type=int, default=12)
    ap.add_argument("--per-doc", type=int, default=6)
    ap.add_argument("--lr", type=float, default=5e-5, help="encoder learning rate")
    ap.add_argument("--head-lr", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--no-dev", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)

    h0 = dict(np.load(WORK / "head.npz"))
    meta0 = json.loads((WORK / "head.json").read_text())
    h0["W2"] = h0["W2"] / meta0["latent_scale"]
    h0["b2"] = h0["b2"] / meta0["latent_scale"]
    model = Encoder(args.layers, h0)

    train_all = read_docs(WORK / "train.bb.jsonl")
    head_idx = [k for k, d in enumerate(train_all) if not for_classifier(d[0]) and len(d[2]) >= 3]
    sig_idx = [k for k, d in enumerate(train_all) if for_classifier(d[0])]
    cached = Corpus(WORK / "train.bb.jsonl") if args.layers == 0 else None
    if cached is not None:
        docs = [torch.tensor(cached.docs[k][3], dtype=torch.float32) for k in head_idx]
    else:
        docs = [train_all[k][2] for k in head_idx]
    print(f"{len(docs)} training documents, {sum(len(d) for d in docs)} sentences; "
          f"sigma on {len(sig_idx)} held-out training documents", flush=True)

    enc_params = [p for n, p in model.named_parameters() if n.startswith("bert.") and p.requires_grad]
    head_params = [model.W1, model.b1, model.W2, model.b2]
    groups = [{"params": head_params, "lr": args.head_lr}]
    if enc_params:
        groups.append({"params": enc_params, "lr": args.lr, "weight_decay": 0.01})
    opt = torch.optim.AdamW(groups, weight_decay=0.0)
    base_lr = [g["lr"] for g in opt.param_groups]
    model.train_mode()
    t0 = time.time()
    step, seen, losses, log = 0, 0, [], []
    while time.time() - t0 < args.budget:
        frac = (time.time() - t0) / args.budget
        for g, b in zip(opt.param_groups, base_lr):  # warm-up 5%, then linear decay
            g["lr"] = b * min(1.0, frac / 0.05, (1 - frac) / 0.95 + 0.05)
        items, trip = sample(rng, docs, args.docs, args.per_doc)
        if cached is not None:
            x = torch.stack([docs[k][p] for k, p in items])
        else:
            x = model.embed([docs[k][p] for k, p in items])
        loss, chance = bridge_loss(model.head(x), trip)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        seen += len(items)
        losses.append(loss.item())
        if step % 20 == 0 or step == 1:
            el = time.time() - t0
            line = f"step {step:5}  loss {np.mean(losses[-20:]):.3f} (chance {chance:.3f})  {seen} sentences  {seen / el:.1f}/s  {el:.0f}s"
            print(line, flush=True)
            log.append(line)
    train_s = time.time() - t0
    print(f"trained {step} steps, {seen} sentence encodings, {train_s:.0f}s", flush=True)

    # sigma_m by MLE on the held-out quarter of the training subset, per level.
    t1 = time.time()
    head = {k: getattr(model, k).detach().double().numpy() for k in ("W1", "b1", "W2", "b2")}
    sig_docs = [train_all[k] for k in sig_idx]
    S_sig = encode_corpus(model, sig_docs, Corpus(WORK / "train.bb.jsonl") if cached is not None else None)
    if cached is not None:
        S_sig = [S_sig[k] for k in sig_idx]
    sent = [bb.head_forward(head, S) for S in S_sig]
    para = [bb.head_forward(head, para_vectors(d[1], S)) for d, S in zip(sig_docs, S_sig)]
    raw = {"sentence": bb.sigma_mle(sent), "paragraph": bb.sigma_mle(para)}
    scale = 1.0 / np.sqrt(min(raw.values()))
    head["W2"] *= scale
    head["b2"] *= scale
    sigma = {k: v * scale**2 for k, v in raw.items()}
    print(f"sigma_m before scaling {raw}, scale {scale:.3f}; {time.time() - t1:.0f}s", flush=True)
    np.savez(args.out / "head.npz", **head)
    meta = {"layers": args.layers, "budget": args.budget, "docs": args.docs, "per_doc": args.per_doc,
            "lr": args.lr, "head_lr": args.head_lr, "seed": args.seed, "steps": step,
            "sentence_encodings": seen, "train_seconds": round(train_s, 1),
            "train_documents": len(docs), "train_sentences": int(sum(len(d) for d in docs)),
            "sigma_documents": len(sig_idx), "sigma": sigma, "sigma_before_scaling": raw,
            "latent_scale": scale, "final_loss": float(np.mean(losses[-20:])), "log": log}
    (args.out / "head.json").write_text(json.dumps(meta, indent=1) + "\n")
    if args.layers > 0:
        torch.save({n: p for n, p in model.bert.state_dict().items()}, args.out / "bert.pt")

    if not args.no_dev:
        t2 = time.time()
        dev = read_docs(SHARED / "dev.jsonl")
        if cached is not None:
            S_dev = [d[3].astype(np.float32) for d in Corpus(SHARED / "dev.jsonl").docs]
        else:
            S_dev = encode_corpus(model, dev)
        off = np.cumsum([0] + [len(S) for S in S_dev])
        np.savez(args.out / "dev.npz", vectors=np.concatenate(S_dev), doc_offsets=off)
        print(f"dev encoded: {off[-1]} sentences, {time.time() - t2:.0f}s", flush=True)


if __name__ == "__main__":
    main()
