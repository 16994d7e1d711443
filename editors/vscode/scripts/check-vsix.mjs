// Lists the files of a .vsix and checks that it is complete and lean.
//
// Usage: node scripts/check-vsix.mjs FILE.vsix [--no-server] [--target TARGET]
//
// Checks: extension/package.json, extension/dist/extension.js and extension/README.md are present;
// the bundled server (extension/server/segue, or segue.exe for win32 targets) is present and
// executable unless --no-server; no node_modules, TypeScript sources, source maps, scripts or
// tests; everything but the server under 5 MiB. Exits 1 with the reasons otherwise.
import { readFileSync } from "node:fs";
import { inflateRawSync } from "node:zlib";

function entries(buf) {
  // End of central directory record: signature 0x06054b50, within the last 64 KiB + 22 bytes.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65557); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error("not a zip file (no end of central directory)");
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const out = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central directory entry ${n}`);
    const madeBy = buf.readUInt16LE(at + 4) >> 8; // 3 = Unix
    const compressed = buf.readUInt32LE(at + 20);
    const size = buf.readUInt32LE(at + 24);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    const external = buf.readUInt32LE(at + 38);
    const name = buf.toString("utf8", at + 46, at + 46 + nameLen);
    const mode = madeBy === 3 ? (external >>> 16) & 0o7777 : undefined;
    const method = buf.readUInt16LE(at + 10);
    const local = buf.readUInt32LE(at + 42);
    out.push({ name, size, compressed, mode, method, local });
    at += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

/** The contents of an entry (stored or deflated). */
function read(buf, e) {
  const start = e.local + 30 + buf.readUInt16LE(e.local + 26) + buf.readUInt16LE(e.local + 28);
  const data = buf.subarray(start, start + e.compressed);
  return e.method === 8 ? inflateRawSync(data) : data;
}

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith("--") && args[args.indexOf(a) - 1] !== "--target");
const noServer = args.includes("--no-server");
const target = args.includes("--target") ? args[args.indexOf("--target") + 1] : undefined;
if (file === undefined) {
  console.error("usage: check-vsix.mjs FILE.vsix [--no-server] [--target TARGET]");
  process.exit(2);
}

const zip = readFileSync(file);
const list = entries(zip);
console.log(`${file}: ${list.length} files`);
for (const e of list) {
  const mode = e.mode === undefined ? "" : ` mode ${e.mode.toString(8)}`;
  console.log(`  ${String(e.size).padStart(11)}  ${e.name}${mode}`);
}

const problems = [];
const names = new Set(list.map((e) => e.name));
for (const required of ["extension.vsixmanifest", "extension/package.json", "extension/dist/extension.js"]) {
  if (!names.has(required)) problems.push(`missing ${required}`);
}
if (!list.some((e) => e.name.toLowerCase() === "extension/readme.md")) problems.push("missing extension/README.md");
const vsixManifest = list.find((e) => e.name === "extension.vsixmanifest");
if (vsixManifest !== undefined) {
  const xml = read(zip, vsixManifest).toString("utf8");
  const platform = /TargetPlatform="([^"]+)"/.exec(xml)?.[1];
  if (target !== undefined && platform !== target) problems.push(`the manifest's TargetPlatform is ${platform ?? "absent"}, not ${target}`);
  if (noServer && platform !== undefined) problems.push(`a universal .vsix should have no TargetPlatform (has ${platform})`);
}
const pkgEntry = list.find((e) => e.name === "extension/package.json");
if (pkgEntry !== undefined) {
  const pkg = JSON.parse(read(zip, pkgEntry).toString("utf8"));
  if (pkg.main !== "./dist/extension.js") problems.push(`package.json main is ${pkg.main}`);
  const props = Object.keys(pkg.contributes?.configuration?.properties ?? {});
  if (!props.includes("segue.sensitivity") || !props.includes("segue.server.path")) problems.push("package.json lacks the generated settings");
  const js = list.find((e) => e.name === "extension/dist/extension.js");
  if (js !== undefined && !read(zip, js).toString("utf8").includes("segue.showDocumentScore")) {
    problems.push("dist/extension.js does not look like the Segue bundle");
  }
}
const serverName = target?.startsWith("win32") ? "extension/server/segue.exe" : "extension/server/segue";
const server = list.find((e) => e.name === serverName);
if (noServer) {
  if (list.some((e) => e.name.startsWith("extension/server/"))) problems.push("has a bundled server, but --no-server was given");
} else if (server === undefined) {
  problems.push(`missing the bundled server ${serverName}`);
} else {
  if (server.size < 100_000) problems.push(`${serverName} is only ${server.size} bytes`);
  if (!serverName.endsWith(".exe") && server.mode !== undefined && (server.mode & 0o111) === 0) {
    problems.push(`${serverName} is not executable (mode ${server.mode.toString(8)})`);
  }
}
const banned = [
  [/(^|\/)node_modules\//, "node_modules"],
  [/\.ts$/, "TypeScript sources"],
  [/\.map$/, "source maps"],
  [/^extension\/(src|scripts|test)\//, "sources, scripts or tests"],
  [/\.vsix$/, "a nested .vsix"],
];
for (const [re, what] of banned) {
  const hits = list.filter((e) => re.test(e.name));
  if (hits.length > 0) problems.push(`contains ${what}: ${hits.slice(0, 5).map((e) => e.name).join(", ")}${hits.length > 5 ? ", …" : ""}`);
}
const rest = list.filter((e) => e !== server).reduce((sum, e) => sum + e.size, 0);
if (rest > 5 * 1024 * 1024) problems.push(`the files besides the server take ${rest} bytes (over 5 MiB)`);

if (problems.length > 0) {
  console.error(`check-vsix: ${file} FAILED:`);
  for (const p of problems) console.error(`  - ${p}`);
  process.exit(1);
}
console.log(`check-vsix: ${file} OK (${rest} bytes besides the server${server ? `, server ${server.size} bytes` : ""})`);
