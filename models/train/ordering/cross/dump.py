"""Cross-encoder logits L[i, j] ("i before j") for every dev abstract instance (4-10 sentences)."""
from pathlib import Path
import json, sys
import numpy as np, torch
sys.argv = [sys.argv[0], "0"]
exec(open(str(Path(__file__).resolve().parent / "finetune.py")).read().split("model = Cross()")[0])
model = Cross(); model.load_state_dict(torch.load(R + "target/xenc/cross.pt")); model.eval()
out = {}
with torch.no_grad():
    for k, p in enumerate(dev):
        n = len(p); pairs = [(p[i], p[j]) for i in range(n) for j in range(n) if i != j]
        logit = []
        for s in range(0, len(pairs), 64):
            logit += model(*batch(pairs[s:s + 64])).tolist()
        L = np.zeros((n, n)); it = iter(logit)
        for i in range(n):
            for j in range(n):
                if i != j: L[i, j] = next(it)
        out[f"d{k}"] = L
np.savez(R + "target/xenc/dev_logits.npz", **out)
print(len(out), "instances")
