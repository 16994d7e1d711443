#!/usr/bin/env python3
"""Trains the ordering heads (sentence and paragraph level), sets the order objective's weights on
dev, exports ONNX and writes models/ordering/.

Data (see subsets.py and models/train/embed.py; embeddings cached under target/embeddings/):
  sentence level  train: paragraphs of train.abstracts.jsonl (3-16 sentences) and paragraphs of
                  3-12 sentences of target/ordering/train.subset.jsonl; dev: paragraphs of 4-10
                  sentences of dev.abstracts.jsonl.
  paragraph level train: documents (windows) of 3-16 paragraphs of train.subset.jsonl;
                  dev: documents of 2-16 paragraphs of dev.jsonl (target/ordering/dev.le16.jsonl).
With --prose, the real-prose corpus's reorder containers join both levels (prose.py: the train
part is trained on, genres balanced; the dev part joins the weight search as a second set).
A tenth of the training instances (by document hash) is held out for early stopping; dev data is
only used to choose hyper-parameters and the objective's weights, never to fit the heads.

Usage, from the repository root: python -m models.train.ordering.train [--level sentence|paragraph|both] [--epochs 40] [--attention 0] [--seed 0]
                [--no-export] [--subset train.subset] [--prose] [--hide GENRE]... [--out DIR] [--tag T]
"""

import argparse
import os
import hashlib
import json
import time
from pathlib import Path

import autograd.numpy as anp
import numpy as np
from autograd import grad

from models.train.ordering import cues, data, decode, model, prose

ROOT = data.ROOT
SHARED = Path(os.environ.get("SEGUE_DATA_DIR") or ROOT.parent / "shared" / "data")
OUT = ROOT / "models" / "ordering"
WORK = ROOT / "target" / "ordering"
DIM = 384


def held_out(doc_id: str) -> bool:
    return int(hashlib.sha256(doc_id.split("#")[0].split("@")[0].encode()).hexdigest(), 16) % 10 == 0


def instances(level: str, shared: Path, subset: str = "train.subset", use_prose: bool = False, hide=()):
    """(fit, hold, dev groups, per-genre counts): the training instances (a tenth held out by
    document for early stopping) and the dev instances the weights are searched on, as a dict of
    named groups. With `use_prose`, the prose corpus's train containers join the reference data
    (genres balanced, `prose.balanced`) and its dev containers join the weight search; `hide`
    leaves genres out of both (the hidden-genre check)."""
    sub = data.load(WORK / f"{subset}.jsonl")
    if level == "sentence":
        abstracts = data.load(shared / "train.abstracts.jsonl")
        train = data.sentence_instances(abstracts, 3, 16) + data.sentence_instances(sub, 3, 12)
        if subset == "train.subset":
            for name in ["train.paras", "train.paras2"]:
                if (WORK / f"{name}.jsonl").exists() and (data.EMB / f"{name}.npz").exists():
                    train += data.sentence_instances(data.load(WORK / f"{name}.jsonl"), 3, 12)
        dev = {"abstracts": data.sentence_instances(data.load(shared / "dev.abstracts.jsonl"), 4, 10)}
    else:
        train = data.paragraph_instances(sub, 3, 16, windows=True)
        dev = {"dev.le16": data.paragraph_instances(data.load(WORK / "dev.le16.jsonl"), 2, 16)}
    groups = {prose.REFERENCE: train}
    if use_prose:
        for genre, inst in prose.instances(prose.load("train", hide), level):
            groups.setdefault(genre, []).append(inst)
        dev["prose"] = [i for _, i in prose.instances(prose.load("dev", hide), level)]
    fit_groups = {g: [i for i in v if not held_out(i.doc)] for g, v in groups.items()}
    hold = [i for v in groups.values() for i in v if held_out(i.doc)]
    fit, repeat = prose.balanced(fit_groups) if use_prose else (fit_groups[prose.REFERENCE], {})
    counts = {g: {"instances": len(v), "repeat": repeat.get(g, 1)} for g, v in sorted(fit_groups.items())}
    return fit, hold, dev, counts


