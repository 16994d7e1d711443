"""Builds an extra *training* source of technical prose: the documentation comments (`//!` and
`///`) and the top-level Markdown files (README, guides) of the crates Segue's own Cargo.lock pins, as cargo has unpacked them in its registry
cache (`cargo fetch --locked` puts them there). The dev split is all Rust-book text (rust-doc)
and the train split has none, so this gives the ordering models Rust-documentation prose that is
not dev data: crate docs, not the books.

Each Markdown file and each run of doc-comment lines is read as Markdown: fenced code, indented code, lists, tables,
headings, link definitions and HTML are dropped; the remaining prose paragraphs are split into
sentences with a regex and an abbreviation list (as the shared corpora were), and a paragraph is
kept when it has 3-12 sentences of 4-80 words each and little code. Paragraphs are
de-duplicated by their text (many crates copy their docs between versions and families).

    python3 models/train/data/rustdoc_paras.py [--out target/ordering/train.rustdoc.jsonl]

Output: one JSON object per paragraph, {"id": "crate-version/path#k", "paragraphs": [[s, ...]]}.
Deterministic for a given Cargo.lock.
"""
import argparse
import hashlib
import json
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
ABBREV = {"e.g", "i.e", "etc", "vs", "cf", "approx", "resp", "incl", "no", "fig", "eq", "mr", "mrs", "dr", "st"}
DOC = re.compile(r"^\s*//[!/](?![/!])\s?(.*)$")
SENT_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z`\"'(\[])")


def locked_crates(lock: Path):
    text = lock.read_text()
    out = []
    for block in text.split("[[package]]")[1:]:
        name = re.search(r'^name = "([^"]+)"', block, re.M)
        ver = re.search(r'^version = "([^"]+)"', block, re.M)
        src = re.search(r'^source = "registry', block, re.M)
        if name and ver and src:
            out.append(f"{name.group(1)}-{ver.group(1)}")
    return sorted(set(out))


def registry_dirs():
    home = Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))
    return sorted((home / "registry" / "src").glob("*"))


def doc_blocks(path: Path):
    """Runs of consecutive doc-comment lines of one file, as text."""
    block = []
    for line in path.read_text(errors="replace").splitlines():
        m = DOC.match(line)
        if m:
            block.append(m.group(1))
        elif block:
            yield "\n".join(block)
            block = []
    if block:
        yield "\n".join(block)


def prose_paragraphs(markdown: str):
    fenced = False
    para = []
    for line in markdown.splitlines() + [""]:
        s = line.strip()
        if s.startswith("```") or s.startswith("~~~"):
            fenced = not fenced
            para = []
            continue
        if fenced:
            continue
        if not s:
            if para:
                yield " ".join(para)
            para = []
            continue
        skip = (
            s.startswith(("#", "|", "<", "[", "*", "-", "+", ">", "="))
            or re.match(r"^\d+[.)]\s", s)
            or line.startswith("    ")
        )
        if skip:
            para = []  # a paragraph interrupted by a list or a heading is not kept whole
            continue
        para.append(s)


def sentences(text: str):
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)  # [link](url) -> link
    text = re.sub(r"\[([^\]]+)\]\[[^\]]*\]", r"\1", text)  # [link][ref] -> link
    text = re.sub(r"\[`?([^\]]+?)`?\]", r"\1", text)  # intra-doc links
    text = re.sub(r"\s+", " ", text).strip()
    out, start = [], 0
    for m in SENT_END.finditer(text):
        head = text[start:m.start()].rstrip()
        last = head.split(" ")[-1].rstrip(".").lower() if head else ""
        if last in ABBREV or len(last) == 1:
            continue
        out.append(text[start:m.start()].strip())
        start = m.end()
    out.append(text[start:].strip())
    return [s for s in out if s]


def good(sents):
    if not 3 <= len(sents) <= 12:
        return False
    for s in sents:
        words = s.split()
        if not 4 <= len(words) <= 80 or not s[0].isupper() or s[-1] not in ".!?\"')":
            return False
        code = sum(ch in "{}();=<>&|_:" for ch in s) + 2 * s.count("::")
        if code > 0.08 * len(s):
            return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "target" / "ordering" / "train.rustdoc.jsonl"))
    args = ap.parse_args()
    crates = locked_crates(ROOT / "Cargo.lock")
    seen, rows, found = set(), [], 0
    registries = registry_dirs()
    for name in crates:
        dirs = [d / name for d in registries if (d / name).is_dir()]
        if not dirs:
            continue
        found += 1
        base = dirs[0]
        for path in sorted(base.rglob("*.rs")) + sorted(base.glob("*.md")):
            rel = path.relative_to(base).as_posix()
            if rel.startswith(("tests/", "benches/", "examples/")):
                continue
            blocks = [path.read_text(errors="replace")] if path.suffix == ".md" else doc_blocks(path)
            for k, block in enumerate(blocks):
                for j, para in enumerate(prose_paragraphs(block)):
                    sents = sentences(para)
                    if not good(sents):
                        continue
                    key = hashlib.sha1(" ".join(sents).lower().encode()).hexdigest()
                    if key in seen:
                        continue
                    seen.add(key)
                    rows.append({"id": f"{name}/{rel}#{k}.{j}", "paragraphs": [sents]})
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    n = sum(len(r["paragraphs"][0]) for r in rows)
    print(f"{len(crates)} locked crates, {found} unpacked; {len(rows)} paragraphs, {n} sentences -> {args.out}")


if __name__ == "__main__":
    main()
