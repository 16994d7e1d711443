#!/usr/bin/env python3
"""Compare a rebuilt corpus folder with a reference one (by default ../shared/data).

    compare.py [--ref DIR] [--examples N] OUT_DIR

Per split and source: documents and paragraphs on each side, documents present on both sides,
and, within those shared documents, how many paragraphs are identical text and how many
identical paragraphs are also split into the same sentences. With --examples N it prints N
differing paragraphs per source (reference first, rebuilt second).
"""

from __future__ import annotations

import argparse
import difflib
import json
import random
from collections import defaultdict
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_REF = REPO_ROOT.parent / "shared" / "data"

Docs = dict[str, dict[str, list[list[str]]]]  # source key (id prefix) -> id -> paragraphs


def load(path: Path) -> Docs:
    docs: Docs = defaultdict(dict)
    if path.exists():
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                record = json.loads(line)
                docs[record["id"].split(":", 1)[0]][record["id"]] = record["paragraphs"]
    return docs


def compare_split(ref: Docs, new: Docs, examples: int, rng: random.Random) -> list[str]:
    rows = [
        "| source | docs ref | docs new | shared docs | paragraphs ref | paragraphs new "
        "| same text (of ref, in shared docs) | same sentences |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    diffs: list[str] = []
    for source in sorted(set(ref) | set(new)):
        r, n = ref.get(source, {}), new.get(source, {})
        shared = sorted(set(r) & set(n))
        same_text = same_sentences = ref_in_shared = 0
        changed: list[tuple[str, str, str]] = []
        for doc_id in shared:
            ref_paras = [" ".join(p) for p in r[doc_id]]
            new_index = {" ".join(p): p for p in n[doc_id]}
            ref_in_shared += len(ref_paras)
            for text, sentences in zip(ref_paras, r[doc_id], strict=True):
                if text in new_index:
                    same_text += 1
                    same_sentences += new_index[text] == sentences
            matcher = difflib.SequenceMatcher(a=ref_paras, b=[" ".join(p) for p in n[doc_id]], autojunk=False)
            for op, i1, i2, j1, j2 in matcher.get_opcodes():
                if op == "replace":
                    for a, b in zip(ref_paras[i1:i2], [" ".join(p) for p in n[doc_id][j1:j2]], strict=False):
                        changed.append((doc_id, a, b))
        count = lambda docs: sum(len(p) for p in docs.values())  # noqa: E731
        pct = lambda a, b: f"{100 * a / b:.1f}%" if b else "-"  # noqa: E731
        rows.append(
            f"| {source} | {len(r)} | {len(n)} | {len(shared)} | {count(r)} | {count(n)} "
            f"| {pct(same_text, ref_in_shared)} | {pct(same_sentences, same_text)} |"
        )
        for doc_id, a, b in rng.sample(changed, min(examples, len(changed))):
            diffs.append(f"{doc_id}\n  ref: {a[:400]}\n  new: {b[:400]}")
    return rows + ([""] + diffs if diffs else [])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="rebuilt corpus folder")
    parser.add_argument("--ref", type=Path, default=DEFAULT_REF, help="reference corpus folder")
    parser.add_argument("--examples", type=int, default=0, help="differing paragraphs to show per source")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for split in ("train", "dev"):
        ref, new = load(args.ref / f"{split}.jsonl"), load(args.out / f"{split}.jsonl")
        if not new:
            continue
        print(f"## {split}\n")
        print("\n".join(compare_split(ref, new, args.examples, rng)))
        for kind in ("abstracts",):
            ref_path, new_path = args.ref / f"{split}.{kind}.jsonl", args.out / f"{split}.{kind}.jsonl"
            if ref_path.exists() and new_path.exists():
                lines = lambda p: sum(1 for _ in p.open(encoding="utf-8"))  # noqa: E731
                print(f"\n{split}.{kind}.jsonl: {lines(ref_path)} reference, {lines(new_path)} rebuilt\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
