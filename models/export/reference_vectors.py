#!/usr/bin/env python3
"""Write tests/fixtures/embeddings/reference.json: Python onnxruntime's embeddings of varied
sentences, which the Rust encoder must reproduce within 1e-4 (server/tests/model.rs).

Tokenization mirrors the Rust encoder: tokenizer.json with truncation to 256 tokens, no padding
for single sentences. The script also checks that padding a batch does not change the vectors.

Run after models/install:  models/.venv/bin/python models/export/reference_vectors.py
"""

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import tokenizers
from tokenizers import Tokenizer

ROOT = Path(__file__).resolve().parents[2]
MODEL_DIR = ROOT / "models" / "onnx" / "minilm"
OUT = ROOT / "tests" / "fixtures" / "embeddings" / "reference.json"
MAX_TOKENS = 256

SENTENCES = [
    "The parser splits each paragraph into sentences.",
    "Every paragraph is divided into sentences by the parser.",
    "Bananas ripen faster in a paper bag.",
    "Short.",
    "A",
    "Dr. Smith arrived at 3 p.m. and left at 4:15, didn't she?",
    "Café, naïve, résumé and jalapeño keep their accents.",
    "Der schnelle braune Fuchs springt über den faulen Hund.",
    "Съешь же ещё этих мягких французских булок.",
    "東京は日本の首都です。",
    "مرحبا بالعالم",
    "Emoji 🙂 and symbols → ≠ ∑ are rare in prose.",
    "See https://example.org/a?b=c for details (section 2.1).",
    "“Quoted” text — with dashes – and ‘single’ quotes.",
    "UPPER CASE AND lower case MIX the same words.",
    "  Leading and   trailing   whitespace  ",
    "Numbers like 3.14159, 1,000,000 and 42% appear in reports.",
    "The model runs on the CPU unless CUDA is available and working.",
    " ".join(["Coherence depends on how each sentence follows from the one before it, and this sentence repeats that claim."] * 14),
    "",
]


def main():
    tok = Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
    tok.enable_truncation(MAX_TOKENS)
    tok.no_padding()
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    sess = ort.InferenceSession(str(MODEL_DIR / "model.onnx"), so, providers=["CPUExecutionProvider"])

    rows = []
    singles = []
    for text in SENTENCES:
        enc = tok.encode(text)
        ids = np.array([enc.ids], np.int64)
        mask = np.array([enc.attention_mask], np.int64)
        vec = sess.run(["sentence_embedding"], {"input_ids": ids, "attention_mask": mask})[0][0]
        singles.append(vec)
        full = Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
        full.no_truncation()
        full.no_padding()
        rows.append(
            {
                "text": text,
                "token_ids": enc.ids,
                "truncated": len(full.encode(text).ids) > MAX_TOKENS,
                "embedding": [float(f"{x:.8g}") for x in vec.tolist()],
            }
        )

    # Padding a batch must not change any vector.
    tok.enable_padding()
    encs = tok.encode_batch(SENTENCES)
    ids = np.array([e.ids for e in encs], np.int64)
    mask = np.array([e.attention_mask for e in encs], np.int64)
    batched = sess.run(["sentence_embedding"], {"input_ids": ids, "attention_mask": mask})[0]
    worst = float(np.abs(batched - np.array(singles)).max())
    if worst > 1e-5:
        sys.exit(f"padding changes the embeddings by up to {worst}")
    assert any(r["truncated"] for r in rows), "no sentence is long enough to be truncated"

    model_sha = hashlib.sha256((MODEL_DIR / "model.onnx").read_bytes()).hexdigest()
    out = {
        "model": "all-MiniLM-L6-v2",
        "model_sha256": model_sha,
        "onnxruntime": ort.__version__,
        "tokenizers": tokenizers.__version__,
        "max_tokens": MAX_TOKENS,
        "tolerance": 1e-4,
        "padding_max_abs_diff": worst,
        "sentences": rows,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    head = {k: v for k, v in out.items() if k != "sentences"}
    lines = ",\n".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in rows)
    text = json.dumps(head, ensure_ascii=False, indent=1)[:-2] + ',\n "sentences": [\n' + lines + "\n ]\n}\n"
    json.loads(text)
    OUT.write_text(text)
    print(f"wrote {OUT} ({len(rows)} sentences; batch padding changes vectors by at most {worst:.2e})")


if __name__ == "__main__":
    main()
