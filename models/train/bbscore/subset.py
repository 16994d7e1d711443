#!/usr/bin/env python3
"""Writes the deterministic training subset BBScore is trained on: target/bbscore/train.bb.jsonl.

The encoder runs at ~40-150 sentences/s on 2 CPU cores, so the head trains on ~20k of the 265k
sentences of train.jsonl rather than all of them. Documents are taken per source in the order of
the sha256 of their id until the source's sentence budget is spent, so every source (and both
prose and technical writing) is represented. A document longer than MAX_SENTENCES keeps a run of
consecutive whole paragraphs of at most that many sentences, starting at a paragraph chosen by
the same hash. Documents with fewer than MIN_SENTENCES sentences are skipped (a bridge needs
interior points).

Only train.jsonl is read; dev is never used for training.

Usage: subset.py [--data DIR (default $SEGUE_DATA_DIR, else ../shared/data)] [--scale 1.0]
"""

import argparse
import os
import hashlib
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "target" / "bbscore"

# Sentence budget per source (about 20k in all).
BUDGET = {"linux_docs": 4000, "postgres_docs": 3000, "python_docs": 3500, "perl_pod": 2500, "austen": 3500, "sotu": 3500}
MAX_SENTENCES = 120
MIN_SENTENCES = 5


def h(s: str) -> int:
    return int(hashlib.sha256(s.encode()).hexdigest()[:12], 16)


def window(doc_id, paras):
    n = sum(len(p) for p in paras)
    if n <= MAX_SENTENCES:
        return paras
    start = h(doc_id + "#start") % len(paras)
    out, count = [], 0
    for p in paras[start:]:
        if count + len(p) > MAX_SENTENCES and out:
            break
        out.append(p)
        count += len(p)
    if count < MAX_SENTENCES // 2 and start > 0:
        # Too close to the end: take the run that ends at the last paragraph instead.
        out, count = [], 0
        for p in reversed(paras):
            if count + len(p) > MAX_SENTENCES and out:
                break
            out.insert(0, p)
            count += len(p)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=Path(os.environ.get("SEGUE_DATA_DIR") or ROOT.parent / "shared" / "data"))
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every source's budget")
    args = ap.parse_args()
    docs = {}
    with (args.data / "train.jsonl").open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                paras = [p for p in d["paragraphs"] if p]
                docs.setdefault(d["id"].split(":", 1)[0], []).append((d["id"], paras))
    out = []
    for source, items in sorted(docs.items()):
        budget = int(BUDGET.get(source, 2000) * args.scale)
        used = 0
        for doc_id, paras in sorted(items, key=lambda x: h(x[0])):
            paras = window(doc_id, paras)
            n = sum(len(p) for p in paras)
            if n < MIN_SENTENCES:
                continue
            if used + n > budget * 1.05:
                continue
            out.append({"id": doc_id, "paragraphs": paras})
            used += n
            if used >= budget:
                break
        print(f"{source:14} {used:6} sentences")
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "train.bb.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for d in out:
            f.write(json.dumps(d, ensure_ascii=False) + "\n")
    print(f"{path}: {len(out)} documents, {sum(sum(len(p) for p in d['paragraphs']) for d in out)} sentences")


if __name__ == "__main__":
    main()
