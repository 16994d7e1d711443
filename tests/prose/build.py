#!/usr/bin/env python3
"""Build Segue's real-prose evaluation corpus: original files from registry packages.

Every document is one file taken byte for byte, unconverted, from a package fetched with the
registry's ordinary client: Debian bookworm packages through ``apt-get download`` (read with
``dpkg-deb --fsys-tarfile``), PyPI source distributions through ``pip download`` and npm
tarballs through ``npm pack``. Only ``.gz`` members of Debian packages are decompressed (the
package stores them compressed); nothing else is touched.

    OUT/<split>/<genre>/<id>.<ext>   split: train, dev, test; ext: .md .rst .tex .txt
    OUT/manifest.tsv                 the rows of this build (same columns as tests/prose/manifest.tsv)
    OUT/packages.tsv                 each package fetched: registry, name, version, file, sha256

Usage (normally through tests/prose/fetch):

    build.py [--out DIR] [--cache DIR] [--list] [--table] [--write-manifest] [--write-slice]
    build.py --outside [--out DIR]   # tests/prose/outside.tsv into DIR/<round>/<genre>/<file>

Each output's sha256 is checked against the committed manifest (tests/prose/manifest.tsv).
PyPI and npm packages are pinned, so a mismatch there is an error. Debian takes the archive's
current candidate version: a mismatch in a document whose package version changed since the
manifest was written is a warning, any other mismatch is an error.

The document list is ``CATALOGUE`` below. dev/test are assigned by a hash of the id (see
``assign_splits``); train documents are chosen by hand, mostly whole packages, and never share a
document with dev or test. Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
DEFAULT_OUT = REPO_ROOT / "target" / "prose"
DEFAULT_CACHE = REPO_ROOT / "target" / "prose-cache"
MANIFEST = HERE / "manifest.tsv"
SLICE_DIR = HERE / "slice"
COLUMNS = ("id", "split", "genre", "format", "registry", "package", "version", "member", "licence",
           "sha256", "words", "title", "slice")
EXT = {"markdown": ".md", "rst": ".rst", "latex": ".tex", "plain": ".txt"}
GENRES = ("essay", "tutorial", "readme", "guide", "fiction", "speech", "latex", "manual")
SPLITS = ("train", "dev", "test")
MIN_EVAL_PER_GENRE = 3

# Documents copied into tests/prose/slice/ (all from dev; small; permissive or public domain).
SLICE = (
    "click-why",
    "trio-readme",
    "docutils-quickstart",
    "latex-modguide",
    "moby-dick-ch2",
    "us-declaration",
)


# ---------------------------------------------------------------------------------------------
# The catalogue
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Doc:
    id: str
    pool: str  # "eval" (dev or test, by hash) or "train"
    genre: str
    format: str  # markdown | rst | latex | plain
    member: str  # path inside the package; Debian: without "./", ".gz" kept when stored compressed
    title: str
    licence: str


@dataclass(frozen=True)
class Package:
    registry: str  # debian | pypi | npm
    name: str
    version: str | None  # pinned for pypi/npm; None: Debian candidate
    licence: str
    docs: tuple[Doc, ...]


def pkg(registry: str, name: str, version: str | None, licence: str, *docs: tuple) -> Package:
    made = []
    for d in docs:
        doc_id, pool, genre, fmt, member, title, *rest = d
        made.append(Doc(doc_id, pool, genre, fmt, member, title, rest[0] if rest else licence))
    return Package(registry, name, version, licence, tuple(made))


E, T = "eval", "train"
DOC = "usr/share/doc/"
TL = "usr/share/doc/texlive-doc/latex/"
VIM = "usr/share/vim/vim90/doc/"
PF = "usr/share/doc/postfix/"
DR = "usr/share/developers-reference/_sources/"

CATALOGUE: tuple[Package, ...] = (
    # ---- Debian ---------------------------------------------------------------------------
    pkg("debian", "docutils-doc", None, "public-domain",
        ("docutils-pep-0287", E, "essay", "rst", DOC + "docutils-doc/docs/peps/pep-0287.txt",
         "PEP 287: reStructuredText Docstring Format"),
        ("docutils-rst-problems", E, "essay", "rst", DOC + "docutils-doc/docs/dev/rst/problems.txt",
         "Problems With StructuredText"),
        ("docutils-quickstart", E, "tutorial", "rst", DOC + "docutils-doc/docs/user/rst/quickstart.txt",
         "A ReStructuredText Primer"),
        ("docutils-policies", E, "guide", "rst", DOC + "docutils-doc/docs/dev/policies.txt",
         "Docutils Project Policies"),
        ("docutils-pep-0256", T, "essay", "rst", DOC + "docutils-doc/docs/peps/pep-0256.txt",
         "PEP 256: Docstring Processing System Framework"),
        ("docutils-pep-0258", T, "essay", "rst", DOC + "docutils-doc/docs/peps/pep-0258.txt",
         "PEP 258: Docutils Design Specification"),
        ("docutils-pep-0257", T, "guide", "rst", DOC + "docutils-doc/docs/peps/pep-0257.txt",
         "PEP 257: Docstring Conventions"),
        ("docutils-hacking", T, "guide", "rst", DOC + "docutils-doc/docs/dev/hacking.txt",
         "Docutils Hacker's Guide"),
        ("docutils-rst-directives", T, "tutorial", "rst", DOC + "docutils-doc/docs/howto/rst-directives.txt",
         "Creating reStructuredText Directives")),
    pkg("debian", "debian-history", None, "GPL-2+ (package copyright); free redistribution notice in the text",
        ("debian-manifesto", E, "essay", "plain", DOC + "debian-history/debian-manifesto.gz",
         "The Debian Manifesto (Ian Murdock, 1994)"),
        ("debian-project-history", E, "fiction", "plain", DOC + "debian-history/docs/project-history.en.txt.gz",
         "A Brief History of Debian (narrative history)")),
    pkg("debian", "r-cran-tokenizers", None, "public-domain (text); MIT (package)",
        ("moby-dick-ch1", E, "fiction", "plain", DOC + "r-cran-tokenizers/tests/testthat/moby-ch1.txt.gz",
         "Moby-Dick, chapter 1: Loomings (Herman Melville)"),
        ("moby-dick-ch2", E, "fiction", "plain", DOC + "r-cran-tokenizers/tests/testthat/moby-ch2.txt.gz",
         "Moby-Dick, chapter 2: The Carpet-Bag (Herman Melville)"),
        ("moby-dick-ch3", E, "fiction", "plain", DOC + "r-cran-tokenizers/tests/testthat/moby-ch3.txt.gz",
         "Moby-Dick, chapter 3: The Spouter-Inn (Herman Melville)")),
    pkg("debian", "golang-github-pierrec-lz4-dev", None, "public-domain (text); BSD-3-Clause (package)",
        ("gettysburg-address", E, "speech", "plain",
         "usr/share/gocode/src/github.com/pierrec/lz4/testdata/gettysburg.txt",
         "The Gettysburg Address (Abraham Lincoln, 1863)"),
        ("tom-sawyer", T, "fiction", "plain",
         "usr/share/gocode/src/github.com/pierrec/lz4/testdata/Mark.Twain-Tom.Sawyer.txt",
         "The Adventures of Tom Sawyer (Mark Twain)"),
        ("sherlock-holmes-adventures", T, "fiction", "plain",
         "usr/share/gocode/src/github.com/pierrec/lz4/testdata/pg1661.txt",
         "The Adventures of Sherlock Holmes (Arthur Conan Doyle)")),
    pkg("debian", "golang-github-andybalholm-brotli-dev", None, "public-domain (text); MIT (package)",
        ("newton-opticks", T, "essay", "plain",
         "usr/share/gocode/src/github.com/andybalholm/brotli/testdata/Isaac.Newton-Opticks.txt",
         "Opticks (Isaac Newton, 1704)")),
    pkg("debian", "miscfiles", None, "public-domain",
        ("us-declaration", E, "speech", "plain", "usr/share/state/us-declaration.gz",
         "The Declaration of Independence (1776), a public address")),
    pkg("debian", "sudo", None, "ISC",
        ("sudo-history", E, "fiction", "markdown", DOC + "sudo/HISTORY.md", "A Brief History of Sudo"),
        ("sudo-troubleshooting", E, "manual", "markdown", DOC + "sudo/TROUBLESHOOTING.md.gz",
         "Troubleshooting tips and FAQ for Sudo"),
        ("sudo-upgrade", T, "guide", "markdown", DOC + "sudo/UPGRADE.md.gz", "Notes on upgrading Sudo")),
    pkg("debian", "emacs-common", None, "GPL-3+",
        ("emacs-tutorial", E, "tutorial", "plain", "usr/share/emacs/28.2/etc/tutorials/TUTORIAL",
         "The Emacs tutorial"),
        ("emacs-debug", E, "guide", "plain", "usr/share/emacs/28.2/etc/DEBUG", "Debugging GNU Emacs"),
        ("emacs-problems", T, "manual", "plain", "usr/share/emacs/28.2/etc/PROBLEMS",
         "Known problems with GNU Emacs"),
        ("emacs-nextstep", T, "guide", "plain", "usr/share/emacs/28.2/etc/NEXTSTEP",
         "Emacs for macOS and GNUstep")),
    pkg("debian", "vim-runtime", None, "Vim",
        *[(f"vim-usr_{n}", E, "manual", "plain", f"{VIM}usr_{n}.txt", f"Vim user manual, chapter {n}")
          for n in ("02", "03", "20", "40")],
        *[(f"vim-usr_{n}", T, "manual", "plain", f"{VIM}usr_{n}.txt", f"Vim user manual, chapter {n}")
          for n in ("04", "05", "07", "08", "10", "21", "24", "25", "30", "44", "51")]),
    pkg("debian", "developers-reference", None, "GPL-2",
        ("devref-new-maintainer", E, "guide", "rst", DR + "new-maintainer.rst.txt",
         "Debian Developer's Reference: Applying to Become a Member"),
        ("devref-developer-duties", E, "guide", "rst", DR + "developer-duties.rst.txt",
         "Debian Developer's Reference: Debian Developer's Duties"),
        ("devref-l10n", E, "guide", "rst", DR + "l10n.rst.txt",
         "Debian Developer's Reference: Internationalizing, translating, being internationalized"),
        ("devref-best-practices", T, "guide", "rst", DR + "best-pkging-practices.rst.txt",
         "Debian Developer's Reference: Best Packaging Practices"),
        ("devref-tools", T, "guide", "rst", DR + "tools.rst.txt", "Debian Developer's Reference: Overview of Debian Maintainer Tools"),
        ("devref-resources", T, "guide", "rst", DR + "resources.rst.txt",
         "Debian Developer's Reference: Resources for Debian Members")),
    pkg("debian", "debian-faq", None, "verbatim-copying permission (SPI); see package copyright",
        ("debian-faq", E, "manual", "plain", DOC + "debian/FAQ/debian-faq.en.txt.gz", "The Debian GNU/Linux FAQ")),
    pkg("debian", "gnu-standards", None, "GFDL-1.3+",
        ("gnu-maintain", E, "guide", "plain", DOC + "gnu-standards/maintain.text.gz",
         "Information for Maintainers of GNU Software"),
        ("gnu-standards", T, "guide", "plain", DOC + "gnu-standards/standards.text.gz", "GNU Coding Standards")),
    pkg("debian", "maint-guide", None, "GPL-2+ or MIT",
        ("debian-maint-guide", T, "guide", "plain", DOC + "maint-guide/maint-guide.en.txt.gz",
         "Debian New Maintainers' Guide")),
    pkg("debian", "apt-doc", None, "GPL-2+",
        ("apt-guide", E, "tutorial", "plain", DOC + "apt-doc/guide.text.gz", "APT User's Guide")),
    pkg("debian", "util-linux", None, "GPL-2+",
        ("util-linux-pull-request", E, "guide", "plain", DOC + "util-linux/howto-pull-request.txt.gz",
         "util-linux: how to send a pull request"),
        ("util-linux-contribute", T, "guide", "plain", DOC + "util-linux/howto-contribute.txt.gz",
         "util-linux: how to contribute")),
    pkg("debian", "mdadm", None, "GPL-2+",
        ("mdadm-faq", E, "manual", "plain", DOC + "mdadm/FAQ.gz", "mdadm Frequently Asked Questions")),
    pkg("debian", "postfix-doc", None, "IPL-1.0 or EPL-2.0",
        *[(f"postfix-{n.lower().replace('_', '-')}", E, "manual", "plain", f"{PF}{n}.gz", f"Postfix {n}")
          for n in ("BASIC_CONFIGURATION_README", "SMTPD_ACCESS_README", "DEBUG_README", "FILTER_README", "OVERVIEW")],
        *[(f"postfix-{n.lower().replace('_', '-')}", T, "manual", "plain", f"{PF}{n}.gz", f"Postfix {n}")
          for n in ("SASL_README", "SCHEDULER_README", "QSHAPE_README", "VIRTUAL_README",
                    "TUNING_README", "STANDARD_CONFIGURATION_README", "ADDRESS_REWRITING_README")]),
    pkg("debian", "mutt", None, "GPL-2+",
        ("mutt-manual", T, "manual", "plain", DOC + "mutt/manual.txt.gz", "The Mutt E-Mail Client manual")),
    pkg("debian", "nethack-common", None, "NGPL",
        ("nethack-guidebook", T, "manual", "plain", DOC + "nethack-common/Guidebook.txt.gz",
         "A Guide to the Mazes of Menace (NetHack Guidebook)")),
    pkg("debian", "cryptsetup", None, "CC-BY-SA-3.0 (FAQ); see package copyright",
        ("cryptsetup-faq", T, "manual", "markdown", DOC + "cryptsetup/FAQ.md.gz",
         "Frequently Asked Questions Cryptsetup/LUKS")),
    pkg("debian", "texlive-latex-base-doc", None, "LPPL-1.3c",
        ("latex-clsguide", E, "latex", "latex", TL + "base/clsguide.tex.gz", "LaTeX for package and class authors"),
        ("latex-usrguide", E, "latex", "latex", TL + "base/usrguide.tex.gz", "New LaTeX methods for authors"),
        ("latex-fntguide", E, "latex", "latex", TL + "base/fntguide.tex.gz", "LaTeX font selection"),
        ("latex-encguide", E, "latex", "latex", TL + "base/encguide.tex.gz", "LaTeX font encodings"),
        ("latex-cfgguide", E, "latex", "latex", TL + "base/cfgguide.tex.gz", "Configuration options for LaTeX"),
        ("ltnews31", E, "latex", "latex", TL + "base/ltnews31.tex.gz", "LaTeX News, issue 31"),
        ("ltnews33", E, "latex", "latex", TL + "base/ltnews33.tex.gz", "LaTeX News, issue 33"),
        ("ltnews36", E, "latex", "latex", TL + "base/ltnews36.tex.gz", "LaTeX News, issue 36"),
        ("amsldoc", E, "latex", "latex", TL + "amsmath/amsldoc.tex.gz", "User's Guide for the amsmath Package"),
        ("grfguide", E, "latex", "latex", TL + "graphics/grfguide.tex.gz", "Packages in the 'graphics' bundle"),
        *[(f"ltnews{n}", T, "latex", "latex", f"{TL}base/ltnews{n}.tex.gz", f"LaTeX News, issue {n}")
          for n in ("28", "29", "30", "32", "34")],
        ("ltnews35", E, "latex", "latex", TL + "base/ltnews35.tex.gz", "LaTeX News, issue 35"),
        ("latex-modguide", E, "latex", "latex", TL + "base/modguide.tex.gz", "Modifying LaTeX"),
        ("latex-usrguide-historic", T, "latex", "latex", TL + "base/usrguide-historic.tex.gz",
         "LaTeX2e for authors (historic version)"),
        ("psnfss2e", T, "latex", "latex", TL + "psnfss/psnfss2e.tex.gz", "Using common PostScript fonts with LaTeX")),
    pkg("debian", "texlive-latex-recommended-doc", None, "LPPL-1.3c or GPL-2+ (beamer); LPPL (others)",
        *[(f"beamerug-{n}", T, "latex", "latex", f"{TL}beamer/beamerug-{n}.tex.gz", f"The beamer class user guide: {n}")
          for n in ("introduction", "tutorial", "guidelines", "frames", "overlays", "animations", "themes",
                    "localstructure", "globalstructure", "color", "fonts", "emulation", "nonpresentation")],
        ("etoolbox-doc", T, "latex", "latex", TL + "etoolbox/etoolbox.tex.gz", "The etoolbox package"),
        ("fancyvrb-doc", T, "latex", "latex", TL + "fancyvrb/fancyvrb-doc.tex.gz", "The fancyvrb package")),
    pkg("debian", "texlive-metapost-doc", None, "LGPL (MetaPost manual)",
        ("mpman", T, "latex", "latex", "usr/share/doc/texlive-doc/metapost/base/source-manual/mpman.tex.gz",
         "A User's Manual for MetaPost")),
    # ---- PyPI (source distributions) -------------------------------------------------------
    pkg("pypi", "flask", "3.1.3", "BSD-3-Clause",
        ("flask-design", E, "essay", "rst", "flask-3.1.3/docs/design.rst", "Design Decisions in Flask"),
        ("flask-tutorial-views", E, "tutorial", "rst", "flask-3.1.3/docs/tutorial/views.rst",
         "Flask tutorial: Blueprints and Views"),
        ("flask-tutorial-blog", T, "tutorial", "rst", "flask-3.1.3/docs/tutorial/blog.rst", "Flask tutorial: Blog Blueprint"),
        ("flask-tutorial-tests", T, "tutorial", "rst", "flask-3.1.3/docs/tutorial/tests.rst",
         "Flask tutorial: Test Coverage"),
        ("flask-quickstart", E, "tutorial", "rst", "flask-3.1.3/docs/quickstart.rst", "Flask Quickstart"),
        ("flask-extensiondev", T, "guide", "rst", "flask-3.1.3/docs/extensiondev.rst", "Flask Extension Development")),
    pkg("pypi", "click", "8.5.1", "BSD-3-Clause",
        ("click-why", E, "essay", "markdown", "click-8.5.1/docs/why.md", "Why Click?"),
        ("click-quickstart", T, "tutorial", "markdown", "click-8.5.1/docs/quickstart.md", "Click Quickstart")),
    pkg("pypi", "attrs", "26.1.0", "MIT",
        ("attrs-why", E, "essay", "markdown", "attrs-26.1.0/docs/why.md", "Why not…"),
        ("attrs-how-it-works", T, "essay", "markdown", "attrs-26.1.0/docs/how-does-it-work.md", "How Does It Work?")),
    pkg("pypi", "trio", "0.35.0", "MIT OR Apache-2.0",
        ("trio-design", E, "essay", "rst", "trio-0.35.0/docs/source/design.rst", "Trio: Design and internals"),
        ("trio-readme", E, "readme", "rst", "trio-0.35.0/README.rst", "Trio README"),
        ("trio-tutorial", T, "tutorial", "rst", "trio-0.35.0/docs/source/tutorial.rst", "Trio tutorial"),
        ("trio-contributing", T, "guide", "rst", "trio-0.35.0/docs/source/contributing.rst",
         "Contributing to Trio and related projects")),
    pkg("pypi", "django", "5.2.19", "BSD-3-Clause",
        ("django-design-philosophies", E, "essay", "rst", "django-5.2.19/docs/misc/design-philosophies.txt",
         "Django design philosophies"),
        ("django-tutorial01", E, "tutorial", "rst", "django-5.2.19/docs/intro/tutorial01.txt",
         "Writing your first Django app, part 1"),
        ("django-tutorial02", E, "tutorial", "rst", "django-5.2.19/docs/intro/tutorial02.txt",
         "Writing your first Django app, part 2"),
        *[(f"django-tutorial0{n}", T, "tutorial", "rst", f"django-5.2.19/docs/intro/tutorial0{n}.txt",
           f"Writing your first Django app, part {n}") for n in (3, 4, 5)]),
    pkg("pypi", "black", "26.10.1", "MIT",
        ("black-current-style", E, "essay", "markdown", "black-26.10.1/docs/the_black_code_style/current_style.md",
         "The Black code style"),
        ("black-readme", E, "readme", "markdown", "black-26.10.1/README.md", "Black README"),
        ("black-contributing", E, "guide", "markdown", "black-26.10.1/docs/contributing/the_basics.md",
         "Contributing to Black: the basics"),
        ("black-future-style", T, "essay", "markdown", "black-26.10.1/docs/the_black_code_style/future_style.md",
         "The (future of the) Black code style"),
        ("black-issue-triage", T, "guide", "markdown", "black-26.10.1/docs/contributing/issue_triage.md",
         "Issue triage")),
    pkg("pypi", "werkzeug", "3.1.9", "BSD-3-Clause",
        ("werkzeug-tutorial", E, "tutorial", "rst", "werkzeug-3.1.9/docs/tutorial.rst", "Werkzeug Tutorial")),
    pkg("pypi", "scrapy", "2.19.0", "BSD-3-Clause",
        ("scrapy-tutorial", E, "tutorial", "rst", "scrapy-2.19.0/docs/intro/tutorial.rst", "Scrapy Tutorial"),
        ("scrapy-contributing", E, "guide", "rst", "scrapy-2.19.0/docs/contributing.rst", "Contributing to Scrapy"),
        ("scrapy-practices", T, "guide", "rst", "scrapy-2.19.0/docs/topics/practices.rst", "Scrapy: Common Practices")),
    pkg("pypi", "pip", "26.3", "MIT",
        ("pip-ux-mental-models", E, "essay", "markdown",
         "pip-26.3/docs/html/ux-research-design/research-results/mental-models.md",
         "How do users think about pip? (UX research results)"),
        ("pip-ux-personas", T, "essay", "markdown",
         "pip-26.3/docs/html/ux-research-design/research-results/personas.md", "pip personas (UX research results)"),
        ("pip-contributing", T, "guide", "rst", "pip-26.3/docs/html/development/contributing.rst", "Contributing to pip")),
    pkg("pypi", "structlog", "26.1.0", "MIT OR Apache-2.0",
        ("structlog-getting-started", E, "tutorial", "markdown", "structlog-26.1.0/docs/getting-started.md",
         "structlog: Getting Started")),
    pkg("pypi", "markdown", "3.11.3", "BSD-3-Clause",
        ("python-markdown-contributing", E, "guide", "markdown", "markdown-3.11.3/docs/contributing.md",
         "Contributing to Python-Markdown")),
    pkg("pypi", "sphinx", "9.0.4", "BSD-2-Clause",
        ("sphinx-quickstart", E, "tutorial", "rst", "sphinx-9.0.4/doc/usage/quickstart.rst", "Getting started with Sphinx"),
        ("sphinx-extending-build", T, "tutorial", "rst",
         "sphinx-9.0.4/doc/development/tutorials/extending_build.rst", "Extending the build process")),
    pkg("pypi", "brotli", "1.2.1", "public-domain (texts); MIT (package)",
        ("alice-in-wonderland", E, "fiction", "plain", "brotli-1.2.1/tests/testdata/alice29.txt",
         "Alice's Adventures in Wonderland (Lewis Carroll)"),
        ("loc-electronic-texts-workshop", T, "speech", "plain", "brotli-1.2.1/tests/testdata/lcet10.txt",
         "Workshop on Electronic Texts: Proceedings (Library of Congress, 1992)")),
    pkg("pypi", "sentencepiece", "0.2.0", "public-domain (text); Apache-2.0 (package)",
        ("botchan", T, "fiction", "plain", "sentencepiece-0.2.0/test/botchan.txt",
         "Botchan (Natsume Soseki, tr. Yasotaro Morri)")),
    # ---- npm (package tarballs) ------------------------------------------------------------
    pkg("npm", "dotenv", "18.0.10", "BSD-2-Clause", ("dotenv-readme", E, "readme", "markdown", "package/README.md", "dotenv README")),
    pkg("npm", "standard", "17.1.2", "MIT",
        ("standard-readme", E, "readme", "markdown", "package/README.md", "JavaScript Standard Style README"),
        ("standard-rules", T, "guide", "markdown", "package/RULES.md", "JavaScript Standard Style rules")),
    pkg("npm", "q", "2.0.3", "MIT", ("q-readme", E, "readme", "markdown", "package/README.md", "Q (promises) README")),
    pkg("npm", "unified", "11.0.5", "MIT", ("unified-readme", E, "readme", "markdown", "package/readme.md", "unified README")),
    pkg("npm", "nodemon", "3.1.14", "MIT", ("nodemon-readme", E, "readme", "markdown", "package/README.md", "nodemon README")),
    pkg("npm", "node-fetch", "3.3.2", "MIT", ("node-fetch-readme", E, "readme", "markdown", "package/README.md", "node-fetch README")),
    pkg("npm", "debug", "4.4.3", "MIT", ("debug-readme", E, "readme", "markdown", "package/README.md", "debug README")),
    pkg("npm", "webpack", "5.112.2", "MIT", ("webpack-readme", E, "readme", "markdown", "package/README.md", "webpack README")),
    pkg("npm", "eslint", "10.15.0", "MIT", ("eslint-readme", E, "readme", "markdown", "package/README.md", "ESLint README")),
    pkg("npm", "request", "2.88.2", "Apache-2.0", ("request-readme", T, "readme", "markdown", "package/README.md", "request README")),
    pkg("npm", "got", "14.6.6", "MIT", ("got-readme", T, "readme", "markdown", "package/readme.md", "Got README")),
    pkg("npm", "chalk", "5.6.2", "MIT", ("chalk-readme", T, "readme", "markdown", "package/readme.md", "Chalk README")),
    pkg("npm", "commander", "14.0.3", "MIT", ("commander-readme", T, "readme", "markdown", "package/Readme.md", "Commander.js README")),
    pkg("npm", "express", "5.3.0", "MIT", ("express-readme", T, "readme", "markdown", "package/Readme.md", "Express README")),
    pkg("npm", "ws", "8.23.0", "MIT", ("ws-readme", T, "readme", "markdown", "package/README.md", "ws README")),
    pkg("npm", "socket.io", "4.8.4", "MIT", ("socket-io-readme", T, "readme", "markdown", "package/Readme.md", "Socket.IO README")),
    pkg("npm", "mongoose", "9.12.1", "MIT", ("mongoose-readme", T, "readme", "markdown", "package/README.md", "Mongoose README")),
    pkg("npm", "micromark", "4.0.3", "MIT", ("micromark-readme", T, "readme", "markdown", "package/readme.md", "micromark README")),
    pkg("npm", "vfile", "6.0.3", "MIT", ("vfile-readme", T, "readme", "markdown", "package/readme.md", "vfile README")),
    pkg("npm", "remark", "15.0.1", "MIT", ("remark-readme", T, "readme", "markdown", "package/readme.md", "remark README")),
    pkg("npm", "mdast-util-from-markdown", "2.1.0", "MIT",
        ("mdast-util-from-markdown-readme", T, "readme", "markdown", "package/readme.md", "mdast-util-from-markdown README")),
    pkg("npm", "semantic-release", "24.2.9", "MIT",
        ("semantic-release-faq", T, "manual", "markdown", "package/docs/support/FAQ.md", "semantic-release FAQ"),
        ("semantic-release-workflow", T, "guide", "markdown", "package/docs/usage/workflow-configuration.md",
         "semantic-release: workflow configuration"),
        ("semantic-release-pre-releases", T, "tutorial", "markdown",
         "package/docs/recipes/release-workflow/pre-releases.md", "semantic-release recipe: publishing pre-releases"),
        ("semantic-release-maintenance", T, "tutorial", "markdown",
         "package/docs/recipes/release-workflow/maintenance-releases.md",
         "semantic-release recipe: publishing maintenance releases")),
    pkg("npm", "npm", "10.9.2", "Artistic-2.0",
        ("npm-developers", E, "guide", "markdown", "package/docs/content/using-npm/developers.md", "npm: Developer Guide"),
        ("npm-scripts", T, "manual", "markdown", "package/docs/content/using-npm/scripts.md", "npm: scripts"),
        ("npm-folders", T, "manual", "markdown", "package/docs/content/configuring-npm/folders.md", "npm: folders")),
)


# ---------------------------------------------------------------------------------------------
# Splits
# ---------------------------------------------------------------------------------------------


def id_hash(doc_id: str) -> str:
    return hashlib.sha256(f"segue-prose:{doc_id}".encode()).hexdigest()


def assign_splits(catalogue: tuple[Package, ...]) -> dict[str, str]:
    """dev or test for eval documents by a hash of the id; train documents as catalogued.

    The hash's first 32 bits decide (even: dev, odd: test). Then, per genre, while one side has
    fewer than min(3, n // 2) documents, the other side's document with the smallest hash moves
    over. The result depends only on the ids and genres.
    """
    splits: dict[str, str] = {}
    by_genre: dict[str, list[Doc]] = defaultdict(list)
    for p in catalogue:
        for d in p.docs:
            if d.pool == T:
                splits[d.id] = "train"
            else:
                by_genre[d.genre].append(d)
    for genre, docs in sorted(by_genre.items()):
        docs.sort(key=lambda d: id_hash(d.id))
        side = {d.id: ("dev" if int(id_hash(d.id)[:8], 16) % 2 == 0 else "test") for d in docs}
        need = min(MIN_EVAL_PER_GENRE, len(docs) // 2)
        for want, other in (("dev", "test"), ("test", "dev")):
            while sum(v == want for v in side.values()) < need:
                mover = next(d for d in docs if side[d.id] == other)
                side[mover.id] = want
        splits.update(side)
    return splits


# ---------------------------------------------------------------------------------------------
# Fetching
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fetched:
    registry: str
    name: str
    version: str
    path: Path
    sha256: str


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _run(cmd: list[str], cwd: Path | None = None) -> str:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr.strip()[-2000:]}")
    return proc.stdout


def _apt_candidate(package: str) -> str | None:
    out = _run(["apt-cache", "policy", package])
    m = re.search(r"^\s*Candidate:\s*(\S+)", out, re.M)
    return m.group(1) if m and m.group(1) != "(none)" else None


def fetch_debian(name: str, cache: Path) -> Fetched:
    """``apt-get download`` the archive's candidate version into ``cache`` (reused when present)."""
    if not shutil.which("apt-get") or not shutil.which("dpkg-deb"):
        raise RuntimeError("Debian packages need apt-get and dpkg-deb (a Debian bookworm machine)")
    version = _apt_candidate(name)
    if version is None and os.geteuid() == 0:
        print("  apt-get update (no package lists yet)", file=sys.stderr)
        _run(["apt-get", "update"])
        version = _apt_candidate(name)
    if version is None:
        raise RuntimeError(f"apt knows no candidate for {name}: run 'apt-get update' first")
    cache.mkdir(parents=True, exist_ok=True)

    def find() -> Path | None:
        for deb in sorted(cache.glob(f"{name}_*.deb")):
            if _run(["dpkg-deb", "-f", str(deb), "Version"]).strip() == version:
                return deb
        return None

    deb = find()
    if deb is None:
        cmd = ["apt-get", "download", "-q", f"{name}={version}"]
        if os.geteuid() == 0:  # root: skip the _apt sandbox, which cannot write into our cache
            cmd[1:1] = ["-o", "APT::Sandbox::User=root"]
        _run(cmd, cwd=cache)
        deb = find()
        if deb is None:
            raise RuntimeError(f"apt-get download {name}={version} left no .deb in {cache}")
    return Fetched("debian", name, version, deb, sha256_file(deb))


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def fetch_pypi(name: str, version: str, cache: Path) -> Fetched:
    """``pip download`` the pinned source distribution, without dependencies."""
    cache.mkdir(parents=True, exist_ok=True)

    def find() -> Path | None:
        for f in sorted(cache.iterdir()):
            stem = f.name.lower()
            if _norm(stem).startswith(f"{_norm(name)}_{_norm(version)}") and stem.endswith((".tar.gz", ".zip")):
                return f
        return None

    dist = find()
    if dist is None:
        _run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps",
              "--no-binary", ":all:", "--dest", str(cache), f"{name}=={version}"])
        dist = find()
        if dist is None:
            raise RuntimeError(f"pip download {name}=={version} left no source distribution in {cache}")
    return Fetched("pypi", name, version, dist, sha256_file(dist))


