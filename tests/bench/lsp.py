#!/usr/bin/env python3
"""Language-server rows of docs/performance.md, over stdio with a plain client: cold start to
first diagnostics, resident memory idle, with the models, and after a long editing session.

Usage: tests/bench/lsp.py BINARY DOCUMENT [--edits N] [--runs N] [--models | --models-only]
       tests/bench/lsp.py BINARY DOCUMENT --model-stage EDITS
Prints Markdown rows. Standard library only; Linux (/proc) for memory.
"""

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse


class Server:
    def __init__(self, binary, options, env=None):
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [binary, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env=None if env is None else {**os.environ, **env})
        self.options = options
        self.refreshes = 0
        self.inbox = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            self.inbox.put(json.loads(out.read(length)))

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        want = self.next_id
        return self.wait(lambda m: m.get("id") == want and "method" not in m)

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait(self, match, timeout=120.0):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching message")
            msg = self.inbox.get(timeout=left)
            if msg is None:
                raise EOFError("server exited")
            if "method" in msg and "id" in msg:  # a request from the server
                result = None
                if msg["method"] == "workspace/configuration":
                    result = [self.options] * len(msg["params"]["items"])
                if msg["method"] == "workspace/diagnostic/refresh":
                    self.refreshes += 1
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
                if match(msg):
                    return msg
                continue
            if match(msg):
                return msg

    def diagnostics(self, uri, version, timeout=120.0):
        return self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                         and m["params"]["uri"] == uri and m["params"].get("version") == version,
                         timeout)

    def memory(self):
        fields = {}
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    fields[key] = int(value.split()[0]) / 1024.0
        return fields

    def initialize(self, pull=False):
        caps = {"textDocument": {"publishDiagnostics": {"versionSupport": True}}}
        if pull:
            caps["textDocument"]["diagnostic"] = {"dynamicRegistration": False}
            caps["workspace"] = {"diagnostics": {"refreshSupport": True}}
        self.request("initialize", {"processId": None, "capabilities": caps,
                                    "initializationOptions": self.options})
        self.notify("initialized", {})

    def close(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


def open_doc(server, path, text):
    uri = "file://" + urllib.parse.quote(os.path.abspath(path))
    lang = "latex" if path.endswith(".tex") else "markdown"
    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": lang, "version": 1, "text": text}})
    return uri


def cold_start(binary, path, text, runs):
    times = []
    for _ in range(runs):
        s = Server(binary, {"debounce": 0, "tier": "0"})
        s.initialize()
        uri = open_doc(s, path, text)
        s.diagnostics(uri, 1)
        times.append((time.perf_counter() - s.started) * 1000)
        s.close()
    return statistics.median(times)


def prose_lines(text):
    return [i for i, l in enumerate(text.split("\n"))
            if len(l) > 40 and l[:1].isalpha()]


def session(binary, path, text, edits):
    """Idle memory, then `edits` edits (an `x` typed, then deleted) at tier 0 with the default
    debounce, then the memory once the last version's diagnostics arrive."""
    s = Server(binary, {"tier": "0"})
    s.initialize()
    time.sleep(0.2)
    idle = s.memory()
    uri = open_doc(s, path, text)
    s.diagnostics(uri, 1)
    opened = s.memory()
    lines = prose_lines(text)
    version = 1
    for k in range(edits):
        line = lines[(k // 2 * 37) % len(lines)]
        if k % 2 == 0:
            change = {"range": {"start": {"line": line, "character": 0},
                                "end": {"line": line, "character": 0}}, "text": "x"}
        else:
            change = {"range": {"start": {"line": line, "character": 0},
                                "end": {"line": line, "character": 1}}, "text": ""}
        version += 1
        s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                            "contentChanges": [change]})
    s.diagnostics(uri, version, timeout=600)
    after = s.memory()
    s.close()
    return idle, opened, after


def with_models(binary, path, text):
    """Peak memory of a server with the models (tier auto) once the model stage has published.
    Every stage publishes (as in `model_stage`), and when the models finish loading after the
    first tier-0 analysis, tier 0 publishes twice before the model stage does: the model stage's
    publish is the first whose diagnostics say tier 1, or, where it has none, the last before the
    server falls quiet for `QUIET` seconds."""
    s = Server(binary, {"debounce": 0}, env={"SEGUE_TIER0_PREVIEW_MS": "0"})
    s.initialize()
    uri = open_doc(s, path, text)
    s.diagnostics(uri, 1)
    staged = False
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            msg = s.diagnostics(uri, 1, timeout=QUIET if staged else deadline - time.monotonic())
        except (TimeoutError, queue.Empty):
            break
        staged = True
        if any((d.get("data") or {}).get("tier") == 1 for d in msg["params"]["diagnostics"]):
            break
    mem = s.memory()
    s.close()
    return mem, staged


# Seconds without a publish after which a server with the models is taken to have published its
# model stage (`with_models`).
QUIET = 5.0


def model_stage(binary, path, text, edits, debounce=0, pull=False):
    """Keystroke to the model stage's diagnostics with the models (tier auto, `debounce` as given,
    None for the server's default; pushed, or pulled as an editor pulls): one
    character typed into a prose line (a new line each time, so each edit changes one sentence of
    one paragraph), timed from `didChange` to the tier-0 publish and to the model stage's, which
    follows it for the same version. The server shows tier 0's diagnostics only when the model
    stage takes more than 300 ms after them; here it is told to show them always
    (`SEGUE_TIER0_PREVIEW_MS=0`), so that both are timed. Returns the two lists of milliseconds."""
    s = Server(binary, {} if debounce is None else {"debounce": debounce},
               env={"SEGUE_TIER0_PREVIEW_MS": "0"})
    s.initialize(pull)
    uri = open_doc(s, path, text)
    if pull:
        pull_model_stage(s, uri)
    else:
        s.diagnostics(uri, 1)
        s.diagnostics(uri, 1, timeout=300)
    lines = prose_lines(text)
    first, model = [], []
    for k in range(edits):
        line = lines[(k * 37) % len(lines)]
        change = {"range": {"start": {"line": line, "character": 0},
                            "end": {"line": line, "character": 0}}, "text": "x"}
        start = time.perf_counter()
        s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": k + 2},
                                            "contentChanges": [change]})
        if pull:
            pull_model_stage(s, uri, lambda: first.append((time.perf_counter() - start) * 1000))
        else:
            s.diagnostics(uri, k + 2)
            first.append((time.perf_counter() - start) * 1000)
            s.diagnostics(uri, k + 2, timeout=60)
        model.append((time.perf_counter() - start) * 1000)
    s.close()
    return first, model


