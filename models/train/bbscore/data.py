"""Corpora with their cached MiniLM sentence vectors (models/train/embed.py), as trajectories."""

import hashlib
import os
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
EMB = ROOT / "target" / "embeddings"
WORK = ROOT / "target" / "bbscore"
SHARED = Path(os.environ.get("SEGUE_DATA_DIR") or ROOT.parent / "shared" / "data")


class Corpus:
    """Documents of a JSONL corpus and one MiniLM row per sentence.

    docs[k] = (id, source, paragraphs, S, P): S [sentences, 384] the sentence vectors in order,
    P [paragraphs, 384] each paragraph's mean sentence vector renormalised to unit length (how the
    embedding scorer and BBScore see paragraphs)."""

    def __init__(self, jsonl: Path, npz: Path | None = None, limit: int | None = None):
        npz = npz or EMB / (jsonl.stem + ".npz")
        if not npz.exists():
            sys.exit(f"{npz} is missing: run models/train/embed.py {jsonl} first")
        z = np.load(npz, allow_pickle=False)
        vec, doc_off, para_off, doc_paras = z["vectors"], z["doc_offsets"], z["para_offsets"], z["doc_paras"]
        self.docs = []
        with jsonl.open(encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
        if len(rows) < len(doc_off) - 1:
            sys.exit(f"{npz} has {len(doc_off) - 1} documents but {jsonl} has {len(rows)}: re-run embed.py")
        for k, d in enumerate(rows[: len(doc_off) - 1]):
            paras = [p for p in (d.get("paragraphs") or [d["sentences"]]) if p]
            S = vec[doc_off[k]:doc_off[k + 1]].astype(np.float64)
            if len(S) != sum(len(p) for p in paras):
                sys.exit(f"{npz} does not match {jsonl} at document {k}: re-run embed.py")
            P = []
            for p in range(doc_paras[k], doc_paras[k + 1]):
                m = vec[para_off[p]:para_off[p + 1]].astype(np.float64).mean(axis=0)
                P.append(m / max(np.linalg.norm(m), 1e-12))
            src = str(d.get("id", "")).split(":", 1)[0]
            self.docs.append((str(d.get("id", k)), src, paras, S, np.array(P)))
            if limit and len(self.docs) >= limit:
                break

    def __len__(self):
        return len(self.docs)


def for_classifier(doc_id: str) -> bool:
    """A quarter of the training documents (by hash of the id) train the classifier and never the
    head: features of documents the head was fitted on are too clean (95% train pair accuracy vs
    81% on dev when the classifier saw the head's own documents)."""
    return int(hashlib.sha256(doc_id.encode()).hexdigest(), 16) % 4 == 0
