import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { load, vscodeStub } from "./load.mjs";

const s = await load("server");
const tmp = mkdtempSync(path.join(os.tmpdir(), "segue-find-"));
process.on("exit", () => rmSync(tmp, { recursive: true, force: true }));
const exe = (p) => {
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, "#!/bin/sh\n");
  chmodSync(p, 0o755);
  return p;
};

test("expandPath", () => {
  assert.equal(s.expandPath("~/bin/segue", "/ws"), path.join(os.homedir(), "bin/segue"));
  assert.equal(s.expandPath("${workspaceFolder}/bin/segue", "/ws"), "/ws/bin/segue");
  assert.equal(s.expandPath("bin/segue", "/ws"), "/ws/bin/segue");
  assert.equal(s.expandPath(" /abs/segue ", undefined), "/abs/segue");
});

test("onPath finds executables only", () => {
  const dir = path.join(tmp, "path");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "segue"), "not executable");
  chmodSync(path.join(dir, "segue"), 0o644);
  assert.equal(s.onPath("segue", { PATH: dir }), undefined);
  chmodSync(path.join(dir, "segue"), 0o755);
  assert.equal(s.onPath("segue", { PATH: `/nonexistent${path.delimiter}${dir}` }), path.join(dir, "segue"));
});

test("findServer: setting, then bundled, then PATH, else a message with the fix", () => {
  const ext = path.join(tmp, "ext");
  const onPathDir = path.join(tmp, "onpath");
  exe(path.join(onPathDir, "segue"));
  const savedPath = process.env.PATH;
  process.env.PATH = onPathDir;
  try {
    vscodeStub.__state.settings = {};
    assert.deepEqual(s.findServer({ extensionPath: ext }), { kind: "found", path: path.join(onPathDir, "segue"), source: "PATH" });

    const bundled = exe(path.join(ext, "server", "segue"));
    chmodSync(bundled, 0o644); // lost its mode bits in the archive: made executable again
    assert.deepEqual(s.findServer({ extensionPath: ext }), { kind: "found", path: bundled, source: "bundled" });

    const custom = exe(path.join(tmp, "ws", "tools", "segue"));
    vscodeStub.__state.folders = [path.join(tmp, "ws")];
    vscodeStub.__state.settings = { "server.path": "tools/segue" };
    assert.deepEqual(s.findServer({ extensionPath: ext }), { kind: "found", path: custom, source: "setting" });

    vscodeStub.__state.settings = { "server.path": "/nonexistent/segue" };
    const bad = s.findServer({ extensionPath: ext });
    assert.equal(bad.kind, "not-found");
    assert.match(bad.message, /segue\.server\.path/);

    vscodeStub.__state.settings = {};
    process.env.PATH = path.join(tmp, "empty");
    const none = s.findServer({ extensionPath: path.join(tmp, "no-ext") });
    assert.equal(none.kind, "not-found");
    assert.match(none.message, /not found.*segue\.server\.path/s);
  } finally {
    process.env.PATH = savedPath;
    vscodeStub.__state.folders = undefined;
    vscodeStub.__state.settings = {};
  }
});
