import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { CLIENT_SETTINGS, generate, serverBinary } from "../scripts/gen-settings.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));

test("generate maps every schema property to segue.<key>", () => {
  const schema = {
    properties: {
      sensitivity: { type: "string", enum: ["low", "medium", "high"], default: "medium", description: "How eagerly." },
      debounce: { type: "integer", minimum: 0, maximum: 60000, default: 250, description: "Ms." },
    },
  };
  const c = generate(schema);
  assert.deepEqual(Object.keys(c.properties), ["segue.debounce", "segue.sensitivity", ...Object.keys(CLIENT_SETTINGS)]);
  assert.deepEqual(c.properties["segue.sensitivity"], { type: "string", enum: ["low", "medium", "high"], default: "medium", description: "How eagerly.", order: 1 });
  assert.equal(c.properties["segue.debounce"].maximum, 60000);
  assert.throws(() => generate({ properties: { x: { type: "string" } } }), /default/);
});

test("package.json contributes exactly the server's settings plus the client's", (t) => {
  let schema;
  try {
    schema = JSON.parse(execFileSync(serverBinary(), ["settings", "--schema"], { encoding: "utf8" }));
  } catch {
    t.skip(`no server binary (${serverBinary()}) to read the schema from`);
    return;
  }
  assert.deepEqual(manifest.contributes.configuration, generate(schema));
});

test("package.json: activation, commands", () => {
  for (const lang of ["markdown", "restructuredtext", "latex", "tex", "plaintext"]) assert.ok(manifest.activationEvents.includes(`onLanguage:${lang}`));
  const commands = manifest.contributes.commands.map((c) => c.command);
  for (const c of ["segue.checkWorkspace", "segue.reorderParagraphs", "segue.restartServer", "segue.showOutput", "segue.showDocumentSummary"]) {
    assert.ok(commands.includes(c), c);
  }
  assert.equal(manifest.main, "./dist/extension.js");
});
