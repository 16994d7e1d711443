#!/usr/bin/env python3
"""Static word vectors for tier 0: a table of one vector per WordPiece token of the sentence
encoder (all-MiniLM-L6-v2), so that the built-in tier can place a unit's meaning without running
a model (server/src/score/static_vectors.rs, models/tier0/README.md).

    table   builds models/tier0/static-vectors.bin:
            - each of the encoder's 30,522 tokens is embedded alone (`[CLS] token [SEP]`, the
              encoder's pooled, unit-length output; about 10 s on 2 cores);
            - the table's mean vector is subtracted (it is shared by every token: without it
              every unit points the same way);
            - each row is scaled by its SIF weight a / (a + p), a = 1e-3, p the token's share of
              the tokens of the real-prose train part (tests/prose/; frequent tokens count less);
            - special tokens get a zero row;
            - each row is stored as 4-bit integers in [-7, 7] with its own float32 scale (as
              good as int8 on the intrusion model's dev figures, at half the size: 6 MB).
    embed   writes target/embeddings/static-prose-PART.npz for the intrusion trainer, in
            embed.py's layout: one row per sentence, the sum of its tokens' rows, exactly as the
            Rust side computes it (not normalised: a paragraph's vector is the sum of its
            sentences', whose direction the trainer's mean gives).

The unit's text is tokenised with the encoder's tokenizer (lower-cased, accents stripped,
WordPiece), without special tokens and without truncation.

    models/train/.venv/bin/python models/train/static_vectors.py table
    for p in train dev; do models/train/.venv/bin/python models/train/static_vectors.py embed $p; done
    models/train/.venv/bin/python -m models.train.intrusion.train --vectors static --excerpts 10
"""
import argparse
import json
import struct
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
MODEL_DIR = ROOT / "models" / "onnx" / "minilm"
TABLE = ROOT / "models" / "tier0" / "static-vectors.bin"
MAGIC = b"SEGUESV4"  # then u32 vocabulary, u32 dimension; f32 scales; rows of packed nibbles
LEVELS = 7
SIF_A = 1e-3
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def tokenizer():
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return tok


def sentences_of(part):
    rows = [json.loads(l) for l in open(ROOT / "target" / "intrusion" / f"prose-{part}.jsonl")]
    return rows, [s for r in rows for p in r["paragraphs"] for s in p]


def build_table(threads):
    import onnxruntime as ort

    if not (MODEL_DIR / "model.onnx").exists():
        sys.exit(f"{MODEL_DIR}/model.onnx is missing: run models/install first")
    tok = tokenizer()
    vocab = tok.get_vocab_size()
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    session = ort.InferenceSession(str(MODEL_DIR / "model.onnx"), opts, providers=["CPUExecutionProvider"])
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    t0 = time.time()
    E = np.zeros((vocab, 384), dtype=np.float64)
    for start in range(0, vocab, 1024):
        ids = np.arange(start, min(vocab, start + 1024))
        batch = np.stack([np.full(len(ids), cls), ids, np.full(len(ids), sep)], 1).astype(np.int64)
        (vec,) = session.run(["sentence_embedding"], {"input_ids": batch, "attention_mask": np.ones_like(batch)})
        E[ids] = vec
    print(f"embedded {vocab} tokens in {time.time() - t0:.1f} s")
    counts = Counter()
    _, sentences = sentences_of("train")
    for enc in tok.encode_batch(sentences, add_special_tokens=False):
        counts.update(enc.ids)
    total = sum(counts.values())
    p = np.array([counts.get(i, 0) / total for i in range(vocab)])
    rows = (E - E.mean(0)) * (SIF_A / (SIF_A + p))[:, None]
    for name in SPECIAL:
        rows[tok.token_to_id(name)] = 0.0
    scale = (np.abs(rows).max(1) / LEVELS).astype(np.float32)
    scale[scale == 0] = 1.0
    q = np.clip(np.round(rows / scale[:, None]), -LEVELS, LEVELS).astype(np.int8)
    err = np.abs(q * scale[:, None].astype(np.float64) - rows).max()
    nibbles = (q & 0x0F).astype(np.uint8)
    packed = nibbles[:, 0::2] | (nibbles[:, 1::2] << 4)
    TABLE.parent.mkdir(parents=True, exist_ok=True)
    with open(TABLE, "wb") as f:
        f.write(MAGIC)
        f.write(struct.pack("<II", vocab, 384))
        f.write(scale.astype("<f4").tobytes())
        f.write(packed.tobytes())
    print(f"wrote {TABLE}: {vocab} x 384, {TABLE.stat().st_size / 1e6:.1f} MB, "
          f"{total} train tokens, largest rounding error {err:.2e}")


def load_table():
    raw = TABLE.read_bytes()
    if raw[:8] != MAGIC:
        sys.exit(f"{TABLE}: not a static-vector table")
    vocab, dim = struct.unpack("<II", raw[8:16])
    scale = np.frombuffer(raw, "<f4", vocab, 16).astype(np.float64)
    packed = np.frombuffer(raw, np.uint8, vocab * dim // 2, 16 + 4 * vocab).reshape(vocab, dim // 2)
    q = np.zeros((vocab, dim), dtype=np.int8)
    q[:, 0::2], q[:, 1::2] = packed & 0x0F, packed >> 4
    q = np.where(q > 7, q - 16, q)
    return q * scale[:, None]


def embed(part):
    rows, sentences = sentences_of(part)
    table, tok = load_table(), tokenizer()
    out = np.zeros((len(sentences), table.shape[1]), dtype=np.float32)
    for i, enc in enumerate(tok.encode_batch(sentences, add_special_tokens=False)):
        if enc.ids:
            out[i] = table[enc.ids].sum(0)
    doc_offsets, para_offsets, doc_paras, n = [0], [0], [0], 0
    for r in rows:
        for p in r["paragraphs"]:
            n += len(p)
            para_offsets.append(n)
        doc_offsets.append(n)
        doc_paras.append(len(para_offsets) - 1)
    path = ROOT / "target" / "embeddings" / f"static-prose-{part}.npz"
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, vectors=out, doc_offsets=np.array(doc_offsets), para_offsets=np.array(para_offsets),
             doc_paras=np.array(doc_paras), ids=np.array([r["id"] for r in rows]))
    print(f"wrote {path}: {len(rows)} documents, {len(sentences)} sentences")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    t = sub.add_parser("table")
    t.add_argument("--threads", type=int, default=2)
    e = sub.add_parser("embed")
    e.add_argument("part", choices=["train", "dev", "test"])
    args = ap.parse_args()
    if args.command == "table":
        build_table(args.threads)
    else:
        embed(args.part)


if __name__ == "__main__":
    main()
