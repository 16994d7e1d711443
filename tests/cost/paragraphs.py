#!/usr/bin/env python3
"""Writes a Markdown document of many short paragraphs for measuring what scoring costs per
container (docs/performance.md): one heading, then N paragraphs of two sentences each, the
sentences taken in order from the plain paragraphs of the real-prose corpus's Markdown,
reStructuredText and plain-text files (tests/prose/fetch -> target/prose; train part by
default). A sentence is kept when it is plain prose: 6 to 40 words, starting with a capital
letter, ending with a full stop, no markup characters. Files are read in path order, so the
output depends only on the corpus. Standard library only.

Usage: tests/cost/paragraphs.py N [--prose DIR] > FILE
"""

import argparse
import pathlib
import re
import sys

MARKUP = re.compile(r"[`*_\[\]<>|#{}\\=~^$@]|https?:|\.\.")
SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def prose_sentences(path: pathlib.Path):
    """Sentences of the file's plain paragraphs (not headings, lists, quotes, code or tables)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    fenced = False
    block = []
    for line in text.splitlines() + [""]:
        stripped = line.strip()
        if stripped.startswith("```") or stripped.startswith("~~~"):
            fenced = not fenced
            block = []
            continue
        if fenced:
            continue
        if not stripped:
            if block:
                yield from SPLIT.split(" ".join(block))
            block = []
            continue
        if line.startswith(("    ", "\t")) or stripped[0] in "#-*+>|<0123456789":
            block = []
            continue
        block.append(stripped)


def keep(sentence: str) -> bool:
    words = sentence.split()
    return (
        6 <= len(words) <= 40
        and sentence[0].isupper()
        and sentence.endswith(".")
        and not MARKUP.search(sentence)
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("paragraphs", type=int)
    parser.add_argument("--prose", default="target/prose/train")
    args = parser.parse_args()
    sentences = [
        s
        for path in sorted(pathlib.Path(args.prose).rglob("*"))
        if path.suffix in (".md", ".rst", ".txt")
        for s in prose_sentences(path)
        if keep(s)
    ]
    need = 2 * args.paragraphs
    if len(sentences) < 2:
        print(f"no sentences under {args.prose}", file=sys.stderr)
        return 1
    out = ["# Notes", ""]
    for k in range(args.paragraphs):
        a, b = sentences[(2 * k) % len(sentences)], sentences[(2 * k + 1) % len(sentences)]
        out += [f"{a} {b}", ""]
    if need > len(sentences):
        print(f"note: {len(sentences)} sentences, reused", file=sys.stderr)
    sys.stdout.write("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
