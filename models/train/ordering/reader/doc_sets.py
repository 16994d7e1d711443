"""Writes the paragraph reader's document-level training sets: the kinds of sets `tier1` gives the
reader (models/tier1/README.md, "The reader's terms"), which the paragraph-only reader was never
trained on. From the train split only (../shared/data/train.jsonl), deterministic (seed 0):

- `document`: every document of 3-16 sentences, all its sentences as one set, across paragraphs;
- `window`: from every longer document, two runs of consecutive sentences that start at a
  paragraph start and cross paragraph boundaries, 6-16 sentences long;
- `paragraphs`: every document of 3-16 paragraphs with each paragraph as one unit (the reader
  keeps a unit's first 40 tokens, as Segue does), and the first 4-16 paragraphs of longer ones.

One JSON object per line, {"id", "kind", "sentences"}, the units in their original order, for
train.py's `EXTRA` (with `EXTRA_MAX=16`):

    models/train/.venv/bin/python models/train/ordering/reader/doc_sets.py [OUT]
"""
import collections
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
TRAIN = ROOT.parent / "shared" / "data" / "train.jsonl"
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "target" / "ordering" / "train.docsets.jsonl"
MAX_UNITS = 16


def sets(doc, rng):
    paragraphs = [p for p in doc["paragraphs"] if p]
    sentences = [s for p in paragraphs for s in p]
    if 3 <= len(sentences) <= MAX_UNITS:
        yield "document", sentences
    elif len(sentences) > MAX_UNITS:
        starts = [sum(len(p) for p in paragraphs[:k]) for k in range(len(paragraphs))]
        starts = [s for s in starts if len(sentences) - s >= 6]
        for start in rng.sample(starts, min(2, len(starts))):
            yield "window", sentences[start:start + rng.randint(6, MAX_UNITS)]
    units = [" ".join(p) for p in paragraphs]
    if 3 <= len(units) <= MAX_UNITS:
        yield "paragraphs", units
    elif len(units) > MAX_UNITS:
        yield "paragraphs", units[: rng.randint(4, MAX_UNITS)]


def main():
    rng = random.Random(0)
    counts = collections.Counter()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with open(OUT, "w") as out:
        for line in open(TRAIN):
            doc = json.loads(line)
            for kind, units in sets(doc, rng):
                counts[kind] += 1
                out.write(json.dumps({"id": doc["id"], "kind": kind, "sentences": units}, ensure_ascii=False) + "\n")
    print(f"wrote {OUT}: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))


if __name__ == "__main__":
    main()
