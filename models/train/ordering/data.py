"""Ordering instances from a JSONL corpus and its cached sentence embeddings (models/train/embed.py).

An instance is a set of units in their gold order: a paragraph's sentences (sentence level) or a
document's paragraphs (paragraph level). Each unit has a feature row: its unit-length embedding
(a sentence's own; a paragraph's is the mean of its sentence vectors, renormalised, as the
`embedding` scorer compares paragraphs) followed by its cue features (cues.py).
"""

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.train.ordering.cues import FEATURES, pair_matrix, unit_cues

ROOT = Path(__file__).resolve().parents[3]
EMB = ROOT / "target" / "embeddings"


@dataclass
class Instance:
    """Units of one instance in gold order."""

    doc: str
    x: np.ndarray  # [n, dim + cues] float32: embedding, then cues
    texts: list  # per unit, its sentences
    q: np.ndarray = None  # [n, n, pair cues] float32

    def __post_init__(self):
        if self.q is None:
            self.q = pair_matrix(self.texts)


def read_jsonl(path: Path):
    docs = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                paras = d.get("paragraphs") or [d["sentences"]]
                docs.append((str(d.get("id")), [p for p in paras if p]))
    return docs


def load(corpus: Path, npz: Path | None = None):
    """Documents of `corpus` with one embedding row per sentence, checked against the cache."""
    docs = read_jsonl(corpus)
    npz = npz or EMB / (corpus.stem + ".npz")
    z = np.load(npz, allow_pickle=False)
    vec = z["vectors"]
    para_off = z["para_offsets"]
    n_sent = sum(len(p) for _, ps in docs for p in ps)
    if vec.shape[0] != n_sent:
        raise SystemExit(f"{npz} has {vec.shape[0]} rows but {corpus} has {n_sent} sentences: re-run embed.py")
    out = []
    k = 0
    for doc_id, paras in docs:
        rows = []
        for p in paras:
            rows.append(vec[para_off[k]:para_off[k + 1]])
            k += 1
        out.append((doc_id, paras, rows))
    return out


def unit_row(vectors: np.ndarray, sentences: list, features=FEATURES) -> np.ndarray:
    v = vectors.mean(axis=0)
    v = v / max(np.linalg.norm(v), 1e-12)
    return np.concatenate([v, np.asarray(unit_cues(sentences, features), dtype=np.float32)]).astype(np.float32)


def sentence_instances(docs, lo: int, hi: int):
    """Each paragraph of lo..hi sentences is an instance of sentence units."""
    out = []
    for doc_id, paras, rows in docs:
        for p, r in zip(paras, rows):
            if lo <= len(p) <= hi:
                x = np.stack([unit_row(r[i:i + 1], [p[i]]) for i in range(len(p))])
                out.append(Instance(doc_id, x, [[s] for s in p]))
    return out


def paragraph_instances(docs, lo: int, hi: int, windows: bool = False):
    """Each document of lo..hi paragraphs is an instance of paragraph units; with `windows`, longer
    documents give consecutive windows of `hi` paragraphs (training only)."""
    out = []
    for doc_id, paras, rows in docs:
        x = np.stack([unit_row(r, p) for p, r in zip(paras, rows)]) if paras else None
        n = len(paras)
        if lo <= n <= hi:
            out.append(Instance(doc_id, x, paras))
        elif windows and n > hi:
            for s in range(0, n - hi + 1, hi // 2):
                out.append(Instance(f"{doc_id}@{s}", x[s:s + hi], paras[s:s + hi]))
    return out