def fetch_npm(name: str, version: str, cache: Path) -> Fetched:
    """``npm pack name@version`` into ``cache`` (the registry tarball, unchanged)."""
    if not shutil.which("npm"):
        raise RuntimeError("npm packages need the npm client")
    cache.mkdir(parents=True, exist_ok=True)
    expected = cache / f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
    if not expected.exists():
        _run(["npm", "pack", "--silent", f"{name}@{version}", "--pack-destination", str(cache)], cwd=cache)
        if not expected.exists():
            raise RuntimeError(f"npm pack {name}@{version} left no {expected.name} in {cache}")
    return Fetched("npm", name, version, expected, sha256_file(expected))


def read_members(fetched: Fetched, wanted: set[str]) -> dict[str, bytes]:
    """The bytes of the wanted members. Debian ``.gz`` members come back decompressed."""
    found: dict[str, bytes] = {}
    if fetched.registry == "debian":
        # stderr is silenced: stopping early at the last wanted member breaks dpkg-deb's pipe.
        proc = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(fetched.path)], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
        assert proc.stdout is not None
        try:
            with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
                for member in tar:
                    name = member.name.removeprefix("./")
                    if member.isfile() and name in wanted:
                        data = tar.extractfile(member).read()
                        found[name] = gzip.decompress(data) if name.endswith(".gz") else data
                        if len(found) == len(wanted):
                            break
        finally:
            proc.stdout.close()
            proc.wait()
    else:
        with tarfile.open(fetched.path, "r:*") as tar:
            for member in tar:
                if member.isfile() and member.name in wanted:
                    found[member.name] = tar.extractfile(member).read()
    missing = sorted(wanted - found.keys())
    if missing:
        raise RuntimeError(f"{fetched.name} {fetched.version}: members not found: {', '.join(missing)}")
    return found