def pull_model_stage(s, uri, on_first=lambda: None):
    """As an editor pulls: `textDocument/diagnostic` right away (calling `on_first` when it is
    answered), then again after each `workspace/diagnostic/refresh`, until the reply is the model
    stage's (its result id ends in `:model`)."""
    previous = None
    first = True
    while True:
        seen = s.refreshes
        reply = s.request("textDocument/diagnostic",
                          {"textDocument": {"uri": uri}, "previousResultId": previous})
        if first:
            on_first()
            first = False
        result = reply.get("result") or {}
        previous = result.get("resultId", previous)
        if (previous or "").endswith(":model"):
            return
        if s.refreshes == seen:
            s.wait(lambda m: m.get("method") == "workspace/diagnostic/refresh", timeout=300)


def previews(binary, path, text, edits):
    """With the models and the server's defaults but debounce 0: after each of `edits`
    one-character edits (as in `model_stage`), the publishes for the new version within two
    seconds. Returns the mean number per edit and how many edits had a publish with tier-0
    findings (tier 0's preview, shown before the model stage's diagnostics replaced it)."""
    s = Server(binary, {"debounce": 0})
    s.initialize()
    uri = open_doc(s, path, text)
    deadline = time.perf_counter() + 300
    while time.perf_counter() < deadline:  # until the model stage has scored the document
        score = s.request("workspace/executeCommand", {
            "command": "segue.showDocumentScore", "arguments": [{"uri": uri, "silent": True}]})
        if (score.get("result") or {}).get("scorer") == "embedding":
            break
        time.sleep(0.2)
    time.sleep(0.5)
    while not s.inbox.empty():
        s.inbox.get()
    lines = prose_lines(text)
    counts, shown = [], 0
    for k in range(edits):
        line = lines[(k * 37) % len(lines)]
        change = {"range": {"start": {"line": line, "character": 0},
                            "end": {"line": line, "character": 0}}, "text": "x"}
        s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": k + 2},
                                            "contentChanges": [change]})
        n, tier0 = 0, False
        deadline = time.perf_counter() + 2.0
        while time.perf_counter() < deadline:
            try:
                m = s.inbox.get(timeout=0.05)
            except queue.Empty:
                continue
            if (m and m.get("method") == "textDocument/publishDiagnostics"
                    and m["params"].get("version") == k + 2):
                n += 1
                tier0 |= any(d.get("data", {}).get("tier") == 0 for d in m["params"]["diagnostics"])
        counts.append(n)
        shown += tier0
    s.close()
    return sum(counts) / len(counts), shown


