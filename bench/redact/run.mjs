// The cost of redacting 1 MB of tool output (build logs, git log, source code, JSON, listings,
// base64 images) with hooks-policy's built-in formats and 20 known environment values, beside two
// floors: one String.replace pass of a literal over the same text (scanning), and one copy of the
// text (what any rewrite costs once something matched). Two texts: ordinary output with no secret
// (the common case: nothing is copied) and the same with 25 secrets in it. Prints median and p99
// ms per MB and the ratios; the target is a median under 10 ms for ordinary output.
import { createHash, randomBytes } from "node:crypto";
import { availableParallelism, loadavg } from "node:os";
import { Redactor } from "../../packages/hooks-policy/dist/index.js";

const ROUNDS = 60;
const TARGET_MS = 10;
const SIZE = 1024 * 1024;

let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = (list) => list[Math.floor(random() * list.length)];
const hex = (n) => createHash("sha256").update(String(random())).digest("hex").slice(0, n);

const lines = [
  () => `src/components/Button.tsx(${Math.floor(random() * 300)},12): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.`,
  () => `commit ${hex(40)}\nAuthor: Dev <dev@example.com>\nDate:   Mon Nov 30 09:00:00 2026 +0000\n\n    fix: handle the empty case`,
  () => `-rw-r--r--  1 user staff  ${Math.floor(random() * 99999)} Nov 30 09:00 file-${hex(6)}.ts`,
  () => `  const ${pick(["token", "apiKey", "password", "value"])} = await fetchThing(${pick(["req", "id", "opts"])}); // ${hex(8)}`,
  () => JSON.stringify({ id: `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}`, name: "item", count: Math.floor(random() * 1000), tags: ["a", "b"] }),
  () => `[2026-11-30T09:00:${String(Math.floor(random() * 60)).padStart(2, "0")}Z] INFO request GET /api/v1/items/${hex(12)} 200 ${Math.floor(random() * 900)}ms`,
  () => `${hex(64)}  dist/chunk-${hex(8)}.js`,
  () => `    at Object.<anonymous> (/home/user/project/node_modules/pkg/lib/index.js:${Math.floor(random() * 900)}:${Math.floor(random() * 80)})`,
  () => `✓ test/unit/${pick(["a", "b", "c"])}.test.ts (${Math.floor(random() * 50)} tests) ${Math.floor(random() * 900)}ms`,
  () => `https://registry.npmjs.org/pkg/-/pkg-${Math.floor(random() * 9)}.${Math.floor(random() * 9)}.0.tgz`,
];
const secrets = [
  `AKIA${"Z".repeat(16)}`,
  `ghp_${"a1B2".repeat(9)}`,
  `Authorization: Bearer ${"t0k3n".repeat(6)}`,
  "postgres://app:hunter2hunter2@db.internal/app",
  `DB_PASSWORD=hunter2hunter2`,
];

const parts = [];
let size = 0;
while (size < SIZE) {
  const line = random() < 0.001 ? `data:image/png;base64,${randomBytes(3000).toString("base64")}` : pick(lines)();
  parts.push(line);
  size += line.length + 1;
}
const clean = parts.join("\n").slice(0, SIZE);
const withSecrets = parts.map((line, i) => (i % Math.floor(parts.length / 25) === 7 ? `${line} ${secrets[i % secrets.length]}` : line)).join("\n").slice(0, SIZE);

const env = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`SERVICE_${i}_TOKEN`, `value-${i}-${hex(24)}`]));
const redactor = new Redactor([], true, { names: ["*_TOKEN"], env });

// Wall time per pass (median, p99), and CPU time per pass over all rounds: on a shared, loaded
// machine the CPU time is the steadier figure, and the one the target is judged by.
const measure = (fn) => {
  for (let i = 0; i < 5; i++) fn();
  const samples = [];
  let cpu = 0;
  for (let round = 0; round < ROUNDS; round++) {
    globalThis.gc?.();
    const used = process.cpuUsage();
    const start = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    const { user, system } = process.cpuUsage(used);
    cpu += (user + system) / 1e3;
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(ROUNDS / 2)], p99: samples[Math.floor(ROUNDS * 0.99)], cpu: cpu / ROUNDS };
};

let sink = 0;
const half = SIZE / 2;
const scan = measure(() => {
  sink += clean.replace(/AKIA/g, "[x]").length;
});
const copy = measure(() => {
  sink += /\n$/.exec([withSecrets.slice(0, half), "x", withSecrets.slice(half)].join(""))?.index ?? 0;
});
const ordinary = measure(() => {
  sink += redactor.text(clean).length;
});
const secretful = measure(() => {
  sink += /\n$/.exec(redactor.text(withSecrets))?.index ?? 0;
});
// Hostile output: 1 MB of one token prefix or key line repeated, where a pattern that scans a run
// once per prefix in it would take minutes. Each is timed once (CPU ms).
const fill = (unit) => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);
const b64 = randomBytes(48).toString("base64");
const hostile = {
  "eyJ…": fill("eyJ"),
  "eyJabcde.": fill("eyJabcde."),
  "-----BEGIN PRIVATE KEY-----\\n": fill("-----BEGIN PRIVATE KEY-----\n"),
  "certificates": fill(`-----BEGIN CERTIFICATE-----\n${b64}\n${b64}\n`),
  "64-column base64 lines": fill(`${b64}\n`),
  'token="token=…': `token="${fill("token=a")}`,
  "glpat-…": fill("glpat-"),
  "AKIA…": fill("AKIA"),
};
const worst = Object.entries(hostile).map(([name, text]) => {
  const used = process.cpuUsage();
  redactor.text(text);
  const { user, system } = process.cpuUsage(used);
  return [name, (user + system) / 1e3];
}).sort((a, b) => b[1] - a[1]);

const unchanged = redactor.text(clean) === clean;
const found = (redactor.text(withSecrets).match(/\[redacted/g) ?? []).length;
const met = ordinary.cpu < TARGET_MS;

const row = (name, m, extra = "") =>
  `| ${name.padEnd(40)} | ${m.cpu.toFixed(2).padStart(10)} | ${m.median.toFixed(2).padStart(9)} | ${m.p99.toFixed(2).padStart(8)} | ${extra.padEnd(16)} |`;
console.log(`${(clean.length / 1024).toFixed(0)} KiB of output, ${ROUNDS} rounds; ordinary output ${unchanged ? "unchanged" : "CHANGED (a false positive)"}; ${found} redactions in the other (sink ${sink % 7})`);
console.log("");
console.log(`| ${"what".padEnd(40)} | cpu ms/MB  | median ms | p99 ms   | ${"".padEnd(16)} |`);
console.log(`|${"-".repeat(42)}|${"-".repeat(12)}|${"-".repeat(11)}|${"-".repeat(10)}|${"-".repeat(18)}|`);
console.log(row("floor: one String.replace of a literal", scan));
console.log(row("floor: one copy of the text", copy));
console.log(row("Redactor.text, ordinary output", ordinary, `${(ordinary.cpu / scan.cpu).toFixed(1)}x the scan`));
console.log(row("Redactor.text, 25 secrets in it", secretful, `${(secretful.cpu / copy.cpu).toFixed(1)}x the copy`));
console.log("");
console.log(`hostile 1 MB inputs, slowest first (CPU ms): ${worst.map(([name, ms]) => `${name} ${ms.toFixed(0)}`).join(", ")}`);
console.log("");
console.log(`target: < ${TARGET_MS} ms of CPU per MB of ordinary output: ${met ? "met" : "NOT met"} (${ordinary.cpu.toFixed(2)} ms; load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores)`);
