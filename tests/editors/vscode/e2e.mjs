// Drives VS Code (code-server) in headless Chromium with playwright-core; called by ./run.
//
// node e2e.mjs --url URL --workspace DIR --expected FILE --original FILE --shots DIR --chromium PATH
//
// Every wait is bounded; a failure names the step, saves a screenshot and exits 1.
import { chromium } from "playwright-core";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

const { values: opt } = parseArgs({
  options: {
    url: { type: "string" },
    workspace: { type: "string" },
    expected: { type: "string" },
    original: { type: "string" },
    shots: { type: "string" },
    chromium: { type: "string", default: "/usr/bin/chromium" },
  },
});
for (const k of ["url", "workspace", "expected", "original", "shots"]) {
  if (!opt[k]) throw new Error(`missing --${k}`);
}

const file = path.join(opt.workspace, "essay.md");
const expected = readFileSync(opt.expected);
const original = readFileSync(opt.original);
const t0 = Date.now();
const secs = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
let shotNo = 0;
let page;
let browser;

async function shot(name) {
  const p = path.join(opt.shots, `${String(++shotNo).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: p });
  console.log(`   screenshot ${p}`);
}

async function step(name, fn) {
  console.log(`-- ${name} (${secs()})`);
  try {
    return await fn();
  } catch (e) {
    console.error(`step "${name}" failed: ${e.message}`);
    try {
      await shot("FAILED");
      const toasts = await page.locator(".notifications-toasts .notification-list-item-message").allInnerTexts();
      if (toasts.length > 0) console.error(`notifications on screen: ${JSON.stringify(toasts)}`);
    } catch {
      // the page may be gone
    }
    throw e;
  }
}

/** Polls `fn` until it returns a truthy value; throws `what` after `ms`. */
async function until(what, ms, fn, every = 250) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, every));
  }
  throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
}

const onDisk = () => readFileSync(file);

/** The first line where two texts differ, for failure messages. */
function firstDifference(a, b) {
  const x = a.toString("utf8").split("\n");
  const y = b.toString("utf8").split("\n");
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] !== y[i]) return `line ${i + 1}: expected ${JSON.stringify(x[i])}, got ${JSON.stringify(y[i])}`;
  }
  return "same lines (bytes differ in line endings?)";
}

async function runCommand(title) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: 20_000 });
  await input.fill(`>${title}`);
  const row = page.locator(".quick-input-widget .monaco-list-row", { hasText: title }).first();
  await row.waitFor({ state: "visible", timeout: 20_000 });
  await page.keyboard.press("Enter");
  await input.waitFor({ state: "hidden", timeout: 20_000 });
}

async function main() {
  browser = await chromium.launch({
    executablePath: opt.chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(30_000);

  await step("open the workspace", async () => {
    await page.goto(opt.url, { timeout: 60_000 });
    await page.locator(".monaco-workbench").waitFor({ timeout: 120_000 });
    await page.locator(".explorer-folders-view, .explorer-viewlet").first().waitFor({ timeout: 120_000 });
  });

  await step("open essay.md", async () => {
    await page.keyboard.press("Control+p");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: 20_000 });
    await input.fill("essay.md");
    await page.locator(".quick-input-widget .monaco-list-row", { hasText: "essay.md" }).first().waitFor({ timeout: 30_000 });
    await page.keyboard.press("Enter");
    await page.locator(".tab", { hasText: "essay.md" }).first().waitFor({ timeout: 30_000 });
    await page.locator(".monaco-editor .view-lines", { hasText: "From starter to loaf" }).first().waitFor({ timeout: 30_000 });
    await shot("opened");
  });

  await step("Segue's diagnostic in the Problems view", async () => {
    await page.locator(".monaco-editor .view-lines").first().click();
    await page.keyboard.press("Control+Shift+m");
    const row = page.locator(".markers-panel .monaco-list-row", { hasText: "seems out of place" }).first();
    await row.waitFor({ state: "visible", timeout: 120_000 });
    const text = await row.innerText();
    if (!/segue/i.test(text)) throw new Error(`the problem does not name its source segue: ${JSON.stringify(text)}`);
    console.log(`   problem: ${text.replace(/\s+/g, " ").slice(0, 160)}`);
    await shot("problems");
  });

  await step("status-bar score", async () => {
    const item = page.locator(".statusbar-item", { hasText: /Segue \d\.\d\d · tier 0/ }).first();
    await item.waitFor({ state: "visible", timeout: 60_000 });
    console.log(`   status bar: ${(await item.innerText()).trim()}`);
    // The status-bar refresh asks for the score silently: no "Segue: coherence" notification.
    const toasts = await page.locator(".notifications-toasts .notification-list-item-message").allInnerTexts();
    const noisy = toasts.filter((t) => t.includes("Segue: coherence"));
    if (noisy.length > 0) throw new Error(`the status-bar refresh showed a notification: ${JSON.stringify(noisy)}`);
  });

  await step("quick fix: Reorder paragraphs in this section (Ctrl+.)", async () => {
    // Go to the diagnostic: click it in the Problems view, which reveals it in the editor.
    await page.locator(".markers-panel .monaco-list-row", { hasText: "seems out of place" }).first().dblclick();
    await page.locator(".monaco-editor.focused").first().waitFor({ timeout: 20_000 });
    await page.keyboard.press("Control+.");
    const item = page.locator(".action-widget .monaco-list-row", { hasText: "Reorder paragraphs in this section" }).first();
    await item.waitFor({ state: "visible", timeout: 60_000 });
    await shot("quick-fix-menu");
    // Choose it with the keyboard (the menu's pointer block swallows synthetic clicks).
    const focused = page.locator(".action-widget .monaco-list-row.focused").first();
    for (let i = 0; i < 12; i++) {
      const label = (await focused.getAttribute("aria-label").catch(() => null)) ?? "";
      if (label.startsWith("Reorder paragraphs in this section")) break;
      await page.keyboard.press("ArrowDown");
    }
    const label = (await focused.getAttribute("aria-label")) ?? "";
    if (!label.startsWith("Reorder paragraphs in this section")) throw new Error(`could not select the reorder action (focused: ${label})`);
    console.log(`   applying: ${label}`);
    await page.keyboard.press("Enter");
    await page.locator(".action-widget").first().waitFor({ state: "hidden", timeout: 20_000 }).catch(() => {});
    await page.locator(".tab.dirty", { hasText: "essay.md" }).first().waitFor({ timeout: 20_000 });
  });

  await step("save and compare with essay.expected.md", async () => {
    await page.keyboard.press("Control+s");
    await until("essay.md on disk to equal essay.expected.md", 30_000, () => onDisk().equals(expected)).catch((e) => {
      throw new Error(`${e.message}; ${firstDifference(expected, onDisk())}`);
    });
    await page.locator(".tab.dirty").first().waitFor({ state: "detached", timeout: 20_000 });
    await shot("reordered-saved");
    console.log(`   essay.md on disk equals essay.expected.md (${expected.length} bytes)`);
  });

  await step("undo and save: the original text is back", async () => {
    await page.locator(".monaco-editor .view-lines").first().click();
    await page.keyboard.press("Control+z");
    await page.keyboard.press("Control+s");
    await until("essay.md on disk to equal the original", 30_000, () => onDisk().equals(original)).catch((e) => {
      throw new Error(`${e.message}; ${firstDifference(original, onDisk())}`);
    });
  });

  await step('command "Segue: Reorder Paragraphs in This Section"', async () => {
    // The cursor into the section (line 9), then the command from the palette.
    await page.keyboard.press("Control+g");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: 20_000 });
    await input.fill(":9");
    await page.keyboard.press("Enter");
    await input.waitFor({ state: "hidden", timeout: 20_000 });
    await runCommand("Segue: Reorder Paragraphs in This Section");
    await page.locator(".tab.dirty", { hasText: "essay.md" }).first().waitFor({ timeout: 60_000 });
    await page.keyboard.press("Control+s");
    await until("essay.md on disk to equal essay.expected.md", 30_000, () => onDisk().equals(expected)).catch((e) => {
      throw new Error(`${e.message}; ${firstDifference(expected, onDisk())}`);
    });
    await shot("command-reordered-saved");
    console.log("   essay.md on disk equals essay.expected.md again");
  });

  await step('command "Segue: Check Workspace"', async () => {
    // notes.md is checked from disk; essay.md is open, so the server analyses it live and skips it.
    await runCommand("Segue: Check Workspace");
    const toast = page.locator(".notifications-toasts .notification-list-item-message", { hasText: "Segue: checked" }).first();
    await toast.waitFor({ state: "visible", timeout: 60_000 });
    const text = (await toast.innerText()).trim();
    console.log(`   ${text}`);
    // notes.md has one sentence about something else (parking) in its middle.
    if (text !== "Segue: checked 1 file(s), 1 weak transition(s).") throw new Error(`unexpected workspace check result: ${text}`);
    await page.locator(".notifications-toasts .notification-toast", { hasText: "Segue: checked" }).first().hover();
    await page.keyboard.press("Escape");
  });

  await step("status-bar click opens the summary", async () => {
    // After the reorder the section reads in order; the planted off-topic sentence is still flagged.
    const item = page.locator(".statusbar-item", { hasText: /Segue \d\.\d\d · tier 0/ }).first();
    await item.click();
    const toast = page.locator(".notifications-toasts .notification-list-item-message", { hasText: "Segue: coherence" }).first();
    await toast.waitFor({ state: "visible", timeout: 30_000 });
    const text = (await toast.innerText()).trim();
    console.log(`   summary: ${text}`);
    if (!/scorer tier0, tier 0\). .*1 weak transition/.test(text)) throw new Error(`unexpected summary: ${text}`);
    // Only the extension's own summary: the server's score message (the `window/showMessage`
    // sent with every segue.showDocumentScore reply) is never shown.
    const all = await page.locator(".notifications-toasts .notification-list-item-message").allInnerTexts();
    const serverMessages = all.filter((t) => /^Segue: coherence \d\.\d\d \(tier0, tier 0\), /.test(t));
    if (serverMessages.length > 0) throw new Error(`the server's score message was shown: ${JSON.stringify(serverMessages)}`);
    await page.waitForTimeout(800); // let the toast finish fading in
    await shot("summary");
  });

  console.log(`e2e: all steps passed in ${secs()}`);
}

try {
  await main();
  await browser.close();
} catch (e) {
  console.error(`e2e FAILED after ${secs()}: ${e.stack ?? e}`);
  if (browser) await browser.close().catch(() => {});
  process.exit(1);
}