def percentile(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, round(p * (len(v) - 1)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary")
    ap.add_argument("document")
    ap.add_argument("--edits", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--models", action="store_true", help="also measure a server with the models")
    ap.add_argument("--models-only", action="store_true", help="only the row with the models")
    ap.add_argument("--model-stage", type=int, metavar="EDITS",
                    help="only the keystroke to model-stage diagnostics row, over EDITS edits")
    ap.add_argument("--default-debounce", action="store_true",
                    help="with --model-stage: the server's default debounce instead of 0")
    ap.add_argument("--pull", action="store_true",
                    help="with --model-stage: a pull client (refreshed when the model stage lands)")
    ap.add_argument("--previews", type=int, metavar="EDITS",
                    help="only the row of publishes per edit with the models, over EDITS edits")
    args = ap.parse_args()
    with open(args.document, encoding="utf-8") as f:
        text = f.read()
    name = os.path.basename(args.document)
    if args.model_stage:
        debounce = None if args.default_debounce else 0
        first, model = model_stage(args.binary, args.document, text, args.model_stage, debounce,
                                   args.pull)
        setting = (", default debounce" if debounce is None else "") + (", pull" if args.pull else "")
        print(f"| keystroke → model-stage diagnostics, {name}{setting}, p50 / p95 (tier 0 first: p50 / p95) "
              f"| {statistics.median(model):.0f} / {percentile(model, 0.95):.0f} ms "
              f"({statistics.median(first):.0f} / {percentile(first, 0.95):.0f} ms) |")
        return 0
    if args.previews:
        per_edit, shown = previews(args.binary, args.document, text, args.previews)
        print(f"| publishes per edit with the models, {name}; edits with tier 0's findings shown in passing "
              f"| {per_edit:.2f}; {shown} of {args.previews} |")
        return 0
    if args.models_only:
        args.models = True
    else:
        tier0_rows(args, name, text)
    if args.models:
        mem, staged = with_models(args.binary, args.document, text)
        note = "" if staged else " (the model stage did not publish: models missing?)"
        print(f"| RSS with the models, {name} analysed (peak) | {mem['VmRSS']:.0f} MB ({mem['VmHWM']:.0f} MB){note} |")
    return 0


def tier0_rows(args, name, text):
    cold = cold_start(args.binary, args.document, text, args.runs)
    print(f"| cold start to first diagnostics, {name}, tier 0 | {cold:.0f} ms |")
    idle, opened, after = session(args.binary, args.document, text, args.edits)
    print(f"| RSS idle (initialized, no document) | {idle['VmRSS']:.0f} MB |")
    print(f"| RSS with {name} open, tier 0 | {opened['VmRSS']:.0f} MB |")
    print(f"| RSS after {args.edits:,} edits of {name} (peak) | {after['VmRSS']:.0f} MB ({after['VmHWM']:.0f} MB) |")


if __name__ == "__main__":
    sys.exit(main())
