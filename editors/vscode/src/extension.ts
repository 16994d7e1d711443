// The Segue extension: starts `segue serve` for Markdown, reStructuredText, LaTeX and plain text, and adds the
// commands and the status-bar score around it. See README.md.

import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  MessageType,
  ServerOptions,
  ShowMessageNotification,
  ShowMessageParams,
  TransportKind,
} from "vscode-languageclient/node";
import {
  CHECK_WORKSPACE,
  DocumentScore,
  LANGUAGES,
  REORDER_PARAGRAPHS_TITLE,
  SHOW_DOCUMENT_SCORE,
  isDocumentScore,
  isScoreMessage,
  scoreMessage,
  isWorkspaceCheck,
  serverSettings,
} from "./protocol";
import { findServer } from "./server";
import { ScoreStatus } from "./status";

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let traceOutput: vscode.OutputChannel;
let status: ScoreStatus;
/** Score requests in flight whose `window/showMessage` is not shown. */
let silentScoreRequests = 0;
/**
 * Score messages still to drop after their reply came: the server may write the notification
 * after the reply (its notifications and replies are separate streams).
 */
const dropScoreMessages: { exact?: string; prefix?: string; until: number }[] = [];

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("Segue");
  traceOutput = vscode.window.createOutputChannel("Segue Language Server Trace");
  status = new ScoreStatus(queryScore);
  context.subscriptions.push(output, traceOutput, status);
  await vscode.commands.executeCommand("setContext", "segue.languages", LANGUAGES);

  context.subscriptions.push(
    vscode.commands.registerCommand("segue.restartServer", () => restart(context)),
    vscode.commands.registerCommand("segue.showOutput", () => output.show(true)),
    vscode.commands.registerCommand("segue.reorderParagraphs", reorderParagraphs),
    vscode.commands.registerCommand("segue.showDocumentSummary", showDocumentSummary),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("segue.server.path")) void restart(context);
    }),
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  await stop();
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  const found = findServer(context);
  if (found.kind === "not-found") {
    output.appendLine(found.message);
    status.stopped(found.message);
    void vscode.window.showErrorMessage(found.message, "Open Settings", "Show Output").then((choice) => {
      if (choice === "Open Settings") {
        void vscode.commands.executeCommand("workbench.action.openSettings", "segue.server.path");
      } else if (choice === "Show Output") {
        output.show(true);
      }
    });
    return;
  }
  output.appendLine(`Segue: starting ${found.path} serve (found via ${found.source})`);
  status.starting();

  const run = { command: found.path, args: ["serve"], transport: TransportKind.stdio };
  const serverOptions: ServerOptions = { run, debug: run };
  const clientOptions: LanguageClientOptions = {
    documentSelector: LANGUAGES.flatMap((language) => [
      { scheme: "file", language },
      { scheme: "untitled", language },
    ]),
    outputChannel: output,
    traceOutputChannel: traceOutput,
    synchronize: { configurationSection: "segue" },
    middleware: {
      workspace: {
        // The server warns on unknown keys: send it only its own settings.
        configuration: async (params, token, next) => {
          const result = await next(params, token);
          return Array.isArray(result) ? result.map(serverSettings) : result;
        },
      },
      executeCommand: async (command, args, next) => {
        const result: unknown = await next(command, args);
        if (command === CHECK_WORKSPACE && isWorkspaceCheck(result)) {
          const what = `${result.files} file(s), ${result.findings} weak transition(s)`;
          const errors = result.errors > 0 ? `, ${result.errors} file(s) could not be read` : "";
          void vscode.window.showInformationMessage(
            `Segue: ${result.cancelled ? "check cancelled after" : "checked"} ${what}${errors}.`,
          );
        }
        return result;
      },
    },
  };
  const c = new LanguageClient("segue", "Segue", serverOptions, clientOptions);
  // Replaces the client's own handler (pending handlers are installed after the defaults):
  // the score message of a status-bar refresh is not shown.
  c.onNotification(ShowMessageNotification.type, showMessage);
  client = c;
  try {
    await c.start();
  } catch (e) {
    const message = `Segue: the language server ${found.path} failed to start: ${String(e)}`;
    output.appendLine(message);
    status.stopped(message);
    void vscode.window.showErrorMessage(message, "Show Output").then((choice) => {
      if (choice === "Show Output") output.show(true);
    });
    return;
  }
  status.schedule(0);
}

async function stop(): Promise<void> {
  const c = client;
  client = undefined;
  if (c === undefined) return;
  try {
    await c.stop(5000);
  } catch (e) {
    output.appendLine(`Segue: stopping the server: ${String(e)}`);
  }
  await c.dispose();
}

async function restart(context: vscode.ExtensionContext): Promise<void> {
  output.appendLine("Segue: restarting the language server");
  await stop();
  await start(context);
}

