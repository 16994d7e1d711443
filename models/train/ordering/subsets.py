#!/usr/bin/env python3
"""Writes the corpora the ordering heads are trained and tuned on, as JSONL under target/ordering/.

The encoder is slow on 2 CPU cores (~20-60 sentences/s), so the paragraph level trains on a
deterministic subset of train.jsonl rather than all 266k sentences:

  train.subset.jsonl  documents of 3-16 paragraphs (linux_docs and postgres_docs capped, the rest
                      kept), plus one window of <= 16 consecutive paragraphs from a sample of the
                      longer documents of every source. Its paragraphs of 4-10 sentences are also
                      sentence-level training instances, beside train.abstracts.jsonl.
  train.paras.jsonl   more sentence-level instances: paragraphs of 3-12 sentences, sampled per
  train.paras2.jsonl  source from the documents not in train.subset.jsonl (two disjoint slices).
  dev.le16.jsonl      the dev documents with 2-16 paragraphs: exactly the paragraph-level instances
                      of `segue eval --task ordering --max-units 16` on dev.jsonl.

Only train*.jsonl is trained on; dev files are only for choosing weights and for the report.

Usage: subsets.py [--data DIR (default $SEGUE_DATA_DIR, else ../shared/data)] [--budget 16000]
"""

import argparse
import os
import hashlib
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "target" / "ordering"

# Most documents kept per source among those of 3-16 paragraphs (the tech docs dominate).
CAPS = {"linux_docs": 420, "postgres_docs": 220}
# Windows cut from longer documents, per source.
WINDOWS = {"linux_docs": 25, "postgres_docs": 15, "python_docs": 45, "sotu": 30, "austen": 40, "perl_pod": 20}
MAX_WINDOW = 16
# Extra sentence-level paragraphs (3-12 sentences) per source, from documents not taken above.
PARAGRAPHS = {"linux_docs": 1500, "postgres_docs": 1000, "python_docs": 1500, "sotu": 1400, "austen": 1200, "perl_pod": 600}


def key(s: str) -> str:
    return hashlib.sha256(s.encode()).hexdigest()


def source(doc_id: str) -> str:
    return doc_id.split(":", 1)[0]


def read(path: Path):
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                paras = d.get("paragraphs") or [d["sentences"]]
                yield str(d.get("id")), [p for p in paras if p]


def write(path: Path, docs):
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for doc_id, paras in docs:
            f.write(json.dumps({"id": doc_id, "paragraphs": paras}, ensure_ascii=False) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=Path(os.environ.get("SEGUE_DATA_DIR") or ROOT.parent / "shared" / "data"))
    args = ap.parse_args()

    train = list(read(args.data / "train.jsonl"))
    short, long = {}, {}
    for doc_id, paras in sorted(train, key=lambda d: key(d[0])):
        bucket = short if 3 <= len(paras) <= MAX_WINDOW else long if len(paras) > MAX_WINDOW else None
        if bucket is not None:
            bucket.setdefault(source(doc_id), []).append((doc_id, paras))
    chosen = []
    for src, docs in sorted(short.items()):
        chosen.extend(docs[: CAPS.get(src, len(docs))])
    for src, docs in sorted(long.items()):
        for doc_id, paras in docs[: WINDOWS.get(src, 0)]:
            start = int(key(doc_id + "/window"), 16) % (len(paras) - MAX_WINDOW + 1)
            chosen.append((f"{doc_id}#{start}", paras[start:start + MAX_WINDOW]))
    write(OUT / "train.subset.jsonl", chosen)
    n_sent = sum(len(p) for _, ps in chosen for p in ps)
    print(f"train.subset.jsonl: {len(chosen)} documents, {n_sent} sentences")

    # Sentence level: more paragraphs of 3-12 sentences from documents not in the subset above.
    taken = {d.split("#")[0] for d, _ in chosen}
    paras = {}
    for doc_id, ps in train:
        if doc_id in taken:
            continue
        for k, p in enumerate(ps):
            if 3 <= len(p) <= 12:
                paras.setdefault(source(doc_id), []).append((f"{doc_id}/p{k}", [p]))
    for part, name in enumerate(["train.paras.jsonl", "train.paras2.jsonl"]):
        extra = []
        for src, items in sorted(paras.items()):
            items.sort(key=lambda d: key(d[0]))
            cap = PARAGRAPHS.get(src, 0)
            extra.extend(items[part * cap: (part + 1) * cap])
        write(OUT / name, extra)
        print(f"{name}: {len(extra)} paragraphs, {sum(len(p) for _, ps in extra for p in ps)} sentences")

    dev = [(i, p) for i, p in read(args.data / "dev.jsonl") if 2 <= len(p) <= MAX_WINDOW]
    write(OUT / "dev.le16.jsonl", dev)
    print(f"dev.le16.jsonl: {len(dev)} documents, {sum(len(p) for _, ps in dev for p in ps)} sentences")


if __name__ == "__main__":
    main()
