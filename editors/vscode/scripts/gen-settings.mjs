// Generates `contributes.configuration` in package.json from the server's settings schema
// (`segue settings --schema`), so the extension contributes every server setting under
// `segue.*` with the server's own types, allowed values, defaults and descriptions, followed by
// the client-only settings below. It also writes
// `capabilities.untrustedWorkspaces.restrictedConfigurations`: every setting that names code or
// models to load (the server's `x-user-only` keys, and the client's `segue.server.path`). Those
// are machine-scoped as well, so VS Code takes them from the user's settings only, never from a
// workspace's `.vscode/settings.json`, trusted or not.
//
// Usage:
//   node scripts/gen-settings.mjs           rewrite package.json
//   node scripts/gen-settings.mjs --check   exit 1 if package.json differs from the schema
//
// The server binary: $SEGUE_BIN, else target/debug/segue or target/release/segue of this
// repository (the newer of the two), else `segue` on PATH.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const extRoot = path.resolve(here, "..");
const repoRoot = path.resolve(extRoot, "..", "..");
const manifestPath = path.join(extRoot, "package.json");

/** Settings that only the client reads; they are never sent to the server. */
export const CLIENT_SETTINGS = {
  "segue.server.path": {
    type: "string",
    default: "",
    scope: "machine",
    markdownDescription:
      "Path of the `segue` binary to run as the language server (`segue serve`). Empty: the binary bundled with the extension, else `segue` on `PATH`. `~` and `${workspaceFolder}` are expanded; a relative path is taken from the first workspace folder. User settings only (a workspace cannot choose the binary). Changing it restarts the server.",
  },
  "segue.trace.server": {
    type: "string",
    enum: ["off", "messages", "verbose"],
    default: "off",
    scope: "window",
    description: "Traces the communication between VS Code and the Segue language server in the \"Segue Language Server Trace\" output channel.",
  },
};

export function serverBinary() {
  if (process.env.SEGUE_BIN) return process.env.SEGUE_BIN;
  const builds = ["debug", "release"]
    .map((p) => path.join(repoRoot, "target", p, process.platform === "win32" ? "segue.exe" : "segue"))
    .filter((p) => existsSync(p))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return builds[0] ?? "segue";
}

/** Maps one JSON Schema property of the server to a VS Code configuration property. */
function toProperty(schema, order) {
  const prop = {};
  for (const key of ["type", "enum", "items", "uniqueItems", "minimum", "maximum"]) {
    if (key in schema) prop[key] = schema[key];
  }
  if (!("default" in schema)) throw new Error("schema property without a default");
  prop.default = schema.default;
  prop.description = schema.description;
  // Code or model locations: the user's settings only (not a workspace's, trusted or not).
  if (schema["x-user-only"] === true) prop.scope = "machine";
  prop.order = order;
  return prop;
}

/**
 * The settings a workspace must not set: every machine-scoped one (code or model locations),
 * for `capabilities.untrustedWorkspaces.restrictedConfigurations`.
 */
export function restricted(configuration) {
  return Object.entries(configuration.properties)
    .filter(([, prop]) => prop.scope === "machine")
    .map(([key]) => key);
}

export function generate(schema) {
  const properties = {};
  const keys = Object.keys(schema.properties ?? {}).sort();
  if (keys.length === 0) throw new Error("the schema has no properties");
  keys.forEach((key, i) => {
    properties[`segue.${key}`] = toProperty(schema.properties[key], i);
  });
  Object.entries(CLIENT_SETTINGS).forEach(([key, prop], i) => {
    properties[key] = { ...prop, order: keys.length + i };
  });
  return { title: "Segue", properties };
}

function main() {
  const check = process.argv.includes("--check");
  const bin = serverBinary();
  let schemaText;
  try {
    schemaText = execFileSync(bin, ["settings", "--schema"], { encoding: "utf8" });
  } catch (e) {
    console.error(`gen-settings: cannot run \`${bin} settings --schema\`: ${e.message}`);
    console.error("Build the server first (cargo build -p segue) or set SEGUE_BIN.");
    process.exit(2);
  }
  const configuration = generate(JSON.parse(schemaText));
  const text = readFileSync(manifestPath, "utf8");
  const manifest = JSON.parse(text);
  manifest.contributes.configuration = configuration;
  manifest.capabilities.untrustedWorkspaces.restrictedConfigurations = restricted(configuration);
  const next = JSON.stringify(manifest, null, 2) + "\n";
  if (check) {
    if (next !== text) {
      const old = JSON.parse(text);
      const current = JSON.stringify(
        [old.contributes?.configuration ?? null, old.capabilities?.untrustedWorkspaces?.restrictedConfigurations ?? null],
        null,
        2,
      ).split("\n");
      const wanted = JSON.stringify([configuration, restricted(configuration)], null, 2).split("\n");
      const at = wanted.findIndex((line, i) => line !== current[i]);
      console.error(
        `gen-settings --check: editors/vscode/package.json is out of date with \`${bin} settings --schema\`.`,
      );
      if (at >= 0) {
        console.error(`first difference at line ${at + 1} of [contributes.configuration, restrictedConfigurations]:`);
        console.error(`  package.json: ${current[at] ?? "(missing)"}`);
        console.error(`  schema:       ${wanted[at]}`);
      }
      console.error("Run `npm run gen-settings` in editors/vscode and commit package.json.");
      process.exit(1);
    }
    console.log(`gen-settings --check: package.json matches the schema of ${bin}`);
  } else {
    writeFileSync(manifestPath, next);
    console.log(`gen-settings: wrote ${Object.keys(configuration.properties).length} settings to package.json (schema of ${bin})`);
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