function showMessage(params: ShowMessageParams): void {
  if (isScoreMessage(params.message)) {
    const now = Date.now();
    for (let i = dropScoreMessages.length - 1; i >= 0; i--) {
      if (dropScoreMessages[i].until < now) dropScoreMessages.splice(i, 1);
    }
    const i = dropScoreMessages.findIndex(
      (d) => d.exact === params.message || (d.prefix !== undefined && params.message.startsWith(d.prefix)),
    );
    if (i >= 0) {
      dropScoreMessages.splice(i, 1);
      return;
    }
    // Before its reply: a silent request is in flight.
    if (silentScoreRequests > 0) return;
  }
  switch (params.type) {
    case MessageType.Error:
      void vscode.window.showErrorMessage(params.message);
      break;
    case MessageType.Warning:
      void vscode.window.showWarningMessage(params.message);
      break;
    default:
      void vscode.window.showInformationMessage(params.message);
  }
}

/** `segue.showDocumentScore` for a document, without the server's notification. */
async function queryScore(uri: vscode.Uri): Promise<DocumentScore | undefined> {
  const c = client;
  if (c === undefined || !c.isRunning()) return undefined;
  silentScoreRequests++;
  try {
    const result: unknown = await c.sendRequest(ExecuteCommandRequest.type, {
      command: SHOW_DOCUMENT_SCORE,
      // `silent` asks the server not to send window/showMessage (ignored by servers that
      // always send it; the message is then dropped above).
      arguments: [{ uri: c.code2ProtocolConverter.asUri(uri), silent: true }],
    });
    if (!isDocumentScore(result)) return undefined;
    dropScoreMessages.push({ ...scoreMessage(result), until: Date.now() + 10_000 });
    return result;
  } catch (e) {
    output.appendLine(`Segue: ${SHOW_DOCUMENT_SCORE} failed for ${uri.toString()}: ${String(e)}`);
    return undefined;
  } finally {
    silentScoreRequests--;
  }
}

async function showDocumentSummary(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || !LANGUAGES.includes(editor.document.languageId)) {
    void vscode.window.showInformationMessage("Segue: open a Markdown, reStructuredText, LaTeX or plain-text document first.");
    return;
  }
  if (client === undefined) {
    void vscode.window.showErrorMessage("Segue: the language server is not running.", "Show Output").then((c) => {
      if (c === "Show Output") output.show(true);
    });
    return;
  }
  const s = await queryScore(editor.document.uri);
  if (s === undefined) {
    void vscode.window.showWarningMessage("Segue: no score for this document (see the output).");
    return;
  }
  if (!s.checked) {
    void vscode.window.showInformationMessage(
      "Segue: this document is not checked (its format is not in segue.formats, or it matches an ignore glob, or it is too large).",
    );
    return;
  }
  const fmt = (x: number | null): string => (x === null ? "n/a" : x.toFixed(2));
  const summary =
    `Segue: coherence ${s.score.toFixed(2)} (scorer ${s.scorer}, tier ${s.tier}). ` +
    `Median transition: sentences ${fmt(s.sentenceMedian)}, paragraphs ${fmt(s.paragraphMedian)}. ` +
    `${s.findings} weak transition(s).`;
  const choice = await vscode.window.showInformationMessage(summary, "Show Problems");
  if (choice === "Show Problems") await vscode.commands.executeCommand("workbench.actions.view.problems");
}

/** Applies the server's "Reorder paragraphs in this section" code action at the cursor. */
async function reorderParagraphs(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || !LANGUAGES.includes(editor.document.languageId)) {
    void vscode.window.showInformationMessage("Segue: put the cursor in a section of a Markdown, reStructuredText, LaTeX or plain-text document.");
    return;
  }
  if (client === undefined) {
    void vscode.window.showErrorMessage("Segue: the language server is not running.");
    return;
  }
  const doc = editor.document;
  const actions =
    (await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>(
      "vscode.executeCodeActionProvider",
      doc.uri,
      editor.selection,
      undefined,
      10,
    )) ?? [];
  // A plain Command has a string `command`; a CodeAction has an object (or none).
  const action = actions.find(
    (a): a is vscode.CodeAction => typeof a.command !== "string" && a.title.startsWith(REORDER_PARAGRAPHS_TITLE),
  );
  if (action === undefined) {
    void vscode.window.showInformationMessage(
      "Segue: no better order for the paragraphs of this section (it has fewer than two paragraphs, or no order gains enough).",
    );
    return;
  }
  if (action.edit !== undefined) {
    const applied = await vscode.workspace.applyEdit(action.edit);
    if (!applied) {
      void vscode.window.showWarningMessage("Segue: the reorder could not be applied (the document changed meanwhile); try again.");
      return;
    }
  }
  if (action.command !== undefined) {
    const args: unknown[] = action.command.arguments ?? [];
    await vscode.commands.executeCommand(action.command.command, ...args);
  }
  output.appendLine(`Segue: applied "${action.title}" to ${doc.uri.toString()}`);
}
