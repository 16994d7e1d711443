"""Writes the paragraph reader's dev outputs where heldout.py reads a pair model's logits, so the
order objective's weights can be searched with the reader in place of the pair cross-encoder:

    target/xenc/venv/bin/python -m models.train.ordering.reader.dev_logits [CHECKPOINT] [NAME]
    models/train/.venv/bin/python -m models.train.ordering.heldout --joint NAME cached

X[i][j] is the reader's antisymmetric precedence logit (so heldout.py's (X - X^T)/2 is that logit),
N[i][j] its successor logit; both indexed in gold order, as heldout.py's instances are.
"""
import sys
import numpy as np, torch

from models.train.ordering.reader import train as RT

ckpt = sys.argv[1] if len(sys.argv) > 1 else str(RT.R / "target/xenc/reader.pt")
name = sys.argv[2] if len(sys.argv) > 2 else "reader"
model = RT.Reader(); model.load_state_dict(torch.load(ckpt)); model.eval()
for kind, paras in (("abstracts", RT.abstracts), ("paragraphs", RT.heldout)):
    arrays = {}
    for k, (rb, lp, ls, p, s) in enumerate(RT.outputs(model, paras, raw=True)):
        arrays[f"d{k}"] = p.astype(np.float32); arrays[f"n{k}"] = s.astype(np.float32)
    out = RT.R / "target" / "xenc" / f"heldout-{name}-{kind}.npz"
    np.savez(out, **arrays)
    print("wrote", out, len(paras), "sets", flush=True)
