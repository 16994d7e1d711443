// Opens a `segue report` page in headless Chromium with playwright-core; called by ./run.
//
// node report.mjs --page FILE --shot FILE.png --chromium PATH --documents N
//
// Checks the main elements are present and visible (a coherence strip with bands, a plot per
// document, findings with both sides quoted), that document text stayed text (the fixture's
// <script> and onerror never run), that the page loads nothing from anywhere, and saves a
// full-page screenshot. Every wait is bounded; a failure names the check and exits 1.
import { chromium } from "playwright-core";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values: opt } = parseArgs({
  options: {
    page: { type: "string" },
    shot: { type: "string" },
    chromium: { type: "string", default: "/usr/bin/chromium" },
    documents: { type: "string", default: "1" },
  },
});
for (const k of ["page", "shot"]) {
  if (!opt[k]) throw new Error(`missing --${k}`);
}

const failures = [];
function check(ok, what) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures.push(what);
}

const browser = await chromium.launch({
  executablePath: opt.chromium,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
try {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, javaScriptEnabled: true });
  const page = await context.newPage();
  const requests = [];
  page.on("request", (r) => {
    if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) requests.push(r.url());
  });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(pathToFileURL(opt.page).href, { waitUntil: "load", timeout: 30000 });

  const documents = Number(opt.documents);
  check((await page.locator("section.document").count()) === documents, `${documents} document sections`);
  check(await page.locator("h1").isVisible(), "the title is visible");
  check(await page.locator("svg.legend").isVisible(), "the colour legend is visible");

  const strips = page.locator("svg.strip");
  check((await strips.count()) === documents, "one coherence strip per document");
  for (let i = 0; i < (await strips.count()); i++) {
    const strip = strips.nth(i);
    check(await strip.isVisible(), `strip ${i + 1} is visible`);
    const box = await strip.boundingBox();
    check(box !== null && box.width > 600 && box.height > 40, `strip ${i + 1} has a sensible size (${JSON.stringify(box)})`);
    const bands = await strip.locator("g.band").count();
    check(bands > 0, `strip ${i + 1} has bands (${bands})`);
    const titled = await strip.locator("g.band > title").count();
    check(titled === bands, `every band of strip ${i + 1} has a tooltip`);
  }
  const fills = await page.locator("g.band rect:first-child").evaluateAll((rs) => new Set(rs.map((r) => r.getAttribute("fill"))).size);
  check(fills > 3, `bands take several colours (${fills})`);

  const plots = page.locator("figure.plot svg");
  check((await plots.count()) >= documents, `a score plot per document (${await plots.count()})`);
  check(await plots.first().isVisible(), "the first plot is visible");
  check((await page.locator("figure.plot polyline.scores").count()) > 0, "plots draw score lines");
  check((await page.locator("figure.plot circle.point").count()) > 10, "plots draw points");

  const findings = page.locator("li.finding");
  const n = await findings.count();
  check(n > 0, `findings are listed (${n})`);
  if (n > 0) {
    const first = findings.first();
    check(await first.isVisible(), "the first finding is visible");
    check(await first.locator("blockquote.before").isVisible(), "the first finding quotes the unit before");
    check(await first.locator("blockquote.flagged").isVisible(), "the first finding quotes the flagged unit");
    check((await first.locator(".message").innerText()).length > 10, "the first finding has a message");
    const marks = await page.locator("svg.strip path.finding").count();
    check(marks === n, `every finding is marked on a strip (${marks} marks, ${n} findings)`);
  }
  check((await page.locator("h3", { hasText: "Proposed reorders" }).count()) === documents, "a reorder part per document");

  // Document text is text: the fixture's markup shows as written and never runs.
  check((await page.evaluate(() => window.__segue_pwned)) === undefined, "no script from the document ran");
  check((await page.locator("script").count()) === 0, "the page has no script element");
  const text = await page.locator("body").innerText();
  if (documents > 2) check(text.includes("<script>window.__segue_pwned"), "the document's <script> shows as text");
  check(requests.length === 0, `the page requests nothing (${requests.join(", ")})`);
  check(errors.length === 0, `no page errors (${errors.join("; ")})`);

  await page.screenshot({ path: opt.shot, fullPage: true });
  console.log(`screenshot ${opt.shot}`);
  const header = opt.shot.replace(/\.png$/, "-header.png");
  await page.locator("header").screenshot({ path: header });
  console.log(`screenshot ${header}`);
  const first = opt.shot.replace(/\.png$/, "-first.png");
  await page.locator("section.document").first().screenshot({ path: first });
  console.log(`screenshot ${first}`);
  await page.emulateMedia({ media: "print" });
  const print = opt.shot.replace(/\.png$/, "-print.png");
  await page.screenshot({ path: print, fullPage: true });
  console.log(`print screenshot ${print}`);
  await page.pdf({ path: opt.shot.replace(/\.png$/, ".pdf"), format: "A4", printBackground: true });
  console.log(`print preview ${opt.shot.replace(/\.png$/, ".pdf")}`);
} finally {
  await browser.close();
}
if (failures.length > 0) {
  console.error(`report browser test FAILED: ${failures.length} check(s): ${failures.join("; ")}`);
  process.exit(1);
}
console.log("report browser test passed");