def batches(insts, size, rng=None):
    order = sorted(range(len(insts)), key=lambda k: len(insts[k].x))
    chunks = [order[i:i + size] for i in range(0, len(order), size)]
    if rng is not None:
        rng.shuffle(chunks)
    for chunk in chunks:
        n = max(len(insts[k].x) for k in chunk)
        F = insts[chunk[0]].x.shape[1]
        K = insts[chunk[0]].q.shape[2]
        X = np.zeros((len(chunk), n, F), dtype=np.float64)
        M = np.zeros((len(chunk), n))
        Q = np.zeros((len(chunk), n, n, K))
        for r, k in enumerate(chunk):
            m = len(insts[k].x)
            X[r, :m] = insts[k].x
            M[r, :m] = 1
            Q[r, :m, :m] = insts[k].q
        yield X, M, Q


def loss_fn(p, X, M, Q, pos_weight=0.5, succ_weight=1.0, l2=1e-4):
    prec, succ, opening, closing = model.forward(anp, p, X, M, Q)
    B, N = M.shape
    upper = np.triu(np.ones((N, N)), 1)[None]
    pair = M[:, :, None] * M[:, None, :]
    pm = pair * upper
    l_prec = anp.sum(anp.logaddexp(0.0, -prec) * pm) / np.sum(pm)
    # successor: row i (a real unit with a real successor) against all other real units
    eye = np.eye(N)[None]
    valid = pair * (1 - eye)
    s = succ + (valid - 1.0) * 1e9
    smax = anp.max(s, axis=2, keepdims=True)
    lse = anp.log(anp.sum(anp.exp(s - smax), axis=2)) + smax[:, :, 0]
    nxt = np.zeros((B, N, N))
    rows = np.zeros((B, N))
    for b in range(B):
        n = int(M[b].sum())
        for i in range(n - 1):
            nxt[b, i, i + 1] = 1
            rows[b, i] = 1
    gold = anp.sum(succ * nxt, axis=2)
    l_succ = anp.sum((lse - gold) * rows) / np.sum(rows)

    def set_ce(logits, target):
        lg = logits + (M - 1.0) * 1e9
        mx = anp.max(lg, axis=1, keepdims=True)
        lse1 = anp.log(anp.sum(anp.exp(lg - mx), axis=1)) + mx[:, 0]
        return anp.mean(lse1 - anp.sum(logits * target, axis=1))

    first = np.zeros((B, N))
    first[:, 0] = 1
    last = np.zeros((B, N))
    for b in range(B):
        last[b, int(M[b].sum()) - 1] = 1
    l_pos = set_ce(opening, first) + set_ce(closing, last)
    reg = sum(anp.sum(v ** 2) for k, v in p.items() if k.startswith("W"))
    return l_prec + succ_weight * l_succ + pos_weight * l_pos + l2 * reg


def evaluate_loss(p, insts):
    tot, n = 0.0, 0
    for X, M, Q in batches(insts, 64):
        tot += float(loss_fn(p, X, M, Q, l2=0.0)) * len(X)
        n += len(X)
    return tot / max(n, 1)


