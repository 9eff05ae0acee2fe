// `toolhost hook claude-code` is run by Claude Code once per tool call, so its cold start is the
// cost a user pays on every call. Measured beside `node -e` reading the same payload from stdin and
// printing a JSON answer (the floor any Node hook pays), alternated, medians and ratios to the floor.
// A middle row imports what the hook cannot do without (core, core/config, the policy plugin) and
// does nothing else: what loading the code costs, apart from deciding. The forwarding form
// (`toolhost hook claude-code --server <url>`) asks the `toolhost hook serve` started first; the
// target line says which forms meet it. Then the HTTP form itself, which pays no start-up:
// requests per second, one client and 8. Then, through the real clients, agents.mjs.
// A Bash payload is answered confined (rewritten to run in tool-bash's sandbox) unless --no-confine.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const RUNS = 21;
const TARGET_RATIO = 1.5;
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const bin = join(root, "packages", "cli", "dist", "bin.js");
const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-bench-hook-")));
// The bench's project runs code of its own (a plugin by path), which loads only from a folder its
// user trusts (docs/trust.md): a config folder of the bench's own trusts it, and no other config counts.
process.env.XDG_CONFIG_HOME = join(dir, ".config-home");
process.env.TOOLHOST_MANAGED_CONFIG_DIR = join(dir, ".managed");
mkdirSync(join(dir, ".config-home", "toolhost"), { recursive: true });
writeFileSync(join(dir, ".config-home", "toolhost", "trusted-folders.json"), JSON.stringify({ folders: [dir] }));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const modules = ["core/dist/index.js", "core/dist/config/index.js", "hooks-policy/dist/index.js"].map((file) => pathToFileURL(join(root, "packages", file)).href);

try {
  writeFileSync(
    join(dir, "toolhost.config.json"),
    JSON.stringify({ plugins: ["@toolhost/tool-fs", "@toolhost/tool-bash", ["@toolhost/hooks-policy", { extends: ["recommended"] }]] }),
  );
  const payload = (tool_name, tool_input) =>
    JSON.stringify({ session_id: "bench", hook_event_name: "PreToolUse", cwd: dir, tool_name, tool_input, tool_use_id: "toolu_1" });
  const payloads = { Bash: payload("Bash", { command: "git status && ls -la src" }), Read: payload("Read", { file_path: join(dir, "src", "a.ts") }) };
  const readStdin = 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>{JSON.parse(s);process.stdout.write(JSON.stringify({})+"\\n")})';
  const server = spawn(process.execPath, [bin, "hook", "serve", "--http", "127.0.0.1:0"], { cwd: dir, stdio: ["ignore", "pipe", "inherit"] });
  try {
    // The server is up before the cold-start rows: the forwarding row asks it.
    const url = await new Promise((resolve, reject) => {
      let text = "";
      server.stdout.setEncoding("utf8").on("data", (chunk) => {
        text += chunk;
        const found = /http:\/\/[^\s]+/.exec(text);
        if (found) resolve(found[0]);
      });
      server.on("exit", (code) => reject(new Error(`hook server exited ${code}`)));
    });
    const rows = [
      { name: "node -e (floor)", args: ["-e", readStdin] },
      { name: "node importing core + policy", args: ["--input-type=module", "-e", `for (const m of ${JSON.stringify(modules)}) await import(m);${readStdin}`] },
      { name: "toolhost hook claude-code, Bash", args: [bin, "hook", "claude-code"], input: payloads.Bash, form: "in-process" },
      { name: "... --no-confine, Bash", args: [bin, "hook", "claude-code", "--no-confine"], input: payloads.Bash, form: "in-process" },
      { name: "toolhost hook claude-code, Read", args: [bin, "hook", "claude-code"], input: payloads.Read, form: "in-process" },
      { name: "... --server <url>, Bash", args: [bin, "hook", "claude-code", "--server", url], input: payloads.Bash, form: "--server" },
      { name: "... --server <url> --no-confine, Bash", args: [bin, "hook", "claude-code", "--server", url, "--no-confine"], input: payloads.Bash, form: "--server" },
      { name: "... --server <url>, Read", args: [bin, "hook", "claude-code", "--server", url], input: payloads.Read, form: "--server" },
    ];
    const time = ({ args, input = payloads.Bash, form }) => {
      const started = performance.now();
      const result = spawnSync(process.execPath, args, { cwd: dir, input, encoding: "utf8" });
      const ms = performance.now() - started;
      if (result.status !== 0) throw new Error(`node ${args.join(" ")} failed (${result.status}): ${result.stdout}${result.stderr}`);
      // A forwarding run that fell back decided in-process: its time would not be the client's.
      if (form === "--server" && result.stderr !== "") throw new Error(`the hook did not use the server: ${result.stderr}`);
      return ms;
    };
    for (const row of rows) time(row);
    const times = rows.map(() => []);
    const loadBefore = loadavg()[0];
    for (let i = 0; i < RUNS; i++) rows.forEach((row, j) => times[j].push(time(row)));
    const floor = median(times[0]);
    console.log(`cold start per payload, median of ${RUNS} (alternated), load average ${loadBefore.toFixed(2)} -> ${loadavg()[0].toFixed(2)} on ${process.version}:`);
    rows.forEach((row, j) => console.log(`  ${row.name.padEnd(34)} ${median(times[j]).toFixed(1).padStart(7)} ms  ${(median(times[j]) / floor).toFixed(2)}x`));
    for (const form of ["in-process", "--server"]) {
      const worst = Math.max(...rows.flatMap((row, j) => (row.form === form ? [median(times[j]) / floor] : [])));
      console.log(`  target <= ${TARGET_RATIO}x the floor, ${`toolhost hook claude-code${form === "--server" ? " --server" : ""}:`.padEnd(37)} ${worst <= TARGET_RATIO ? "met" : "NOT met"} (${worst.toFixed(2)}x)`);
    }

    const post = async () => {
      const response = await fetch(`${url}/claude-code`, { method: "POST", body: payloads.Bash, headers: { "content-type": "application/json" } });
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

// Per shell call through the real clients, confined against unconfined: bench/hook/agents.mjs.
console.log("");
const agents = spawnSync(process.execPath, [join(dirname(fileURLToPath(import.meta.url)), "agents.mjs")], { stdio: "inherit" });
if (agents.status !== 0) process.exitCode = 1;
