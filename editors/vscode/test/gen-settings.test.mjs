import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { CLIENT_SETTINGS, generate, restricted, serverBinary } from "../scripts/gen-settings.mjs";

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
  // Every key the server takes from user settings only is restricted here.
  const userOnly = Object.keys(schema.properties).filter((k) => schema.properties[k]["x-user-only"] === true);
  assert.ok(userOnly.length >= 2, JSON.stringify(userOnly));
  for (const k of userOnly) {
    assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(`segue.${k}`), k);
  }
});

test("generate makes the server's user-only settings machine-scoped and restricted", () => {
  const c = generate({
    properties: {
      ort_dylib: { type: ["string", "null"], default: null, description: "Lib.", "x-user-only": true },
      sensitivity: { type: "string", default: "medium", description: "How eagerly." },
    },
  });
  assert.equal(c.properties["segue.ort_dylib"].scope, "machine");
  assert.equal(c.properties["segue.sensitivity"].scope, undefined);
  assert.deepEqual(restricted(c), ["segue.ort_dylib", "segue.server.path"]);
});

test("package.json: settings that name code or models to load come from user settings only", () => {
  const list = manifest.capabilities.untrustedWorkspaces.restrictedConfigurations;
  const props = manifest.contributes.configuration.properties;
  for (const key of ["segue.server.path", "segue.ort_dylib", "segue.models_dir"]) {
    assert.ok(list.includes(key), `${key} is not in restrictedConfigurations`);
    assert.equal(props[key].scope, "machine", `${key} is not machine-scoped`);
  }
  assert.deepEqual(list, restricted(manifest.contributes.configuration));
});

test("package.json: activation, commands", () => {
  for (const lang of ["markdown", "restructuredtext", "latex", "tex", "plaintext"]) assert.ok(manifest.activationEvents.includes(`onLanguage:${lang}`));
  const commands = manifest.contributes.commands.map((c) => c.command);
  for (const c of ["segue.checkWorkspace", "segue.reorderParagraphs", "segue.restartServer", "segue.showOutput", "segue.showDocumentSummary"]) {
    assert.ok(commands.includes(c), c);
  }
  assert.equal(manifest.main, "./dist/extension.js");
});
