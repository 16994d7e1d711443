#!/usr/bin/env python3
"""Embed every sentence of a JSONL corpus with the installed sentence encoder (models/onnx/minilm).

Shared by the trainers in models/train/: it caches, per corpus, one float32 row per sentence plus
the document/paragraph structure, in an .npz under target/embeddings/ (gitignored):

  vectors     float32 [sentences, 384]   unit-length MiniLM sentence embeddings
  doc_offsets int64   [documents + 1]    sentence rows of document d: offsets[d]:offsets[d+1]
  para_offsets int64  [paragraphs + 1]   the same for paragraphs
  doc_paras   int64   [documents + 1]    paragraph rows of document d
  ids         str     [documents]

The same ONNX file, tokenizer and truncation (256 tokens) as the Rust runtime, so heads trained
on these vectors see exactly what Segue feeds them.

Usage: embed.py CORPUS.jsonl [--out target/embeddings/NAME.npz] [--limit N] [--threads 2]
"""

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

ROOT = Path(__file__).resolve().parents[2]
MODEL_DIR = ROOT / "models" / "onnx" / "minilm"
MAX_TOKENS = 256
BATCH = 64


def load_corpus(path: Path, limit: int | None):
    docs = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            d = json.loads(line)
            paras = d.get("paragraphs") or [d["sentences"]]
            paras = [p for p in paras if p]
            docs.append((str(d.get("id", len(docs))), paras))
            if limit and len(docs) >= limit:
                break
    return docs


def encoder(threads: int):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    session = ort.InferenceSession(str(MODEL_DIR / "model.onnx"), opts, providers=["CPUExecutionProvider"])
    tok = Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
    tok.enable_truncation(MAX_TOKENS)
    tok.no_padding()
    return session, tok


def embed(sentences, session, tok):
    """Embeds sentences in length-sorted batches; returns rows in input order."""
    enc = tok.encode_batch(sentences)
    order = sorted(range(len(sentences)), key=lambda i: len(enc[i].ids))
    out = np.zeros((len(sentences), 384), dtype=np.float32)
    for start in range(0, len(order), BATCH):
        idx = order[start:start + BATCH]
        width = max(len(enc[i].ids) for i in idx)
        ids = np.zeros((len(idx), width), dtype=np.int64)
        mask = np.zeros((len(idx), width), dtype=np.int64)
        for r, i in enumerate(idx):
            n = len(enc[i].ids)
            ids[r, :n] = enc[i].ids
            mask[r, :n] = 1
        (vec,) = session.run(["sentence_embedding"], {"input_ids": ids, "attention_mask": mask})
        out[idx] = vec
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    if not (MODEL_DIR / "model.onnx").exists():
        sys.exit(f"{MODEL_DIR}/model.onnx is missing: run models/install first")
    out = args.out or ROOT / "target" / "embeddings" / (args.corpus.stem + (f".{args.limit}" if args.limit else "") + ".npz")
    docs = load_corpus(args.corpus, args.limit)
    sentences, doc_offsets, para_offsets, doc_paras = [], [0], [0], [0]
    for _, paras in docs:
        for p in paras:
            sentences.extend(p)
            para_offsets.append(len(sentences))
        doc_offsets.append(len(sentences))
        doc_paras.append(len(para_offsets) - 1)
    digest = hashlib.sha256("\n".join(sentences).encode()).hexdigest()[:16]
    if out.exists():
        cached = np.load(out, allow_pickle=False)
        if str(cached["digest"]) == digest:
            print(f"{out}: up to date ({len(sentences)} sentences)")
            return
    session, tok = encoder(args.threads)
    t0 = time.time()
    vectors = embed(sentences, session, tok)
    dt = time.time() - t0
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, vectors=vectors, doc_offsets=np.array(doc_offsets), para_offsets=np.array(para_offsets),
             doc_paras=np.array(doc_paras), ids=np.array([d[0] for d in docs]), digest=np.array(digest))
    print(f"{out}: {len(docs)} documents, {len(sentences)} sentences in {dt:.1f} s ({len(sentences) / dt:.0f}/s)")


if __name__ == "__main__":
    main()
