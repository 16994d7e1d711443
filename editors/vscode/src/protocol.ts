// What the Segue server sends and answers, as documented in docs/lsp.md.

/** The reply of `segue.showDocumentScore`. */
export interface DocumentScore {
  uri: string;
  version: number;
  score: number;
  scorer: string;
  tier: number;
  sentenceMedian: number | null;
  paragraphMedian: number | null;
  findings: number;
  checked: boolean;
}

/** The reply of `segue.checkWorkspace`. */
export interface WorkspaceCheck {
  files: number;
  findings: number;
  errors: number;
  cancelled: boolean;
}

export const CHECK_WORKSPACE = "segue.checkWorkspace";
export const SHOW_DOCUMENT_SCORE = "segue.showDocumentScore";

/** Title prefix of the server's paragraph reorder code action. */
export const REORDER_PARAGRAPHS_TITLE = "Reorder paragraphs in this section";

/** The languages the extension starts the server for. */
export const LANGUAGES = ["markdown", "restructuredtext", "latex", "tex", "plaintext"];

/** Settings read only by the client: never sent to the server (it warns on unknown keys). */
export const CLIENT_ONLY_KEYS = ["server", "trace"];

/** The `window/showMessage` text that `segue.showDocumentScore` sends along with its reply. */
export function isScoreMessage(message: string): boolean {
  return /^Segue: (coherence -?\d|.* is not checked: )/.test(message);
}

/**
 * The `window/showMessage` text that the server sends along with a `segue.showDocumentScore`
 * reply (server/src/lsp/commands.rs): an exact text when checked, a prefix when not.
 */
export function scoreMessage(s: DocumentScore): { exact?: string; prefix?: string } {
  if (!s.checked) return { prefix: `Segue: ${s.uri} is not checked: ` };
  return { exact: `Segue: coherence ${s.score.toFixed(2)} (${s.scorer}, tier ${s.tier}), ${s.findings} weak transition(s)` };
}

export function isDocumentScore(v: unknown): v is DocumentScore {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.score === "number" && typeof o.tier === "number" && typeof o.scorer === "string";
}

export function isWorkspaceCheck(v: unknown): v is WorkspaceCheck {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.files === "number" && typeof o.findings === "number";
}

/** Removes the client-only keys from a `segue` settings object. */
export function serverSettings(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (!CLIENT_ONLY_KEYS.includes(k)) out[k] = v;
  }
  return out;
}

/** The status bar text for a score. */
export function statusText(s: DocumentScore): string {
  if (!s.checked) return "Segue —";
  return `Segue ${s.score.toFixed(2)} · tier ${s.tier}`;
}
