// docs/hooks.md's "Set up", followed literally in a fresh folder with `pnpm release:pack`'s
// tarballs (issue 29): the install line, then each `hook install … --write` answered yes on a real
// terminal; then the installed hooks run as Claude Code and Gemini CLI run them, and decide.
// Slow: npm fetches the tarballs' own dependencies from the registry.
import { execFile, spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_DIR, removeDir, tempDir, writeFile } from "./_helpers.js";
import { claudePayload, geminiPayload } from "./_hook.js";

const exec = promisify(execFile);
const REPO = join(CLI_DIR, "..", "..");

/** The lines of the first `sh` block after the "## Set up" heading of docs/hooks.md. */
function setUpLines(): string[] {
  const guide = readFileSync(join(REPO, "docs", "hooks.md"), "utf8");
  const section = guide.slice(guide.indexOf("## Set up"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return block.split("\n").filter((line) => line.trim() !== "");
}

/** Runs a command line in a pseudo-terminal (util-linux `script`), answering `y` to each question it asks. */
function inTerminal(command: string, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-qec", `stty cols 120 rows 40; ${command}`, "/dev/null"], { cwd, env: { ...process.env, NO_COLOR: "1", TERM: "xterm" } });
    let output = "";
    let asked = 0;
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      const questions = output.split("Add toolhost's hook").length - 1;
      for (; asked < questions; asked++) child.stdin.write("y");
    });
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

let root: string;
let project: string;
let lines: string[];

beforeAll(async () => {
  root = tempDir("toolhost-hooks-guide-");
  const release = join(root, "release");
  await exec(process.execPath, [join(REPO, "scripts", "release-pack.mjs"), release], { timeout: 120_000 });
  project = join(root, "my-project");
  writeFile(join(project, "package.json"), JSON.stringify({ name: "my-project", private: true }));
  writeFileSync(join(project, ".env"), "TOKEN=1\n");
  lines = setUpLines();
  // Before the packages are published, the guide's install line names the tarballs.
  const install = (/before they are published: (.*)$/.exec(lines[0] ?? "")?.[1] ?? "").replaceAll("/path/to/toolhost/release", release);
  const installed = await exec("bash", ["-c", install], { cwd: project, timeout: 600_000 });
  expect(installed.stderr).not.toMatch(/ERR!/);
}, 900_000);
afterAll(() => {
  if (root) removeDir(root);
}, 120_000);

describe("docs/hooks.md's set-up, followed literally", { timeout: 300_000 }, () => {
  it("installs the hooks with the config they need, and the hooks decide as the hosts run them", async () => {
    expect(lines.slice(1)).toEqual([
      "npx toolhost hook install claude-code --write      # adds the hook to .claude/settings.json",
      "npx toolhost hook install gemini --write           # adds it to .gemini/settings.json",
    ]);
    for (const line of lines.slice(1)) {
      const ran = await inTerminal(line.replace(/\s+#.*$/, ""), project);
      expect(ran.code, ran.output).toBe(0);
    }
    expect(JSON.parse(readFileSync(join(project, "toolhost.config.json"), "utf8"))).toMatchObject({ plugins: ["@toolhost/tool-bash", ["@toolhost/hooks-policy", { extends: ["recommended"] }]] });

    const claude = JSON.parse(readFileSync(join(project, ".claude", "settings.json"), "utf8")) as { hooks: { PreToolUse: Array<{ hooks: Array<{ command: string }> }> } };
    const gemini = JSON.parse(readFileSync(join(project, ".gemini", "settings.json"), "utf8")) as { hooks: { BeforeTool: Array<{ hooks: Array<{ command: string }> }> } };
    const runHook = (command: string, payload: string, env: Record<string, string>) =>
      spawnSync("sh", ["-c", command], { cwd: project, input: payload, encoding: "utf8", env: { ...process.env, ...env, TOOLHOST_HOOK_SERVER: "" } });

    const claudeCommand = claude.hooks.PreToolUse[0]?.hooks[0]?.command ?? "";
    const readEnv = runHook(claudeCommand, claudePayload(project, "Read", { file_path: join(project, ".env") }), { CLAUDE_PROJECT_DIR: project });
    expect({ code: readEnv.status, stderr: readEnv.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(readEnv.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny" } });
    // An allowed shell call comes back rewritten to run in the sandbox, which the host's shell then runs.
    const ls = runHook(claudeCommand, claudePayload(project, "Bash", { command: "ls -A" }), { CLAUDE_PROJECT_DIR: project });
    expect({ code: ls.status, stderr: ls.stderr }).toEqual({ code: 0, stderr: "" });
    const rewritten = (JSON.parse(ls.stdout) as { hookSpecificOutput: { updatedInput: { command: string } } }).hookSpecificOutput.updatedInput.command;
    const listed = spawnSync("bash", ["-c", rewritten], { cwd: project, encoding: "utf8" });
    expect({ code: listed.status, stdout: listed.stdout.split("\n") }).toMatchObject({ code: 0, stdout: expect.arrayContaining([".env", "node_modules", "toolhost.config.json"]) });

    const geminiCommand = gemini.hooks.BeforeTool[0]?.hooks[0]?.command ?? "";
    const geminiRead = runHook(geminiCommand, geminiPayload(project, "read_file", { file_path: join(project, ".env") }), { GEMINI_PROJECT_DIR: project });
    expect(geminiRead.status, geminiRead.stderr).toBe(0);
    expect(JSON.parse(geminiRead.stdout)).toMatchObject({ decision: "deny" });
  });
});
