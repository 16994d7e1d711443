"""Ordering instances from the real-prose corpus (issue 20): the containers the reorder test uses,
as Segue segments them.

`server/examples/prose_containers.rs` writes them (Segue's own parsers and the reorder test's
filter: running prose only, 3 to 8 units), one JSONL line per container:

  cargo run --release -p segue --example prose_containers -- target/prose/train > target/ordering/prose.train.jsonl
  cargo run --release -p segue --example prose_containers -- target/prose/dev   > target/ordering/prose.dev.jsonl
  models/train/.venv/bin/python models/train/embed.py target/ordering/prose.train.jsonl   (and prose.dev)

A `paragraph` line is a section whose paragraphs are the units; its paragraphs of 3 to 8 sentences
are also sentence-level instances. A `sentence` line is one paragraph. The genre is the corpus
folder the document is in. Only the train part is trained on; the dev part joins the weight
search; the test part is never read here.
"""

import hashlib
import json
from collections import Counter
from pathlib import Path

import numpy as np

from models.train.ordering import data

WORK = data.ROOT / "target" / "ordering"
UNITS = (3, 8)
# The existing training data (../shared/data train split) counts as one genre of its own.
REFERENCE = "reference"


def load(split: str, hide=()):
    """Containers of `target/ordering/prose.SPLIT.jsonl` with their embeddings, leaving out the
    genres in `hide`: a list of (id, genre, level, paragraphs, rows)."""
    path = WORK / f"prose.{split}.jsonl"
    meta = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    docs = data.load(path)
    out = []
    for m, (doc_id, paras, rows) in zip(meta, docs):
        if m["genre"] in hide:
            continue
        out.append((doc_id, m["genre"], m["level"], paras, rows))
    return out


def instances(containers, level: str):
    """(genre, Instance) pairs of `level` from `load`'s containers."""
    lo, hi = UNITS
    out = []
    for doc_id, genre, kind, paras, rows in containers:
        if level == "sentence":
            for inst in data.sentence_instances([(doc_id, paras, rows)], lo, hi):
                out.append((genre, inst))
        elif kind == "paragraph":
            for inst in data.paragraph_instances([(doc_id, paras, rows)], lo, hi):
                out.append((genre, inst))
    return out


def balanced(groups, max_repeat: int = 4):
    """Instances of every genre, each genre's repeated so that it counts about as much as the
    median genre (at most `max_repeat` times); `groups` maps a genre to its instances. Returns the
    list and the repeat factor of each genre."""
    sizes = {g: len(v) for g, v in groups.items() if v}
    if not sizes:
        return [], {}
    median = float(np.median(list(sizes.values())))
    repeat = {g: int(min(max_repeat, max(1, round(median / n)))) for g, n in sizes.items()}
    out = []
    for g in sorted(sizes):
        out.extend(groups[g] * repeat[g])
    return out, repeat


def describe(pairs):
    """Instances per genre, as a dict."""
    return dict(sorted(Counter(g for g, _ in pairs).items()))


def cached_logits(sets, compute, tag: str):
    """A set model's (X, N) logits for each set of unit texts, `compute`d only for the sets not in
    the cache target/xenc/reader-TAG.npz (keyed by a hash of the set's texts, in order)."""
    path = data.ROOT / "target" / "xenc" / f"reader-{tag}.npz"
    store = dict(np.load(path)) if path.exists() else {}
    keys = [hashlib.sha256("\x1f".join(s).encode()).hexdigest()[:24] for s in sets]
    missing = sorted({k for k in keys if f"x{k}" not in store})
    if missing:
        todo = {k: s for k, s in zip(keys, sets) if k in set(missing)}
        for k, (x, n) in zip(todo, compute(list(todo.values()))):
            store[f"x{k}"], store[f"n{k}"] = x, n
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, **store)
    return [(store[f"x{k}"], store[f"n{k}"]) for k in keys]
