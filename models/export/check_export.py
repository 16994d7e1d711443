#!/usr/bin/env python3
"""Check an exported encoder against transformers + PyTorch (a one-off check, not part of install).

Runs the same sentences through (a) the ONNX graph written by export_minilm.py (or models/research/export_mpnet.py)
(onnxruntime, CPU) and (b) transformers' AutoModel on the same weights with sentence-transformers'
post-processing written out (mean pooling over the attention mask, then L2 normalisation), one
sentence at a time and as one padded batch, and prints the largest absolute difference.

It needs torch and transformers, which Segue never installs: use a scratch venv (see
docs/research-log.md, "a larger sentence encoder"). Exit 1 when a difference is above --tol.

Usage: check_export.py MODEL_DIR MODEL_ONNX TOKENIZER_JSON [--max-tokens N] [--tol 1e-4]
"""

import argparse
import sys

import numpy as np
import onnxruntime as ort
import torch
from tokenizers import Tokenizer
from transformers import AutoModel

SENTENCES = [
    "The quick brown fox jumps over the lazy dog.",
    "A fast auxiliary verb is not a thing, but a fast fox is.",
    "Ownership rules let Rust make memory safety guarantees without a garbage collector.",
    "Mr. Speaker, Mr. Vice President, members of Congress, distinguished guests, and fellow citizens.",
    "Catherine was fond of all boys' plays, and greatly preferred cricket to dolls.",
    "Die Katze sitzt auf der Matte.",
    "Кошка сидит на ковре.",
    "猫がマットの上に座っている。",
    "Emoji 🎉 and a URL https://example.org/a?b=c in one sentence.",
    "short",
    " ".join(["Long sentences are truncated at the model's maximum length."] * 60),
]


def onnx_vectors(path, ids, mask):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    return sess.run(["sentence_embedding"], {"input_ids": ids, "attention_mask": mask})[0]


def torch_vectors(model, ids, mask):
    with torch.no_grad():
        ids_t, mask_t = torch.from_numpy(ids), torch.from_numpy(mask)
        h = model(input_ids=ids_t, attention_mask=mask_t).last_hidden_state
        m = mask_t.unsqueeze(-1).to(h.dtype)
        mean = (h * m).sum(1) / m.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(mean, p=2, dim=1).numpy()


def batch(tok, texts, pad_id):
    enc = tok.encode_batch(texts)
    width = max(len(e.ids) for e in enc)
    ids = np.full((len(enc), width), pad_id, np.int64)
    mask = np.zeros((len(enc), width), np.int64)
    for r, e in enumerate(enc):
        ids[r, : len(e.ids)] = e.ids
        mask[r, : len(e.ids)] = 1
    return ids, mask


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model_dir")
    ap.add_argument("onnx")
    ap.add_argument("tokenizer")
    ap.add_argument("--max-tokens", type=int, default=256)
    ap.add_argument("--tol", type=float, default=1e-4)
    args = ap.parse_args()

    torch.set_num_threads(2)
    model = AutoModel.from_pretrained(args.model_dir, add_pooling_layer=False).eval()
    pad_id = model.config.pad_token_id or 0
    tok = Tokenizer.from_file(args.tokenizer)
    tok.enable_truncation(args.max_tokens)
    tok.no_padding()

    worst = 0.0
    singles_onnx, singles_torch = [], []
    for s in SENTENCES:
        ids, mask = batch(tok, [s], pad_id)
        singles_onnx.append(onnx_vectors(args.onnx, ids, mask)[0])
        singles_torch.append(torch_vectors(model, ids, mask)[0])
    d_single = float(np.abs(np.array(singles_onnx) - np.array(singles_torch)).max())
    ids, mask = batch(tok, SENTENCES, pad_id)
    b_onnx = onnx_vectors(args.onnx, ids, mask)
    b_torch = torch_vectors(model, ids, mask)
    d_batch = float(np.abs(b_onnx - b_torch).max())
    d_pad = float(np.abs(b_onnx - np.array(singles_onnx)).max())
    worst = max(d_single, d_batch)
    cos = np.array(singles_onnx) @ np.array(singles_onnx).T
    print(f"{args.onnx}: {len(SENTENCES)} sentences, dim {b_onnx.shape[1]}")
    print(f"  max |onnx - torch|, one at a time: {d_single:.3g}")
    print(f"  max |onnx - torch|, padded batch:  {d_batch:.3g}")
    print(f"  max |onnx batch - onnx single| (padding effect): {d_pad:.3g}")
    print(f"  cosine(fox, fox-ish) {cos[0, 1]:.3f}; cosine(fox, Rust) {cos[0, 2]:.3f}; cosine(cat de, cat ru) {cos[5, 6]:.3f}")
    if worst > args.tol:
        print(f"  FAIL: above the tolerance {args.tol}")
        sys.exit(1)
    print(f"  ok (tolerance {args.tol})")


if __name__ == "__main__":
    main()
