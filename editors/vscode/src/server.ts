// Finding the `segue` binary that runs as the language server.
//
// Order: the `segue.server.path` setting, then the binary bundled in the extension
// (`server/segue`, put there by scripts/package.sh), then `segue` on PATH.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";

export type ServerSource = "setting" | "bundled" | "PATH";

export interface Found {
  kind: "found";
  path: string;
  source: ServerSource;
}

export interface NotFound {
  kind: "not-found";
  /** What went wrong, for the user. */
  message: string;
}

const EXE = process.platform === "win32" ? "segue.exe" : "segue";

function isExecutableFile(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    if (process.platform !== "win32") fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Expands `~` and `${workspaceFolder}`; a relative path is taken from the first workspace folder. */
export function expandPath(raw: string, workspaceFolder: string | undefined): string {
  let p = raw.trim();
  if (p === "~" || p.startsWith("~/") || p.startsWith("~\\")) p = path.join(os.homedir(), p.slice(1));
  if (workspaceFolder !== undefined) p = p.split("${workspaceFolder}").join(workspaceFolder);
  if (!path.isAbsolute(p) && workspaceFolder !== undefined) p = path.join(workspaceFolder, p);
  return p;
}

/** `name` on PATH, or undefined. */
export function onPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = (env.PATH ?? env.Path ?? "").split(path.delimiter).filter((d) => d.length > 0);
  const names = process.platform === "win32" ? [name, `${name}.exe`] : [name];
  for (const dir of dirs) {
    for (const n of names) {
      const candidate = path.join(dir, n);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return undefined;
}

/** The bundled binary; makes it executable if the archive lost its mode bits. */
function bundled(extensionPath: string): string | undefined {
  const p = path.join(extensionPath, "server", EXE);
  if (!fs.existsSync(p)) return undefined;
  if (process.platform !== "win32" && !isExecutableFile(p)) {
    try {
      fs.chmodSync(p, 0o755);
    } catch {
      return undefined;
    }
  }
  return isExecutableFile(p) ? p : undefined;
}

export function findServer(context: vscode.ExtensionContext): Found | NotFound {
  const config = vscode.workspace.getConfiguration("segue");
  const setting = config.get<string>("server.path", "").trim();
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (setting.length > 0) {
    const p = expandPath(setting, folder);
    if (isExecutableFile(p)) return { kind: "found", path: p, source: "setting" };
    return {
      kind: "not-found",
      message: `Segue: the setting segue.server.path is "${setting}", but ${p} is not an executable file. Fix the path, or clear the setting to use the bundled server or \`segue\` on PATH.`,
    };
  }
  const b = bundled(context.extensionPath);
  if (b !== undefined) return { kind: "found", path: b, source: "bundled" };
  const fromPath = onPath("segue");
  if (fromPath !== undefined) return { kind: "found", path: fromPath, source: "PATH" };
  return {
    kind: "not-found",
    message:
      "Segue: the language server `segue` was not found: this extension has no bundled server for this platform and `segue` is not on PATH. Install it (`cargo install --path server` in a checkout of Segue) or set segue.server.path to the binary, then run \"Segue: Restart Server\".",
  };
}
