"""Tune the order objective on dev with and without the cross-encoder's precedence term."""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import numpy as np
import train as T, data, decode
shared = Path("/work/shared/data")
p = dict(np.load(str(Path(__file__).resolve().parents[4]) + "/target/ordering/params-sentence.npz"))
dev = data.sentence_instances(data.load(shared / "dev.abstracts.jsonl"), 4, 10)
L = np.load(str(Path(__file__).resolve().parents[4]) + "/target/xenc/dev_logits.npz")
comps = [T.components(p, inst) for inst in dev]
assert len(comps) == len(L.files), (len(comps), len(L.files))
for k, c in enumerate(comps):
    X = L[f"d{k}"]; n = len(X); assert n == len(c["open"])
    off = ~np.eye(n, dtype=bool)
    c["xprec"] = decode.log_sigmoid((X - X.T) / 2) * off
sh = T.shuffled(comps)
base_w, base_m = T.tune(sh)
print("head only   ", {k: v for k, v in base_w.items() if v}, {k: round(v, 4) for k, v in base_m.items()})
# cross-encoder alone: global precedence (decode.exact's prec term)
def xonly(glob_w):
    preds = []
    for perm, c in sh:
        n = len(c["open"])
        o = decode.exact(np.zeros((n, n)), glob_w * c["xprec"])
        preds.append([int(perm[i]) for i in o])
    return decode.metrics(preds)
print("cross only  ", {k: round(v, 4) for k, v in xonly(1.0).items()})
# combined: swap the head's precedence for the cross-encoder's, then add it, tuned on dev
T.GRID["xprec"] = [0.0, 0.5, 1.0, 2.0]
T.GRID["xborda"] = [0.0, 0.05, 0.1, 0.3]
orig_chain = T.chain_matrix
def chain(c, w):
    adj = orig_chain(c, w)
    xb = c["xprec"].sum(1) - c["xprec"].sum(0)
    phi = w.get("xborda", 0) * xb
    adj = adj + w.get("xprec", 0) * c["xprec"] + phi[:, None] - phi[None, :]
    np.fill_diagonal(adj, 0.0)
    return adj
T.chain_matrix = chain
w, m = T.tune(sh, keys=tuple(T.GRID), start=dict(base_w, xprec=1.0, xborda=0.1))
print("head + cross", {k: v for k, v in w.items() if v}, {k: round(v, 4) for k, v in m.items()})