def train_level(level, fit, hold, epochs, attention, seed, hidden, lr=2e-3, l2=1e-4):
    rng = np.random.default_rng(seed)
    F = fit[0].x.shape[1]
    p = model.init(rng, F, H=hidden, H2=hidden, Hp=hidden // 2, attention=attention)
    g = grad(loss_fn)
    mom = {k: np.zeros_like(v) for k, v in p.items()}
    vel = {k: np.zeros_like(v) for k, v in p.items()}
    t = 0
    best = (float("inf"), None, 0)
    t0 = time.time()
    for ep in range(epochs):
        for X, M, Q in batches(fit, 32, rng):
            t += 1
            gr = g(p, X, M, Q, l2=l2)
            for k in p:
                mom[k] = 0.9 * mom[k] + 0.1 * gr[k]
                vel[k] = 0.999 * vel[k] + 0.001 * gr[k] ** 2
                mh = mom[k] / (1 - 0.9 ** t)
                vh = vel[k] / (1 - 0.999 ** t)
                p[k] = p[k] - lr * mh / (np.sqrt(vh) + 1e-8)
        hl = evaluate_loss(p, hold)
        if hl < best[0]:
            best = (hl, {k: v.copy() for k, v in p.items()}, ep + 1)
        print(f"  {level} epoch {ep + 1}: held-out loss {hl:.4f} ({time.time() - t0:.0f} s)", flush=True)
        if ep + 1 - best[2] >= 6:
            break
    return best[1], {"epochs": best[2], "held_out_loss": best[0], "seconds": time.time() - t0}


def log_softmax(v, mask=None):
    v = v.astype(np.float64)
    if mask is not None:
        v = np.where(mask, v, -np.inf)
    mx = np.max(v)
    return v - (mx + np.log(np.sum(np.exp(v - mx))))


def components(p, inst):
    """The objective's ingredients for one instance, in numpy float64."""
    X = inst.x[None].astype(np.float64)
    M = np.ones((1, len(inst.x)))
    outputs = [np.asarray(a)[0] for a in model.forward(np, p, X, M, inst.q[None].astype(np.float64))]
    return components_of(outputs, inst)


def components_of(outputs, inst):
    """The objective's ingredients from a head's four outputs (precedence, successor, opening,
    closing) on one instance: the numpy forward pass's or an exported head's."""
    prec, succ, opening, closing = (np.asarray(a, dtype=np.float64) for a in outputs)
    n = len(inst.x)
    e = inst.x[:, :DIM].astype(np.float64)
    cos = np.clip(e @ e.T, 0.0, 1.0)
    off = ~np.eye(n, dtype=bool)
    s = np.zeros((n, n))
    for i in range(n):
        s[i] = log_softmax(succ[i], off[i])
    s[~off] = 0.0
    return {
        "prec": decode.log_sigmoid(prec) * off,
        "succ": s,
        "cos": cos,
        "open": log_softmax(opening),
        "close": log_softmax(closing),
    }


def shuffled(comps, seed=13):
    """Each instance's components under a fixed random permutation (as `segue eval` shuffles), so
    that the decoder's tie-breaking cannot favour the gold order; returns (perm, comps)."""
    rng = np.random.default_rng(seed)
    out = []
    for c in comps:
        n = len(c["open"])
        perm = rng.permutation(n)
        cc = {k: (v[np.ix_(perm, perm)] if v.ndim == 2 else v[perm]) for k, v in c.items()}
        out.append((perm, cc))
    return out


def chain_matrix(c, w):
    """The order objective as one transition matrix (see the module docstring of
    server/src/score/ordering/): adjacent terms plus a position potential phi folded in as
    phi(i) - phi(j), whose sum along an order telescopes to phi(first) - phi(last)."""
    borda = c["prec"].sum(1) - c["prec"].sum(0)
    phi = w.get("opening", 0) * c["open"] - w.get("closing", 0) * c["close"] + w.get("borda", 0) * borda
    adj = (w.get("successor", 0) * c["succ"] + w.get("coherence", 0) * c["cos"]
           + w.get("precedence", 0) * c["prec"])
    if "xprec" in c:  # a set model's precedence (weight_search.py), the same two terms
        xborda = c["xprec"].sum(1) - c["xprec"].sum(0)
        phi = phi + w.get("cross_borda", 0) * xborda
        adj = adj + w.get("cross_precedence", 0) * c["xprec"]
    if "xnext" in c:  # the cross-encoder's successor: log P(j directly follows i), softmax over j
        adj = adj + w.get("cross_next", 0) * c["xnext"]
    adj = adj + phi[:, None] - phi[None, :]
    np.fill_diagonal(adj, 0.0)
    return adj


def decode_all(comps, w, glob=False):
    """Decodes every (perm, components) instance; returns predicted orders of gold indices. With
    `glob`, precedence counts over all pairs of the order instead (decode.exact's prec term)."""
    preds = []
    for perm, c in comps:
        if glob:
            adj = w.get("successor", 0) * c["succ"] + w.get("coherence", 0) * c["cos"]
            o = decode.exact(adj, w.get("precedence", 0) * c["prec"], w.get("opening", 0) * c["open"],
                             w.get("closing", 0) * c["close"])
        else:
            o = decode.exact(chain_matrix(c, w))
        preds.append([int(perm[i]) for i in o])
    return preds


def diagnostics(comps):
    """Pairwise precedence accuracy, successor top-1 and opening/closing top-1 on gold data."""
    pairs = pc = succ = sc = op = cl = 0
    for c in comps:
        n = len(c["open"])
        iu = np.triu_indices(n, 1)
        pc += int(np.sum(c["prec"][iu] > np.log(0.5)))
        pairs += len(iu[0])
        for i in range(n - 1):
            row = np.where(np.arange(n) == i, -np.inf, c["succ"][i])
            sc += int(np.argmax(row) == i + 1)
            succ += 1
        op += int(np.argmax(c["open"]) == 0)
        cl += int(np.argmax(c["close"]) == n - 1)
    k = max(len(comps), 1)
    return {"pair_acc": pc / max(pairs, 1), "succ_top1": sc / max(succ, 1), "open_top1": op / k, "close_top1": cl / k}


def criterion(m):
    return m["pmr"] + m["tau"] + m["wlcs"]


GRID = {
    "successor": [0.0, 0.25, 0.5, 1.0, 2.0],
    "coherence": [0.0, 0.5, 1.0, 3.0, 6.0],
    "precedence": [0.0, 0.5, 1.0, 2.0],
    "borda": [0.0, 0.05, 0.1, 0.3],
    "opening": [0.0, 0.5, 1.0, 2.0],
    "closing": [0.0, 0.5, 1.0],
    # Only searched by weight_search.py, where the components carry a set model's "xprec"
    # (and "xnext" when it has a successor output).
    "cross_precedence": [0.0, 0.5, 1.0, 2.0, 4.0],
    "cross_borda": [0.0, 0.05, 0.1, 0.3, 0.6, 1.0],
    "cross_next": [0.0, 0.25, 0.5, 1.0, 2.0, 4.0],
}


HEAD_KEYS = tuple(k for k in GRID if not k.startswith("cross_"))


def grouped(preds, groups):
    """The criterion averaged over `groups` (slices of the decoded instances, one per dev set, so
    that a large set does not drown a small one), and the metrics of all instances pooled."""
    if not groups:
        m = decode.metrics(preds)
        return criterion(m), m
    return float(np.mean([criterion(decode.metrics(preds[a:b])) for a, b in groups])), decode.metrics(preds)


def tune(comps, keys=HEAD_KEYS, start=None, glob=False, rounds=2, groups=None):
    """Weights of the order objective chosen on dev by coordinate ascent over GRID (two rounds),
    maximising PMR + τ + WLCS-l (averaged over `groups` when given). Returns (weights, metrics)."""
    w = {k: 0.0 for k in GRID}
    w.update(start or {"successor": 0.5, "coherence": 1.0, "precedence": 1.0, "opening": 1.0, "closing": 0.5})
    w = {k: (v if k in keys else 0.0) for k, v in w.items()}
    best, m = grouped(decode_all(comps, w, glob), groups)
    for _ in range(rounds):
        for k in keys:
            for v in GRID[k]:
                trial = dict(w, **{k: v})
                score, mt = grouped(decode_all(comps, trial, glob), groups)
                if score > best + 1e-9:
                    best, w, m = score, trial, mt
    return w, m


def slices(dev):
    """The dev groups concatenated, and the (start, end) slice of each."""
    flat, groups = [], []
    for insts in dev.values():
        groups.append((len(flat), len(flat) + len(insts)))
        flat.extend(insts)
    return flat, groups


def systems(comps, full_w):
    """The dev table's model rows (and ablations), each decoded exactly."""
    pair_w, pair_m = tune(comps, keys=("precedence", "borda"), start={"precedence": 1.0})
    rows = {
        "embedding-cosine DP": ({"coherence": 1.0}, None),
        "pairwise model DP": (pair_w, pair_m),
        "successor only DP": ({"successor": 1.0}, None),
        "full model DP": (full_w, None),
    }
    out = {}
    for name, (w, m) in rows.items():
        out[name] = {"weights": {k: v for k, v in w.items() if v}, **(m or decode.metrics(decode_all(comps, w)))}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--level", choices=["sentence", "paragraph", "both"], default="both")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--attention", type=int, default=0)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", type=Path, default=SHARED)
    ap.add_argument("--no-export", action="store_true")
    ap.add_argument("--reuse", action="store_true", help="reuse target/ordering/params-LEVEL[TAG].npz")
    ap.add_argument("--tag", default="", help="suffix of the saved parameter file (sweeps)")
    ap.add_argument("--l2", type=float, default=1e-4)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--subset", default="train.subset",
                    help="the reference corpus under target/ordering/ (train.half: every other document of train.subset)")
    ap.add_argument("--prose", action="store_true",
                    help="add the prose corpus's train containers (prose.py) and search the weights on its dev containers too")
    ap.add_argument("--hide", action="append", default=[], help="leave a prose genre out of training and the weight search")
    ap.add_argument("--out", type=Path, default=OUT, help="where to write the heads and ordering.json (default models/ordering)")
    args = ap.parse_args()
    out_dir = args.out
    out_dir.mkdir(parents=True, exist_ok=True)
    levels = ["sentence", "paragraph"] if args.level == "both" else [args.level]
    meta_path = out_dir / "ordering.json"
    if not meta_path.exists() and (OUT / "ordering.json").exists():
        meta_path.write_text((OUT / "ordering.json").read_text())  # keeps the reader's section
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    meta.update({
        "format": 1,
        "embedding": {"model": "all-MiniLM-L6-v2", "dim": DIM,
                      "paragraph": "mean of the sentence embeddings, renormalised to unit length"},
        "cues": {"version": cues.VERSION, "features": cues.FEATURES},
        "pairs": cues.PAIRS,
        "input": "units [n, dim + cues]: the unit's embedding, then its cue features; "
                 "pairs [n, n, pair cues]: directed pair cues (i before j)",
        "outputs": {"precedence": "[n, n] logit of P(i before j), antisymmetric",
                    "successor": "[n, n] logit that j directly follows i (softmax over j != i)",
                    "opening": "[n] logit over the set of opening the order",
                    "closing": "[n] logit over the set of closing the order"},
        "objective": "sum_{k<l} w.precedence*log sigmoid(precedence[o_k,o_l]) + sum_k (w.successor*"
                     "log_softmax_row(successor)[o_k,o_k+1] + w.coherence*max(0,cos(o_k,o_k+1))) + "
                     "w.opening*log_softmax(opening)[o_0] + w.closing*log_softmax(closing)[o_n-1]",
    })
    meta.setdefault("levels", {})
    for level in levels:
        fit, hold, dev, counts = instances(level, args.data, args.subset, args.prose, args.hide)
        dev_flat, groups = slices(dev)
        print(f"{level}: {len(fit)} training instances ({sum(len(i.x) for i in fit)} units), "
              f"{len(hold)} held out, dev {', '.join(f'{k} {len(v)}' for k, v in dev.items())}; "
              f"per genre {counts}", flush=True)
        saved = WORK / f"params-{level}{args.tag}.npz"
        if args.reuse and saved.exists():
            z = np.load(saved)
            p = {k: z[k] for k in z.files if k != "info"}
            info = json.loads(str(z["info"]))
        else:
            p, info = train_level(level, fit, hold, args.epochs, args.attention, args.seed, args.hidden,
                                  lr=args.lr, l2=args.l2)
            np.savez(saved, info=np.array(json.dumps(info)), **p)
        raw = [components(p, i) for i in dev_flat]
        print(f"{level}: dev diagnostics {diagnostics(raw)}")
        comps = shuffled(raw)
        w, m = tune(comps, groups=groups)
        print(f"{level}: weights {w}: {m}", flush=True)
        first = dict(zip(dev, groups))
        a, b = first[next(iter(dev))]
        table = systems(comps[a:b], w)
        for name, mm in table.items():
            print(f"  {name:<28} PMR {mm['pmr'] * 100:6.2f}  Acc {mm['acc'] * 100:6.2f}  "
                  f"τ {mm['tau']:.3f}  WLCS-l {mm['wlcs']:.4f}")
        others = {}
        for name, (a, b) in first.items():
            if name == next(iter(dev)):
                continue
            others[name] = {k: round(v, 4) for k, v in decode.metrics(decode_all(comps[a:b], w)).items()}
            others[name]["instances"] = b - a
            print(f"  full model DP on {name} ({b - a}): {others[name]}")
        if args.no_export:
            continue
        onnx_path = out_dir / f"{level}.onnx"
        F = fit[0].x.shape[1]
        model.export_onnx(p, onnx_path, F, doc=f"Segue ordering head, {level} level")
        check_onnx(p, onnx_path, dev_flat[:5])
        meta["levels"][level] = {
            "file": onnx_path.name,
            "sha256": hashlib.sha256(onnx_path.read_bytes()).hexdigest(),
            "weights": w,
            "training": {"instances": len(fit), "held_out": len(hold), "attention": args.attention,
                         "hidden": args.hidden, "seed": args.seed, "reference": args.subset,
                         "genres": counts, **info},
            "dev": {"instances": len(dev[next(iter(dev))]), "python_exact_dp": {
                name: {k: (round(v, 4) if isinstance(v, float) else v) for k, v in mm.items()}
                for name, mm in table.items()}, **({"other_sets": others} if others else {})},
        }
    if not args.no_export:
        meta_path.write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
        write_fixture(out_dir)
        print(f"wrote {meta_path}")


