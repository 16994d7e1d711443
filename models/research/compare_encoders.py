#!/usr/bin/env python3
"""Compare sentence encoders for Segue's `embedding` scorer: quality on dev data, and speed.

One run measures every encoder given, on the same data and the same seeded degradations, so the
figures are comparable (docs/research-log.md, 2026-11-23, has the results).

Quality (dev split only; never a test split): a fixed subset of the dev corpus (every --every-th
document, from the first; every source is covered). For each document, degraded orders are drawn
once, with a seeded RNG per document and degradation, the same for every encoder:
  D1  a full shuffle of the units (seed 001's D_b with b = 1; 5 per document);
  R1  one unit taken out and put back at a different random position (seed 002; 5 per document;
      the same move as server/src/eval/degrade.rs `shift`).
A document's score is the mean cosine of adjacent unit vectors (the `embedding` scorer's order
score); the encoder is right when the original scores higher than the degraded copy, ties count
half. Sentence level: all the document's sentences in one sequence. Paragraph level: a paragraph's
vector is the mean of its sentence vectors, renormalised (as in server/src/score). The difference
between two encoders comes with a 95 % bootstrap interval over documents (2,000 resamples).

Speed: the first --speed-sentences sentences of the subset, tokenized, sorted by length, cut into
batches of 1 and 32, each batch padded to its longest sentence (as the Rust encoder does); ONNX
Runtime CPU provider, --threads intra-op threads, 1 inter-op thread, spinning off. Passes
alternate between the encoders so that load from other work hits them alike; the best of --passes
is reported. "Paragraph" latency: all the sentences of one paragraph embedded as one batch (what an
edit costs when a whole paragraph is re-embedded), median and 95th percentile over --paragraphs
paragraphs of the subset. Model load time and peak RSS come from a separate process per encoder
(load, then one batch-32 pass over the speed sentences; VmHWM).

Usage:
  compare_encoders.py [--data ../shared/data/dev.jsonl] [--every 3] [--threads 2]
      --encoder NAME=MODEL_ONNX,TOKENIZER_JSON,MAX_TOKENS[,PAD_ID] (repeat; the first is the baseline)
      [--json OUT.json]
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

SEED = 13  # as `segue eval`'s default
COPIES = 5


# ---------------------------------------------------------------------------- encoders

class Encoder:
    def __init__(self, spec: str, threads: int):
        name, rest = spec.split("=", 1)
        parts = rest.split(",")
        self.name = name
        self.onnx = parts[0]
        self.tokenizer_path = parts[1]
        self.max_tokens = int(parts[2])
        self.pad_id = int(parts[3]) if len(parts) > 3 else 0
        self.threads = threads
        self.spec = spec
        self.tok = Tokenizer.from_file(self.tokenizer_path)
        self.tok.enable_truncation(self.max_tokens)
        self.tok.no_padding()
        self.session = None

    def load(self):
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self.threads
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
        self.session = ort.InferenceSession(self.onnx, opts, providers=["CPUExecutionProvider"])
        return self

    def run_batch(self, encs):
        width = max(len(e.ids) for e in encs)
        ids = np.full((len(encs), width), self.pad_id, np.int64)
        mask = np.zeros((len(encs), width), np.int64)
        for r, e in enumerate(encs):
            ids[r, : len(e.ids)] = e.ids
            mask[r, : len(e.ids)] = 1
        return self.session.run(["sentence_embedding"], {"input_ids": ids, "attention_mask": mask})[0]

    def embed(self, sentences, batch=32):
        """Tokenize, sort by length, batch, pad per batch, run; rows in input order."""
        encs = self.tok.encode_batch(sentences)
        order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))
        out = None
        for start in range(0, len(order), batch):
            idx = order[start : start + batch]
            vecs = self.run_batch([encs[i] for i in idx])
            if out is None:
                out = np.zeros((len(sentences), vecs.shape[1]), np.float32)
            out[idx] = vecs
        return out


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


# ---------------------------------------------------------------------------- data and degradations

def load_subset(path, every):
    docs = []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(l for l in f if l.strip()):
            if i % every:
                continue
            d = json.loads(line)
            paras = [p for p in d["paragraphs"] if p]
            docs.append({"index": i, "id": d["id"], "source": d["id"].split(":")[0], "paras": paras})
    return docs


def rng_for(doc_index, level, kind):
    # One stream per document, level and degradation: adding one changes no other's draws.
    return np.random.default_rng([SEED, doc_index, {"sentence": 0, "paragraph": 1}[level], {"D1": 0, "R1": 1}[kind]])


def degraded(n, kind, rng):
    """COPIES non-identity permutations of range(n) (None when n < 2)."""
    if n < 2:
        return None
    ident = list(range(n))
    out = []
    for _ in range(COPIES):
        for _try in range(32):
            if kind == "D1":
                o = list(rng.permutation(n))
            else:  # R1: degrade.rs `shift` with k = 1
                o = list(ident)
                frm = int(rng.integers(0, n))
                to = int(rng.integers(0, n - 1))
                if to >= frm:
                    to += 1
                o.insert(to, o.pop(frm))
            if o != ident:
                break
        out.append(o)
    return out


def order_score(vecs, order):
    v = vecs[order]
    return float(np.mean(np.sum(v[:-1] * v[1:], axis=1)))


def accuracy_per_doc(unit_vecs, perms):
    """Per-document accuracy (ties half) of the original order against its degraded copies."""
    orig = order_score(unit_vecs, list(range(len(unit_vecs))))
    wins = []
    for p in perms:
        s = order_score(unit_vecs, p)
        wins.append(1.0 if orig > s + 1e-12 else 0.5 if abs(orig - s) <= 1e-12 else 0.0)
    return float(np.mean(wins))


def paragraph_vectors(sent_vecs, paras):
    out, k = [], 0
    for p in paras:
        m = sent_vecs[k : k + len(p)].mean(axis=0)
        out.append(m / max(np.linalg.norm(m), 1e-12))
        k += len(p)
    return np.array(out, np.float32)


# ---------------------------------------------------------------------------- worker (load time, RSS)

def peak_rss_mib():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return None


def worker(spec, threads, sentences_json):
    sentences = json.loads(Path(sentences_json).read_text())
    t = time.perf_counter()
    enc = Encoder(spec, threads).load()
    load_s = time.perf_counter() - t
    enc.embed(sentences, batch=32)
    print(json.dumps({"load_s": load_s, "rss_mib": peak_rss_mib()}))


# ---------------------------------------------------------------------------- main

def ordinal(n):
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def bootstrap_ci(diff, rng, n=2000):
    idx = rng.integers(0, len(diff), size=(n, len(diff)))
    means = diff[idx].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "dev.jsonl"))
    ap.add_argument("--every", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--encoder", action="append", required=True)
    ap.add_argument("--speed-sentences", type=int, default=256)
    ap.add_argument("--paragraphs", type=int, default=100)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--worker-sentences", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.threads, args.worker_sentences)
        return
    if "test" in Path(args.data).name:
        sys.exit("compare_encoders.py: dev data only (the file name contains 'test')")

    t0 = time.time()
    load0 = os.getloadavg()[0]
    docs = load_subset(args.data, args.every)
    sentences = [s for d in docs for p in d["paras"] for s in p]
    encoders = [Encoder(spec, args.threads).load() for spec in args.encoder]
    report = {
        "data": os.path.relpath(os.path.realpath(args.data)),
        "data_sha256": sha256(args.data),
        "every": args.every,
        "documents": len(docs),
        "sentences": len(sentences),
        "paragraphs": sum(len(d["paras"]) for d in docs),
        "sources": {s: sum(d["source"] == s for d in docs) for s in sorted({d["source"] for d in docs})},
        "threads": args.threads,
        "encoders": {},
    }
    print(f"subset: every {ordinal(args.every)} document of {args.data}: {len(docs)} documents, {len(sentences)} sentences, "
          f"{report['paragraphs']} paragraphs; sources {report['sources']}", file=sys.stderr)

    # ---- quality
    per_doc = {}
    for enc in encoders:
        t = time.perf_counter()
        vecs = enc.embed(sentences, batch=32)
        embed_s = time.perf_counter() - t
        print(f"{enc.name}: embedded {len(sentences)} sentences in {embed_s:.1f}s", file=sys.stderr)
        rows = {"sentence D1": [], "sentence R1": [], "paragraph D1": [], "paragraph R1": []}
        k = 0
        for d in docs:
            n_s = sum(len(p) for p in d["paras"])
            sv = vecs[k : k + n_s]
            k += n_s
            pv = paragraph_vectors(sv, d["paras"])
            for level, uv in (("sentence", sv), ("paragraph", pv)):
                for kind in ("D1", "R1"):
                    perms = degraded(len(uv), kind, rng_for(d["index"], level, kind))
                    rows[f"{level} {kind}"].append(np.nan if perms is None else accuracy_per_doc(uv, perms))
        per_doc[enc.name] = {key: np.array(v) for key, v in rows.items()}
        report["encoders"][enc.name] = {
            "spec": enc.spec,
            "onnx_bytes": os.path.getsize(enc.onnx),
            "onnx_sha256": sha256(enc.onnx),
            "max_tokens": enc.max_tokens,
            "dim": int(vecs.shape[1]),
            "embed_subset_s": embed_s,
            "accuracy": {key: float(np.nanmean(v)) * 100 for key, v in per_doc[enc.name].items()},
            "accuracy_by_source": {
                src: {key: float(np.nanmean(v[[d["source"] == src for d in docs]])) * 100 for key, v in per_doc[enc.name].items()}
                for src in report["sources"]
            },
        }

    base = encoders[0].name
    rng = np.random.default_rng(SEED)
    for enc in encoders[1:]:
        diffs = {}
        for key in per_doc[base]:
            a, b = per_doc[enc.name][key], per_doc[base][key]
            ok = ~(np.isnan(a) | np.isnan(b))
            d = (a[ok] - b[ok]) * 100
            lo, hi = bootstrap_ci(d, rng)
            diffs[key] = {"mean": float(d.mean()), "ci95": [lo, hi]}
        report["encoders"][enc.name]["vs_" + base] = diffs

    # ---- speed: throughput, alternating passes
    speed_sents = sentences[: args.speed_sentences]
    tokens = {e.name: float(np.mean([len(x.ids) for x in e.tok.encode_batch(speed_sents)])) for e in encoders}
    best = {e.name: {1: 0.0, 32: 0.0} for e in encoders}
    for _ in range(args.passes):
        for batch in (1, 32):
            for enc in encoders:
                t = time.perf_counter()
                enc.embed(speed_sents, batch=batch)
                rate = len(speed_sents) / (time.perf_counter() - t)
                best[enc.name][batch] = max(best[enc.name][batch], rate)

    # ---- paragraph latency: one paragraph's sentences as one batch
    paras = [p for d in docs for p in d["paras"]]
    step = max(1, len(paras) // args.paragraphs)
    sample = paras[::step][: args.paragraphs]
    lat = {e.name: [] for e in encoders}
    for p in sample:
        for enc in encoders:
            t = time.perf_counter()
            enc.embed(p, batch=max(1, len(p)))
            lat[enc.name].append((time.perf_counter() - t) * 1000)
    sent_lat = {e.name: [] for e in encoders}
    for s in speed_sents[:100]:
        for enc in encoders:
            t = time.perf_counter()
            enc.embed([s], batch=1)
            sent_lat[enc.name].append((time.perf_counter() - t) * 1000)

    # ---- load time and peak RSS, one process per encoder
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"compare_encoders_{os.getpid()}.json"
    tmp.write_text(json.dumps(speed_sents))
    for enc in encoders:
        out = subprocess.run(
            [sys.executable, __file__, "--worker", enc.spec, "--threads", str(args.threads), "--worker-sentences", str(tmp), "--encoder", "x"],
            check=True, capture_output=True, text=True,
        ).stdout
        w = json.loads(out.strip().splitlines()[-1])
        r = report["encoders"][enc.name]
        r.update({
            "load_s": w["load_s"],
            "peak_rss_mib": w["rss_mib"],
            "speed_sentences": len(speed_sents),
            "speed_mean_tokens": tokens[enc.name],
            "sent_per_s_batch1": best[enc.name][1],
            "sent_per_s_batch32": best[enc.name][32],
            "sentence_ms_median": float(np.median(sent_lat[enc.name])),
            "paragraph_sample": len(sample),
            "paragraph_mean_sentences": float(np.mean([len(p) for p in sample])),
            "paragraph_ms_median": float(np.median(lat[enc.name])),
            "paragraph_ms_p95": float(np.percentile(lat[enc.name], 95)),
        })
    tmp.unlink()
    report["load_average"] = [load0, os.getloadavg()[0]]
    report["wall_s"] = time.time() - t0

    # ---- print
    names = [e.name for e in encoders]
    print(f"\n{report['documents']} dev documents (every {ordinal(args.every)}; {report['sources']}), "
          f"{report['sentences']} sentences, {report['paragraphs']} paragraphs; {args.threads} threads; "
          f"load average {load0:.1f} -> {report['load_average'][1]:.1f}; {report['wall_s']:.0f}s\n")
    print("| | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for key in per_doc[base]:
        cells = []
        for n in names:
            c = f"{report['encoders'][n]['accuracy'][key]:.2f}"
            if n != base:
                dd = report["encoders"][n]["vs_" + base][key]
                c += f" ({dd['mean']:+.2f}; {dd['ci95'][0]:+.2f}..{dd['ci95'][1]:+.2f})"
            cells.append(c)
        print(f"| {key} accuracy % | " + " | ".join(cells) + " |")
    rows = [
        ("sentences/s, batch 1", "sent_per_s_batch1", "{:.0f}"),
        ("sentences/s, batch 32", "sent_per_s_batch32", "{:.0f}"),
        ("one sentence, median ms", "sentence_ms_median", "{:.1f}"),
        ("one paragraph as a batch, median ms", "paragraph_ms_median", "{:.1f}"),
        ("one paragraph as a batch, p95 ms", "paragraph_ms_p95", "{:.1f}"),
        ("model file MiB", "onnx_bytes", "{:.1f}"),
        ("load s", "load_s", "{:.2f}"),
        ("peak RSS MiB", "peak_rss_mib", "{:.0f}"),
        ("dim / max tokens", None, None),
    ]
    for label, key, fmt in rows:
        cells = []
        for n in names:
            r = report["encoders"][n]
            if key is None:
                cells.append(f"{r['dim']} / {r['max_tokens']}")
            elif key == "onnx_bytes":
                cells.append(fmt.format(r[key] / 2**20))
            else:
                cells.append(fmt.format(r[key]))
        print(f"| {label} | " + " | ".join(cells) + " |")
    for n in names:
        r = report["encoders"][n]
        print(f"{n}: speed set {r['speed_sentences']} sentences, mean {r['speed_mean_tokens']:.1f} tokens; "
              f"paragraph sample {r['paragraph_sample']} (mean {r['paragraph_mean_sentences']:.1f} sentences); by source: "
              + "; ".join(f"{s} " + ", ".join(f"{k} {v:.1f}" for k, v in a.items()) for s, a in r["accuracy_by_source"].items()))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
