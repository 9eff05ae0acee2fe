// `pnpm test`: every package's tests (turbo), then the code's shape (scripts/check-shape.mjs), and
// the failed tests' names again, and one closing line of its own: "N passed, N failed" over all
// packages (vitest prints a line per package). Exits non-zero when a test failed, no test ran, a package's run failed, or the shape is broken.
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);

function run(command, commandArgs, onLine) {
  return new Promise((resolve) => {
    const child = spawn(command, commandArgs, { cwd: root, stdio: ["inherit", "pipe", "pipe"], env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1" } });
    for (const stream of [child.stdout, child.stderr]) {
      let rest = "";
      stream.on("data", (chunk) => {
        (stream === child.stdout ? process.stdout : process.stderr).write(chunk);
        const lines = (rest + chunk.toString("utf8")).split("\n");
        rest = lines.pop() ?? "";
        for (const line of lines) onLine(line);
      });
      stream.on("end", () => rest && onLine(rest));
    }
    child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

let passed = 0;
let failed = 0;
// The failed tests' names, said again at the end: a CI log is often read from its tail.
const failures = [];
const turbo = await run(join(root, "node_modules", ".bin", "turbo"), ["run", "test", "--continue", ...args], (line) => {
  // vitest: "      Tests  3 failed | 714 passed (717)"
  const plain = line.replace(/\x1b\[[0-9;]*m/g, "");
  const failure = /^(\S+:test:)\s+FAIL\s+(.+)$/.exec(plain.trimEnd());
  if (failure && failures.length < 50) failures.push(`${failure[1]} ${failure[2]}`);
  if (!/\bTests\s+\d/.test(plain)) return;
  passed += Number(/(\d+) passed/.exec(plain)?.[1] ?? 0);
  failed += Number(/(\d+) failed/.exec(plain)?.[1] ?? 0);
});
const shape = args.length > 0 ? 0 : await run(process.execPath, [join(root, "scripts", "check-shape.mjs")], () => undefined);
if (failures.length > 0) console.log(`\nfailed:\n${failures.map((each) => `  ${each}`).join("\n")}`);
console.log(`\n${passed} passed, ${failed} failed${turbo !== 0 && failed === 0 ? " (a package's test run failed: see above)" : ""}${shape !== 0 ? "; the code's shape check failed (see above)" : ""}`);
process.exit(turbo !== 0 || failed > 0 || passed === 0 || shape !== 0 ? 1 : 0);