def check_onnx(p, path, insts):
    import onnxruntime as ort
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for inst in insts:
        out = sess.run(None, {"units": inst.x.astype(np.float32), "pairs": inst.q})
        ref = [np.asarray(a)[0] for a in model.forward(np, p, inst.x[None].astype(np.float64), np.ones((1, len(inst.x))), inst.q[None].astype(np.float64))]
        for a, b in zip(out, ref):
            if not np.allclose(a, b, atol=1e-3, rtol=1e-3):
                raise SystemExit(f"{path}: ONNX output differs from the numpy forward pass")
    print(f"{path}: {path.stat().st_size / 1024:.0f} KiB, matches the numpy forward pass")


def write_fixture(out_dir):
    """Units with their cue vectors, the pair cues of the set, and each head's outputs on it with
    fixed vectors, for the Rust parity test (server/tests/ordering.rs)."""
    import onnxruntime as ort
    samples = [
        ["However, this is not the whole story."], ["It also supports the same options:"],
        ["For example, the `Vec` type grows."], ["In this chapter, we’ll look at ownership!"],
        ["\u201cWell,\u201d said Emma, \u201cit is so.\u201d"], ["The  results\tare shown below?"],
        ["Finally", "a second sentence.", "And a third one"], ["An \u00dcberraschung: na\u00efve caf\u00e9s, e.g. here."],
        ["  'Twas brillig -- and the slithy toves  "], [""], ["...And then? (Yes.)"],
        ["A closure is a function.", "The closure captures values of the scope."],
    ]
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(len(samples), DIM)).astype(np.float32)
    vectors = np.round(vectors / np.linalg.norm(vectors, axis=1, keepdims=True), 4).astype(np.float32)
    x = np.stack([np.concatenate([v, np.asarray(cues.unit_cues(s), dtype=np.float32)]) for v, s in zip(vectors, samples)])
    q = cues.pair_matrix(samples)
    fx = {
        "units": [{"sentences": s, "cues": cues.unit_cues(s)} for s in samples],
        "vectors": [[round(float(a), 4) for a in v] for v in vectors],
        "pairs": q.reshape(-1).tolist(),
        "heads": {},
    }
    for level in ["sentence", "paragraph"]:
        path = out_dir / f"{level}.onnx"
        if path.exists():
            sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
            out = sess.run(["precedence", "successor", "opening", "closing"], {"units": x.astype(np.float32), "pairs": q})
            fx["heads"][level] = {k: [round(float(a), 5) for a in np.asarray(v).reshape(-1)] for k, v in
                                  zip(["precedence", "successor", "opening", "closing"], out)}
    (out_dir / "fixture.json").write_text(json.dumps(fx, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
