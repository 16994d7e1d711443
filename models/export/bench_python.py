#!/usr/bin/env python3
"""Python onnxruntime baseline for server/benches/encoder.rs (which runs this script itself).

Does what the Rust encoder does, the same way: tokenize (tokenizer.json, truncation to 256),
sort by token length, cut into batches, pad each batch to its longest sentence, run
model.onnx on the CPU provider (or CUDA with --cuda, which needs the onnxruntime-gpu build) with
the given intra-op thread count. Prints one JSON object:
{"load_s", "rss_mib", "sentences", "threads", "results": {batch: sentences_per_second}}.

Usage: bench_python.py SENTENCES_JSON --threads N [--spin] [--cuda] --batches 1,8,32,64 [--reps 3]
       bench_python.py SENTENCES_JSON --threads N [--spin] [--cuda] --serve
  SENTENCES_JSON is a JSON list of strings. With --serve (used by the Rust benchmark, which
  interleaves its own runs with these so that both sides see the same machine load), it prints
  {"load_s"} once, then for each batch size read from stdin the seconds one pass took, and on
  "quit" {"rss_mib"}.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

MODEL_DIR = Path(__file__).resolve().parents[1] / "onnx" / "minilm"


def peak_rss_mib():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return None


def encode(sess, tok, texts, batch):
    encs = tok.encode_batch(texts)
    order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))
    out = [None] * len(texts)
    for start in range(0, len(order), batch):
        idx = order[start : start + batch]
        width = max(len(encs[i].ids) for i in idx)
        ids = np.zeros((len(idx), width), np.int64)
        mask = np.zeros((len(idx), width), np.int64)
        for row, i in enumerate(idx):
            n = len(encs[i].ids)
            ids[row, :n] = encs[i].ids
            mask[row, :n] = encs[i].attention_mask
        vecs = sess.run(["sentence_embedding"], {"input_ids": ids, "attention_mask": mask})[0]
        for row, i in enumerate(idx):
            out[i] = vecs[row]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sentences")
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--batches", default="1,8,32,64")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--spin", action="store_true", help="let ONNX Runtime threads spin (default off, as in Segue)")
    ap.add_argument("--cuda", action="store_true", help="run on CUDAExecutionProvider (onnxruntime-gpu)")
    ap.add_argument("--serve", action="store_true")
    args = ap.parse_args()
    texts = json.loads(Path(args.sentences).read_text())

    t = time.perf_counter()
    tok = Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
    tok.enable_truncation(256)
    tok.no_padding()
    so = ort.SessionOptions()
    so.intra_op_num_threads = args.threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    spin = "1" if args.spin else "0"
    so.add_session_config_entry("session.intra_op.allow_spinning", spin)
    so.add_session_config_entry("session.inter_op.allow_spinning", spin)
    provider = "CUDAExecutionProvider" if args.cuda else "CPUExecutionProvider"
    sess = ort.InferenceSession(str(MODEL_DIR / "model.onnx"), so, providers=[provider])
    if sess.get_providers()[0] != provider:
        sys.exit(f"bench_python.py: {provider} is not available (providers: {sess.get_providers()})")
    load_s = time.perf_counter() - t

    encode(sess, tok, texts[:64], 32)  # warm up
    if args.serve:
        print(json.dumps({"load_s": load_s}), flush=True)
        for line in sys.stdin:
            cmd = line.strip()
            if cmd == "quit":
                break
            print(json.dumps({"seconds": _timed(sess, tok, texts, int(cmd))}), flush=True)
        print(json.dumps({"rss_mib": peak_rss_mib()}), flush=True)
        return
    results = {}
    for b in [int(x) for x in args.batches.split(",")]:
        best = min(_timed(sess, tok, texts, b) for _ in range(args.reps))
        results[b] = len(texts) / best
    print(json.dumps({"load_s": load_s, "rss_mib": peak_rss_mib(), "sentences": len(texts), "threads": args.threads, "results": results}))


def _timed(sess, tok, texts, b):
    t = time.perf_counter()
    encode(sess, tok, texts, b)
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
