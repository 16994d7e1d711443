// The status-bar item: the active document's coherence score and the tier that produced it
// ("Segue 0.72 · tier 0"); a click opens the per-document summary.

import * as vscode from "vscode";
import { DocumentScore, LANGUAGES, statusText } from "./protocol";

/** Asks the server for a document's score without a notification; undefined when it cannot. */
export type ScoreQuery = (uri: vscode.Uri) => Promise<DocumentScore | undefined>;

export class ScoreStatus implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private generation = 0;
  /** The last score shown, for the summary command. */
  last: DocumentScore | undefined;

  constructor(private readonly query: ScoreQuery) {
    this.item = vscode.window.createStatusBarItem("segue.score", vscode.StatusBarAlignment.Right, 100);
    this.item.name = "Segue coherence";
    this.item.command = "segue.showDocumentSummary";
    this.disposables.push(
      this.item,
      vscode.window.onDidChangeActiveTextEditor(() => this.schedule(0)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document === vscode.window.activeTextEditor?.document) this.schedule(1000);
      }),
      vscode.languages.onDidChangeDiagnostics((e) => {
        const active = vscode.window.activeTextEditor?.document.uri.toString();
        if (active !== undefined && e.uris.some((u) => u.toString() === active)) this.schedule(200);
      }),
    );
  }

  /** Shows "Segue …" while the server starts. */
  starting(): void {
    this.item.text = "$(sync~spin) Segue";
    this.item.tooltip = "Segue: starting the language server";
    this.updateVisibility();
  }

  /** Shows that the server is not running. */
  stopped(reason: string): void {
    this.last = undefined;
    this.item.text = "$(warning) Segue";
    this.item.tooltip = reason;
    this.item.command = "segue.showOutput";
    this.updateVisibility();
  }

  /** Refreshes the score after `delay` ms (later calls replace earlier ones). */
  schedule(delay: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, delay);
  }

  private updateVisibility(): boolean {
    const doc = vscode.window.activeTextEditor?.document;
    const shown = doc !== undefined && LANGUAGES.includes(doc.languageId);
    if (shown) this.item.show();
    else this.item.hide();
    return shown;
  }

  async refresh(): Promise<void> {
    const generation = ++this.generation;
    if (!this.updateVisibility()) return;
    const doc = vscode.window.activeTextEditor?.document;
    if (doc === undefined) return;
    const score = await this.query(doc.uri);
    if (generation !== this.generation) return; // a newer refresh has started
    this.item.command = "segue.showDocumentSummary";
    if (score === undefined) {
      this.last = undefined;
      this.item.text = "Segue";
      this.item.tooltip = "Segue: no score for this document yet";
      return;
    }
    this.last = score;
    this.item.text = statusText(score);
    this.item.tooltip = score.checked
      ? `Segue: coherence ${score.score.toFixed(2)} (mean transition score; scorer ${score.scorer}, tier ${score.tier}), ${score.findings} weak transition(s). Click for the summary.`
      : "Segue: this document is not checked. Click for the reason.";
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.disposables.forEach((d) => {
      d.dispose();
    });
  }
}
