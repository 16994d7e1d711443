// Bundles a module of src/ for Node's test runner, with `vscode` replaced by vscode-stub.cjs.
import * as esbuild from "esbuild";
import { createRequire } from "node:module";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const dir = mkdtempSync(path.join(os.tmpdir(), "segue-vscode-test-"));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));

export async function load(name) {
  const outfile = path.join(dir, `${name}.cjs`);
  await esbuild.build({
    entryPoints: [path.join(here, "..", "src", `${name}.ts`)],
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    // `vscode` → the stub, required (not inlined) so that tests share its state.
    plugins: [
      {
        name: "vscode-stub",
        setup(build) {
          build.onResolve({ filter: /^vscode$/ }, () => ({ path: path.join(here, "vscode-stub.cjs"), external: true }));
        },
      },
    ],
    logLevel: "error",
  });
  return require(outfile);
}

export const vscodeStub = require("./vscode-stub.cjs");