def fetch(p: Package, cache: Path) -> Fetched:
    if p.registry == "debian":
        return fetch_debian(p.name, cache / "debian")
    if p.registry == "pypi":
        return fetch_pypi(p.name, p.version, cache / "pypi")
    if p.registry == "npm":
        return fetch_npm(p.name, p.version, cache / "npm")
    raise ValueError(p.registry)


# ---------------------------------------------------------------------------------------------
# Manifest
# ---------------------------------------------------------------------------------------------


def read_manifest(path: Path = MANIFEST) -> dict[str, dict[str, str]]:
    if not path.exists():
        return {}
    with path.open(newline="", encoding="utf-8") as fh:
        return {row["id"]: row for row in csv.DictReader(fh, delimiter="\t")}


def write_tsv(path: Path, rows: list[dict], columns: tuple[str, ...]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=columns, delimiter="\t", lineterminator="\n")
        w.writeheader()
        for row in rows:
            w.writerow({c: row[c] for c in columns})


def words(data: bytes) -> int:
    """Whitespace-separated tokens of the raw file (decoded as UTF-8, Latin-1 if that fails)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return len(text.split())


def table(rows: list[dict]) -> str:
    """Markdown tables: documents and words per genre x split, and per format x split."""
    out = []
    for key, order in (("genre", GENRES), ("format", tuple(EXT))):
        docs: Counter = Counter()
        wc: Counter = Counter()
        for r in rows:
            docs[r[key], r["split"]] += 1
            wc[r[key], r["split"]] += int(r["words"])
        out.append(f"| {key} | " + " | ".join(f"{s} docs | {s} words" for s in SPLITS) + " |")
        out.append("|---|" + "---:|" * (2 * len(SPLITS)))
        for k in order:
            out.append(f"| {k} | " + " | ".join(f"{docs[k, s]} | {wc[k, s]:,}" for s in SPLITS) + " |")
        out.append("| **all** | " + " | ".join(
            f"**{sum(docs[k, s] for k in order)}** | **{sum(wc[k, s] for k in order):,}**" for s in SPLITS) + " |")
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------


def build(out: Path, cache: Path, write_manifest: bool, write_slice: bool) -> int:
    splits = assign_splits(CATALOGUE)
    committed = read_manifest()
    ids = [d.id for p in CATALOGUE for d in p.docs]
    dupes = [i for i, n in Counter(ids).items() if n > 1]
    if dupes:
        raise RuntimeError(f"duplicate ids: {dupes}")
    for doc_id in SLICE:
        if splits.get(doc_id) != "dev":
            raise RuntimeError(f"slice document {doc_id} is not in dev")
    if out.exists():
        for split in SPLITS:
            shutil.rmtree(out / split, ignore_errors=True)
    rows, packages, errors, warnings = [], [], [], []
    seen_digests: dict[str, str] = {}
    for p in CATALOGUE:
        started = time.monotonic()
        fetched = fetch(p, cache)
        packages.append({"registry": p.registry, "package": p.name, "version": fetched.version,
                         "file": fetched.path.name, "sha256": fetched.sha256})
        data = read_members(fetched, {d.member for d in p.docs})
        for d in p.docs:
            content = data[d.member]
            digest = sha256_bytes(content)
            if digest in seen_digests:
                errors.append(f"{d.id}: same bytes as {seen_digests[digest]}")
            seen_digests[digest] = d.id
            split = splits[d.id]
            target = out / split / d.genre / f"{d.id}{EXT[d.format]}"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
            row = {"id": d.id, "split": split, "genre": d.genre, "format": d.format, "registry": p.registry,
                   "package": p.name, "version": fetched.version, "member": d.member, "licence": d.licence,
                   "sha256": digest, "words": str(words(content)), "title": d.title,
                   "slice": "yes" if d.id in SLICE else "no"}
            rows.append(row)
            want = committed.get(d.id)
            if write_manifest:  # the manifest is being rewritten: report differences, do not fail
                if want is not None and (want["sha256"], want["split"]) != (digest, split):
                    warnings.append(f"{d.id}: changed since the committed manifest")
            elif want is None:
                errors.append(f"{d.id}: not in {MANIFEST.name}")
            elif want["sha256"] != digest:
                msg = f"{d.id}: sha256 {digest[:12]}… != manifest {want['sha256'][:12]}…"
                if p.registry == "debian" and want["version"] != fetched.version:
                    warnings.append(f"{msg} (Debian {p.name} {want['version']} -> {fetched.version})")
                else:
                    errors.append(msg)
            elif want["split"] != split:
                errors.append(f"{d.id}: split {split} != manifest {want['split']}")
        print(f"{p.registry:6} {p.name} {fetched.version}: {len(p.docs)} documents "
              f"({time.monotonic() - started:.0f}s)", file=sys.stderr)
    stale = sorted(committed.keys() - set(ids))
    if stale:
        (warnings if write_manifest else errors).append(f"in {MANIFEST.name} but not catalogued: {', '.join(stale)}")
    rows.sort(key=lambda r: (SPLITS.index(r["split"]), GENRES.index(r["genre"]), r["id"]))
    write_tsv(out / "manifest.tsv", rows, COLUMNS)
    write_tsv(out / "packages.tsv", packages, ("registry", "package", "version", "file", "sha256"))
    if write_manifest:
        write_tsv(MANIFEST, rows, COLUMNS)
        print(f"wrote {MANIFEST}", file=sys.stderr)
    if write_slice:
        shutil.rmtree(SLICE_DIR, ignore_errors=True)
        SLICE_DIR.mkdir(parents=True)
        for r in rows:
            if r["slice"] == "yes":
                src = out / r["split"] / r["genre"] / f"{r['id']}{EXT[r['format']]}"
                (SLICE_DIR / r["genre"]).mkdir(exist_ok=True)
                shutil.copyfile(src, SLICE_DIR / r["genre"] / src.name)
        print(f"wrote {SLICE_DIR}", file=sys.stderr)
    print(table(rows), file=sys.stderr)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    for e in errors:
        print(f"error: {e}", file=sys.stderr)
    return 1 if errors else 0


OUTSIDE = HERE / "outside.tsv"
DEFAULT_OUTSIDE_OUT = REPO_ROOT / "target" / "prose-outside"


def build_outside(out: Path, cache: Path) -> int:
    """Fetch the documents of ``outside.tsv`` (read once, outside the corpus) into
    ``OUT/<round>/<id>``: one folder per reading, in the layout ``segue eval --task prose`` reads."""
    with OUTSIDE.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    by_package: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for r in rows:
        by_package[(r["registry"], r["package"], r["version"])].append(r)
    for (registry, name, version), docs in sorted(by_package.items()):
        fetched = fetch(Package(registry, name, version, "", ()), cache)
        data = read_members(fetched, {d["member"] for d in docs})
        for d in docs:
            target = out / d["round"] / d["id"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data[d["member"]])
        print(f"{registry:6} {name} {fetched.version}: {len(docs)} documents", file=sys.stderr)
    print(f"wrote {len(rows)} documents to {out}", file=sys.stderr)
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: target/prose)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="download cache (default: target/prose-cache)")
    parser.add_argument("--list", action="store_true", help="list the documents (id, split, genre, format, package) and exit")
    parser.add_argument("--table", action="store_true", help="print the counts table of the committed manifest and exit")
    parser.add_argument("--write-manifest", action="store_true",
                        help="rewrite tests/prose/manifest.tsv from this build (maintainers)")
    parser.add_argument("--write-slice", action="store_true", help="rewrite tests/prose/slice/ from this build (maintainers)")
    parser.add_argument("--outside", action="store_true",
                        help="fetch the documents of tests/prose/outside.tsv instead, into --out "
                             "(default: target/prose-outside)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.list:
        splits = assign_splits(CATALOGUE)
        for p in CATALOGUE:
            for d in p.docs:
                print(f"{d.id:34} {splits[d.id]:5} {d.genre:8} {d.format:8} {p.registry:6} {p.name}"
                      f"{'==' + p.version if p.version else ''}")
        return 0
    if args.table:
        print(table(list(read_manifest().values())))
        return 0
    started = time.monotonic()
    if args.outside:
        out = args.out if args.out != DEFAULT_OUT else DEFAULT_OUTSIDE_OUT
        return build_outside(out.resolve(), args.cache.resolve())
    rc = build(args.out.resolve(), args.cache.resolve(), args.write_manifest, args.write_slice)
    print(f"wrote {args.out} in {time.monotonic() - started:.0f}s", file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
