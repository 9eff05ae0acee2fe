// `toolhost hook claude-code` is run by Claude Code once per tool call, so its cold start is the
// cost a user pays on every call. Measured beside `node -e` reading the same payload from stdin and
// printing a JSON answer (the floor any Node hook pays), alternated, medians and the ratio. Then the
// HTTP form (`toolhost hook serve`), which pays no start-up: requests per second, one client and 8.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const RUNS = 15;
const TARGET_RATIO = 1.5;
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const bin = join(root, "packages", "cli", "dist", "bin.js");
const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-bench-hook-")));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

try {
  writeFileSync(
    join(dir, "toolhost.config.json"),
    JSON.stringify({ plugins: ["@toolhost/tool-fs", "@toolhost/tool-bash", ["@toolhost/hooks-policy", { extends: ["recommended"] }]] }),
  );
  const payload = JSON.stringify({
    session_id: "bench",
    hook_event_name: "PreToolUse",
    cwd: dir,
    tool_name: "Bash",
    tool_input: { command: "git status && ls -la src" },
    tool_use_id: "toolu_1",
  });
  const hook = [bin, "hook", "claude-code"];
  const floor = ["-e", 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>{JSON.parse(s);process.stdout.write(JSON.stringify({})+"\\n")})'];
  const time = (args) => {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, { cwd: dir, input: payload, encoding: "utf8" });
    const ms = performance.now() - started;
    if (result.status !== 0) throw new Error(`node ${args.join(" ")} failed (${result.status}): ${result.stdout}${result.stderr}`);
    return ms;
  };
  time(hook);
  time(floor);
  const hookTimes = [];
  const floorTimes = [];
  for (let i = 0; i < RUNS; i++) {
    hookTimes.push(time(hook));
    floorTimes.push(time(floor));
  }
  const ratio = median(hookTimes) / median(floorTimes);
  console.log(`cold start per payload, median of ${RUNS} (alternated):`);
  console.log(`  toolhost hook claude-code  ${median(hookTimes).toFixed(1)} ms`);
  console.log(`  node -e (floor)            ${median(floorTimes).toFixed(1)} ms`);
  console.log(`  ratio ${ratio.toFixed(2)}x (target <= ${TARGET_RATIO}x): ${ratio <= TARGET_RATIO ? "met" : "NOT met"}`);

  const server = spawn(process.execPath, [bin, "hook", "serve", "--http", "127.0.0.1:0"], { cwd: dir, stdio: ["ignore", "pipe", "inherit"] });
  try {
    const url = await new Promise((resolve, reject) => {
      let text = "";
      server.stdout.setEncoding("utf8").on("data", (chunk) => {
        text += chunk;
        const found = /http:\/\/[^\s]+/.exec(text);
        if (found) resolve(found[0]);
      });
      server.on("exit", (code) => reject(new Error(`hook server exited ${code}`)));
    });
    const post = async () => {
      const response = await fetch(`${url}/claude-code`, { method: "POST", body: payload, headers: { "content-type": "application/json" } });
      await response.json();
    };
    for (let i = 0; i < 50; i++) await post();
    for (const clients of [1, 8]) {
      const total = 2000;
      let sent = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: clients }, async () => {
          while (sent < total) {
            sent += 1;
            await post();
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      console.log(`HTTP form, ${clients} client(s): ${(total / seconds).toFixed(0)} requests/s (${((seconds * 1000) / total).toFixed(2)} ms each)`);
    }
  } finally {
    server.kill("SIGTERM");
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
