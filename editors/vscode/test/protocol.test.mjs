import assert from "node:assert/strict";
import { test } from "node:test";
import { load } from "./load.mjs";

const p = await load("protocol");

test("client-only settings are not sent to the server", () => {
  const sent = p.serverSettings({ sensitivity: "high", tier: "0", scorer: null, server: { path: "/x" }, trace: { server: "off" } });
  assert.deepEqual(sent, { sensitivity: "high", tier: "0", scorer: null });
  assert.equal(p.serverSettings(null), null);
});

test("status text", () => {
  const s = { uri: "file:///a.md", version: 1, score: 0.7249, scorer: "tier0", tier: 0, sentenceMedian: 0.3, paragraphMedian: 0.5, findings: 2, checked: true };
  assert.equal(p.statusText(s), "Segue 0.72 · tier 0");
  assert.equal(p.statusText({ ...s, checked: false }), "Segue —");
});

test("the server's score message is recognised (format of server/src/lsp/commands.rs)", () => {
  const s = { uri: "file:///a.md", version: 1, score: 0.3, scorer: "tier0", tier: 0, sentenceMedian: 0.3, paragraphMedian: 0.5, findings: 1, checked: true };
  const msg = "Segue: coherence 0.30 (tier0, tier 0), 1 weak transition(s)";
  assert.ok(p.isScoreMessage(msg));
  assert.equal(p.scoreMessage(s).exact, msg);
  const skipped = "Segue: file:///a.md is not checked: the file matches an `ignore` glob";
  assert.ok(p.isScoreMessage(skipped));
  assert.ok(skipped.startsWith(p.scoreMessage({ ...s, checked: false }).prefix));
  assert.ok(!p.isScoreMessage("Segue: editor settings: unknown key `foo`"));
});

test("reply shapes", () => {
  assert.ok(p.isDocumentScore({ score: 0.5, tier: 0, scorer: "tier0" }));
  assert.ok(!p.isDocumentScore({ score: "0.5" }));
  assert.ok(p.isWorkspaceCheck({ files: 3, findings: 1, errors: 0, cancelled: false }));
  assert.ok(!p.isWorkspaceCheck(null));
});
