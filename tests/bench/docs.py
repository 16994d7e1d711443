#!/usr/bin/env python3
"""Builds the benchmark documents from the real-prose corpus (tests/prose/fetch -> target/prose).

Writes target/bench/{markdown,latex}-{1k,10k,30k,100k}.{md,tex}: real documents of one format joined
in path order until the size is reached (words as `wc -w` counts them), the last one cut at a
blank line outside any code fence or environment. LaTeX documents contribute their bodies (between
\\begin{document} and \\end{document}, or the whole file for chapters without a preamble), inside
one article. Standard library only.

Usage: tests/bench/docs.py [--prose DIR] [--out DIR]
"""

import argparse
import pathlib
import re
import sys

SIZES = {"1k": 1_000, "10k": 10_000, "30k": 30_000, "100k": 100_000}
FORMATS = {"markdown": ".md", "latex": ".tex"}


def body(path: pathlib.Path, fmt: str) -> str:
    text = path.read_text(encoding="utf-8", errors="replace")
    if fmt == "latex":
        start = text.find("\\begin{document}")
        end = text.rfind("\\end{document}")
        if start >= 0:
            text = text[start + len("\\begin{document}") : end if end > start else None]
    return text.strip("\n") + "\n"


def safe_cuts(text: str, fmt: str):
    """Yields (offset, words before it) at blank lines outside fences and environments."""
    depth, fenced, words, offset = 0, False, 0, 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if fmt == "markdown" and (stripped.startswith("```") or stripped.startswith("~~~")):
            fenced = not fenced
        if fmt == "latex":
            code = line.split("%", 1)[0]
            depth += len(re.findall(r"\\begin\{", code)) - len(re.findall(r"\\end\{", code))
        words += len(line.split())
        offset += len(line)
        if not stripped and not fenced and depth <= 0:
            yield offset, words


def build(files, fmt: str, target: int) -> str:
    parts, total = [], 0
    for path in files:
        text = body(path, fmt)
        n = len(text.split())
        if total + n <= target * 1.05:
            parts.append(text)
            total += n
        else:
            cut = next((o for o, w in safe_cuts(text, fmt) if total + w >= target), len(text))
            parts.append(text[:cut].rstrip("\n") + "\n")
            total += len(text[:cut].split())
        if total >= target:
            break
    joined = "\n".join(parts)
    if fmt == "latex":
        joined = "\\documentclass{article}\n\\begin{document}\n\n" + joined + "\n\\end{document}\n"
    return joined


def main() -> int:
    root = pathlib.Path(__file__).resolve().parents[2]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prose", type=pathlib.Path, default=root / "target" / "prose")
    ap.add_argument("--out", type=pathlib.Path, default=root / "target" / "bench")
    args = ap.parse_args()
    if not args.prose.is_dir():
        print(f"bench/docs: {args.prose} is missing; run tests/prose/fetch first", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    for fmt, ext in FORMATS.items():
        files = sorted(args.prose.rglob(f"*{ext}"))
        if not files:
            print(f"bench/docs: no {ext} files under {args.prose}", file=sys.stderr)
            return 2
        for name, words in SIZES.items():
            out = args.out / f"{fmt}-{name}{ext}"
            text = build(files, fmt, words)
            out.write_text(text, encoding="utf-8")
            print(f"{out.relative_to(root) if out.is_relative_to(root) else out}: {len(text.split())} words, {len(text.encode())} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
