import { spawn } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, jsonLines, project, removeDir, tempDir, toolhost, writeConfig, writeFile } from "./_helpers.js";

let dir: string;
beforeEach(() => {
  dir = project(tempDir());
  writeConfig(dir, { plugins: ["./plugins/echo-plugin.mjs", "./plugins/guard-plugin.mjs"] });
});
afterEach(() => removeDir(dir));

const quote = (word: string): string => `'${word.replace(/'/g, "'\\''")}'`;
const DOWN = "\u001B[B";
const ENTER = "\r";

/** Runs the built CLI in a pseudo-terminal (util-linux `script`), so stdin and stderr are TTYs. */
function inTerminal(args: string[], env: Record<string, string | undefined> = {}) {
  // Without a size the pseudo-terminal is 0 columns wide, and the prompt wraps every character.
  const command = `stty cols 100 rows 40; ${[process.execPath, BIN, ...args].map(quote).join(" ")}`;
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd: dir,
    env: { ...process.env, FORCE_COLOR: undefined, NO_COLOR: undefined, TERM: "xterm-256color", COLUMNS: "100", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  let seen = 0;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exit = new Promise<number | null>((resolve) => child.on("close", resolve));
  return {
    exit,
    /** What the terminal showed, without escape sequences and carriage returns. */
    get output() {
      return output.replace(/\u001B\[[0-9;?]*[A-Za-z]/g, "").replace(/\r/g, "");
    },
    get raw() {
      return output;
    },
    /** Waits for `text` to appear after what was waited for before. */
    async waitFor(text: string): Promise<void> {
      for (;;) {
        const at = this.output.indexOf(text, seen);
        if (at >= 0) {
          seen = at + text.length;
          return;
        }
        if (child.exitCode !== null) throw new Error(`exited before "${text}" appeared:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    type(keys: string): void {
      child.stdin.write(keys);
    },
  };
}

describe("the approve prompt in a terminal", () => {
  it("shows the tool, the reason and the arguments; the default answer is no", async () => {
    const run = inTerminal(["call", "echo", '{"text":"ask politely"}']);
    await run.waitFor("Run it?");
    expect(run.output).toContain("echo needs your approval: echo of ask needs a human");
    expect(run.output).toContain('"text": "ask politely"');
    run.type(ENTER);
    expect(await run.exit).toBe(2);
    expect(run.output).toContain("Not run: echo needs approval (echo of ask needs a human), and it was refused in the terminal.");
  });

  it("runs the call when the answer is yes", async () => {
    const run = inTerminal(["call", "echo", '{"text":"ask and run"}']);
    await run.waitFor("Run it?");
    run.type(DOWN);
    run.type(ENTER);
    expect(await run.exit).toBe(0);
    expect(run.output).toMatch(/ask and run\n/);
  });

  it('"yes for this session" approves the later asks of the same call without asking again', async () => {
    const batch = JSON.stringify([
      { id: "1", name: "echo", arguments: { text: "ask one" } },
      { id: "2", name: "echo", arguments: { text: "ask one" } },
    ]);
    writeFile(join(dir, "batch.json"), batch);
    const run = inTerminal(["run", "batch.json"]);
    await run.waitFor("Run it?");
    run.type(DOWN);
    run.type(DOWN);
    await run.waitFor("also run later echo calls with these same arguments");
    run.type(ENTER);
    expect(await run.exit).toBe(0);
    expect(run.output.match(/◇ {2}echo needs your approval/g)).toHaveLength(1);
    expect(run.output).toContain("also run later echo calls with these same arguments");
  });

  it('"yes for this session" covers the same rule and command prefix only: a different command asks again', async () => {
    writeConfig(dir, { plugins: [["@toolhost/tool-bash", { sandbox: "off" }], ["@toolhost/hooks-policy", { extends: ["recommended"] }]] });
    const batch = JSON.stringify([
      { id: "1", name: "bash", arguments: { command: "rm -r t1" } },
      { id: "2", name: "bash", arguments: { command: "rm -r t2" } },
      // An inline program the policy cannot read (print(7) it reads, and allows).
      { id: "3", name: "bash", arguments: { command: `python3 -c 'import os; os.system("id")'` } },
    ]);
    writeFile(join(dir, "batch.json"), batch);
    writeFile(join(dir, "t1", "a"), "1");
    writeFile(join(dir, "t2", "a"), "2");
    const run = inTerminal(["run", "batch.json"]);
    await run.waitFor("Run it?");
    run.type(DOWN);
    run.type(DOWN);
    await run.waitFor('also run later bash commands starting "rm -r" that');
    run.type(ENTER);
    await run.waitFor("python3 -c");
    await run.waitFor("Run it?");
    run.type(ENTER);
    // toolhost run exits 1 when a call of the batch ended with an error result (here, the refusal).
    expect(await run.exit).toBe(1);
    expect(existsSync(join(dir, "t1")) || existsSync(join(dir, "t2"))).toBe(false);
    expect(run.output.match(/◇ {2}bash needs your approval/g)).toHaveLength(2);
    expect(run.output).toContain("it was refused in the terminal");
  });

  it("Ctrl-C at the question refuses, aborts the batch and exits 130", async () => {
    const run = inTerminal(["call", "echo", '{"text":"ask and cancel"}']);
    await run.waitFor("Run it?");
    run.type("\u0003");
    expect(await run.exit).toBe(130);
    expect(run.output).toContain('Tool "echo" aborted.');
    expect(run.output).toContain("Interrupted (Ctrl-C).");
  });

  it("colors only in a terminal, and not with NO_COLOR", async () => {
    const colored = inTerminal(["config"]);
    expect(await colored.exit).toBe(0);
    expect(colored.raw).toContain("\u001B[1mconfig\u001B[22m");
    const plain = inTerminal(["config"], { NO_COLOR: "1" });
    expect(await plain.exit).toBe(0);
    expect(plain.output).toContain("config ");
    expect(plain.raw).not.toContain("\u001B[1m");
  });
});

/** The decision events `run --events` printed among the terminal's output. */
function decisions(output: string): { approval: { answer: unknown } }[] {
  return [...output.matchAll(/\{"type":"tool_execution_decision".*\}$/gm)].map((match) => JSON.parse(match[0]) as { approval: { answer: unknown } });
}

const RECOMMENDED = { plugins: [["@toolhost/tool-bash", { sandbox: "off" }], ["@toolhost/hooks-policy", { extends: ["recommended"] }]] };
const FOURTH = DOWN.repeat(3);

describe("what the prompt shows", () => {
  it("a write whose tool declares the new content as a coloured unified diff against the file as it is", async () => {
    writeConfig(dir, { plugins: ["./plugins/writer-plugin.mjs", ["@toolhost/hooks-policy", { default: "allow", rules: [{ tool: "put", decision: "ask", reason: "a test asks" }] }]] });
    writeFile(join(dir, "notes.txt"), "one\ntwo\nthree\n");
    const run = inTerminal(["call", "put", JSON.stringify({ path: "notes.txt", content: "one\n2\nthree\n" })]);
    await run.waitFor("Run it?");
    expect(run.output).toContain("changes notes.txt");
    expect(run.output).toMatch(/@@ -1,3 \+1,3 @@\n[│ ]* one\n[│ ]*-two\n[│ ]*\+2\n[│ ]* three/);
    expect(run.raw).toContain("\u001B[31m-two\u001B[39m");
    expect(run.raw).toContain("\u001B[32m+2\u001B[39m");
    // Not the raw JSON of the arguments.
    expect(run.output).not.toContain('"content"');
    run.type(ENTER);
    expect(await run.exit).toBe(2);
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("one\ntwo\nthree\n");
  });

  it("a write whose tool declares only the path as the path and its arguments", async () => {
    writeConfig(dir, { plugins: ["./plugins/writer-plugin.mjs", ["@toolhost/hooks-policy", { default: "allow", rules: [{ tool: "put_plain", decision: "ask" }] }]] });
    const run = inTerminal(["call", "put_plain", JSON.stringify({ path: "new.txt", content: "fresh" })]);
    await run.waitFor("Run it?");
    expect(run.output).toContain("writes new.txt");
    expect(run.output).toContain('"content": "fresh"');
    run.type(ENTER);
    expect(await run.exit).toBe(2);
  });

  it("a command as the command, and the escape sequences in it escaped", async () => {
    writeConfig(dir, RECOMMENDED);
    writeFile(join(dir, "t1", "a"), "1");
    const run = inTerminal(["call", "bash", JSON.stringify({ command: "rm -r t1 # \u001B]0;title\u0007" })]);
    await run.waitFor("Run it?");
    expect(run.output).toContain("$ rm -r t1 # \\x1B]0;title\\x07");
    expect(run.raw).not.toContain("\u001B]0;title");
    expect(run.output).not.toContain('"command"');
    run.type(ENTER);
    expect(await run.exit).toBe(2);
    expect(existsSync(join(dir, "t1"))).toBe(true);
  });
});

describe("yes, and don't ask again", () => {
  it("writes an allow rule to the project's config, says so, records it; the next call runs without a prompt", async () => {
    const configPath = writeConfig(dir, RECOMMENDED);
    const before = readFileSync(configPath, "utf8");
    writeFile(join(dir, "t1", "a"), "1");
    writeFile(join(dir, "batch.json"), JSON.stringify([{ id: "1", name: "bash", arguments: { command: "rm -r t1" } }]));
    const run = inTerminal(["run", "batch.json", "--events"]);
    // The prompt's choices are drawn after its question: wait for them, not only for the question.
    await run.waitFor("Yes, and don't ask again in this project");
    run.type(FOURTH);
    await run.waitFor("● Yes, and don't ask again in this project");
    run.type(ENTER);
    expect(await run.exit).toBe(0);
    expect(existsSync(join(dir, "t1"))).toBe(false);
    const rule = '{"tool": "bash", "command": "rm -r t1", "decision": "allow"}';
    expect(run.output).toContain(`wrote ${rule} in ./toolhost.config.json: such calls run without asking from now on.`);
    const after = readFileSync(configPath, "utf8");
    expect(JSON.parse(after).plugins[1]).toEqual(["@toolhost/hooks-policy", { extends: ["recommended"], rules: [{ tool: "bash", command: "rm -r t1", decision: "allow" }] }]);
    // Only the policy's entry changed: the lines before it are as they were.
    expect(after.split("\n").slice(0, 8)).toEqual(before.split("\n").slice(0, 8));
    const [decision] = decisions(run.output);
    expect(decision?.approval.answer).toMatchObject({ approved: true, scope: "always", via: "terminal", rule: `${rule} in ./toolhost.config.json` });

    writeFile(join(dir, "t1", "a"), "1");
    const again = inTerminal(["call", "bash", JSON.stringify({ command: "rm -r t1" })]);
    expect(await again.exit).toBe(0);
    expect(again.output).not.toContain("needs your approval");
    expect(existsSync(join(dir, "t1"))).toBe(false);
  });

  it("is not offered where it would not take effect (an ask of the config's own layer: an ask beats an allow), and the file is left as it was", async () => {
    const configPath = writeConfig(dir, { plugins: [["@toolhost/tool-bash", { sandbox: "off" }], ["@toolhost/hooks-policy", { default: "allow", rules: [{ tool: "bash", command: "echo *", decision: "ask" }] }]] });
    // Unsandboxed widens what calls reach: the user of this XDG folder trusts the project, as they would.
    expect((await toolhost(["trust", dir], { cwd: dir, env: { XDG_CONFIG_HOME: join(dir, "xdg") } })).code).toBe(0);
    const before = readFileSync(configPath, "utf8");
    const run = inTerminal(["call", "bash", JSON.stringify({ command: "echo kept" })], { XDG_CONFIG_HOME: join(dir, "xdg") });
    await run.waitFor("Run it?");
    expect(run.output).not.toContain("don't ask again");
    run.type(DOWN);
    run.type(ENTER);
    expect(await run.exit).toBe(0);
    expect(run.output).toContain("kept");
    expect(readFileSync(configPath, "utf8")).toBe(before);
  });

  it("refuses to edit a YAML config and shows the rule to add by hand", async () => {
    writeFile(join(dir, "toolhost.config.yaml"), "plugins:\n  - ['@toolhost/tool-bash', { sandbox: 'off' }]\n  - ['@toolhost/hooks-policy', { extends: [recommended] }]\n");
    removeDir(join(dir, "toolhost.config.json"));
    writeFile(join(dir, "t1", "a"), "1");
    const run = inTerminal(["call", "bash", JSON.stringify({ command: "rm -r t1" })]);
    await run.waitFor("Run it?");
    run.type(FOURTH);
    await run.waitFor("● Yes, and don't ask again in this project");
    run.type(ENTER);
    expect(await run.exit).toBe(0);
    expect(run.output).toContain("no rule was written: toolhost edits only JSON configs, and ./toolhost.config.yaml is not one.");
    expect(run.output).toContain('add {"tool": "bash", "command": "rm -r t1", "decision": "allow"} to the "rules" of the policy plugin in ./toolhost.config.yaml');
  });

  it("is not offered for an ask a deny may decide, nor for a locked layer's ask, and the prompt says who locked it", async () => {
    writeConfig(dir, RECOMMENDED);
    const risky = inTerminal(["call", "bash", JSON.stringify({ command: "cat $F" })]);
    await risky.waitFor("Run it?");
    expect(risky.output).not.toContain("don't ask again");
    risky.type(ENTER);
    expect(await risky.exit).toBe(2);

    writeFile(join(dir, "policies", "org.yaml"), "name: org\nlocked: true\nrules:\n  - { tool: bash, command: 'rm -r *', decision: ask, reason: the organisation reviews deletions }\n");
    writeConfig(dir, { plugins: [["@toolhost/tool-bash", { sandbox: "off" }], ["@toolhost/hooks-policy", { default: "allow", extends: ["./policies/org.yaml"] }]] });
    writeFile(join(dir, "t1", "a"), "1");
    const locked = inTerminal(["call", "bash", JSON.stringify({ command: "rm -r t1" })]);
    await locked.waitFor("Run it?");
    expect(locked.output).toContain(`locked by org, ${join(dir, "policies", "org.yaml")}: only a person can approve it`);
    expect(locked.output).not.toContain("don't ask again");
    locked.type(DOWN);
    locked.type(ENTER);
    expect(await locked.exit).toBe(0);
  });
});

describe("the record of each answer (scope, via)", () => {
  it("says terminal, once or for the session", async () => {
    writeFile(join(dir, "batch.json"), JSON.stringify([{ id: "1", name: "echo", arguments: { text: "ask one" } }, { id: "2", name: "echo", arguments: { text: "ask one" } }]));
    const run = inTerminal(["run", "batch.json", "--events"]);
    await run.waitFor("Run it?");
    run.type(DOWN + DOWN);
    await run.waitFor("also run later");
    run.type(ENTER);
    expect(await run.exit).toBe(0);
    const answers = decisions(run.output).map((decision) => decision.approval.answer);
    expect(answers).toEqual([
      expect.objectContaining({ approved: true, scope: "session", via: "terminal" }),
      expect.objectContaining({ approved: true, scope: "session", via: "terminal" }),
    ]);
  });

  it("says no one to ask without a terminal", async () => {
    const run = await toolhost(["run", "-", "--events"], { cwd: dir, input: JSON.stringify({ name: "echo", arguments: { text: "ask no one" } }) });
    const decision = jsonLines(run.stdout).find((event) => (event as { type: string }).type === "tool_execution_decision") as { approval: { answer: unknown } };
    expect(decision.approval.answer).toMatchObject({ approved: false, via: "no one to ask (no terminal)" });
  });
});

// Issue 38 and 42: "always" rules are exact, written from the workspace, and offered only where they
// take effect; an edit's prompt shows its diff.
describe("exact 'always' rules", () => {
  const FS_RECOMMENDED = { plugins: ["@toolhost/tool-fs", ["@toolhost/hooks-policy", { extends: ["recommended"] }]] };

  it("a workflow named !(z): the rule written matches that file alone, from ${workspace}, and a fresh load proves it", async () => {
    const configPath = writeConfig(dir, FS_RECOMMENDED);
    const run = inTerminal(["call", "write", JSON.stringify({ path: ".github/workflows/!(z)", content: "on: push\n" })], { XDG_CONFIG_HOME: join(dir, "xdg") });
    await run.waitFor("Run it?");
    expect(run.output).toContain("writes a control file, .github/workflows");
    // The project's own layer asks (its recommended): a rule in the user's config would not take effect there.
    expect(run.output).not.toContain("in all your projects");
    run.type(FOURTH);
    await run.waitFor("● Yes, and don't ask again in this project");
    run.type(ENTER);
    expect(await run.exit).toBe(0);
    const written = readFileSync(configPath, "utf8");
    expect(JSON.parse(written).plugins[1][1].rules).toEqual([{ tool: "write", path: "${workspace}/.github/workflows/\\!\\(z\\)", decision: "allow" }]);
    expect(written).not.toContain(dir);
    expect(readFileSync(join(dir, ".github", "workflows", "!(z)"), "utf8")).toBe("on: push\n");
    // Every other workflow still asks (no terminal: refused, exit 2).
    const sibling = await toolhost(["call", "write", JSON.stringify({ path: ".github/workflows/deploy.yml", content: "x" })], { cwd: dir });
    expect(sibling.code, sibling.stderr).toBe(2);
    expect(existsSync(join(dir, ".github", "workflows", "deploy.yml"))).toBe(false);
  });

  it("an edit's prompt shows its diff, and its rule is written from ${workspace}", async () => {
    const configPath = writeConfig(dir, FS_RECOMMENDED);
    writeFile(join(dir, ".mcp.json"), '{\n  "mcpServers": {}\n}\n');
    const run = inTerminal(["call", "edit", JSON.stringify({ path: ".mcp.json", oldText: '"mcpServers": {}', newText: '"mcpServers": { "x": { "command": "sh" } }' })], { XDG_CONFIG_HOME: join(dir, "xdg") });
    await run.waitFor("Run it?");
    expect(run.output).toContain("changes .mcp.json");
    expect(run.output).toContain('-  "mcpServers": {}');
    expect(run.output).toContain('+  "mcpServers": { "x": { "command": "sh" } }');
    expect(run.output).not.toContain('"oldText"');
    run.type(FOURTH);
    await run.waitFor("● Yes, and don't ask again in this project");
    run.type(ENTER);
    expect(await run.exit).toBe(0);
    expect(JSON.parse(readFileSync(configPath, "utf8")).plugins[1][1].rules).toEqual([{ tool: "edit", path: "${workspace}/.mcp.json", decision: "allow" }]);
    expect(readFileSync(configPath, "utf8")).not.toContain(dir);
  });

  it('"in all your projects" is offered where the user\'s layer asks, and the rule it writes works', async () => {
    writeConfig(dir, { plugins: ["@toolhost/tool-fs"] });
    const home = join(dir, "xdg");
    const userConfig = writeFile(join(home, "toolhost", "toolhost.config.json"), JSON.stringify({ plugins: [["@toolhost/hooks-policy", { extends: ["recommended"] }]] }, null, 2));
    const run = inTerminal(["call", "write", JSON.stringify({ path: ".claude/settings.json", content: "{}\n" })], { XDG_CONFIG_HOME: home });
    await run.waitFor("Yes, and don't ask again in all your projects");
    // The project's config names no policy: nothing there to hold the rule.
    expect(run.output).not.toContain("in this project");
    run.type(FOURTH);
    await run.waitFor("● Yes, and don't ask again in all your projects");
    run.type(ENTER);
    expect(await run.exit).toBe(0);
    expect(run.output).toContain("such calls run without asking from now on");
    expect(JSON.parse(readFileSync(userConfig, "utf8")).plugins[0][1].rules).toEqual([{ tool: "write", path: "${workspace}/.claude/settings.json", decision: "allow" }]);
    const again = await toolhost(["call", "write", JSON.stringify({ path: ".claude/settings.json", content: "{ }\n" })], { cwd: dir, env: { XDG_CONFIG_HOME: home } });
    expect(again.code, again.stderr).toBe(0);
    const other = await toolhost(["call", "write", JSON.stringify({ path: ".claude/settings.local.json", content: "{}\n" })], { cwd: dir, env: { XDG_CONFIG_HOME: home } });
    expect(other.code).toBe(2);
  });

  it("a path outside the workspace and the home folder is never written into the project's config", async () => {
    const outside = tempDir("toolhost-outside-");
    try {
      writeConfig(dir, { plugins: [["@toolhost/tool-fs", { roots: [".", outside] }], ["@toolhost/hooks-policy", { default: "ask", rules: [{ tool: "read", path: "${workspace}/**", decision: "allow" }] }]] });
      writeFile(join(outside, "x.txt"), "x\n");
      // A root outside the workspace widens what the tools reach: the user trusts the project, as they would.
      expect((await toolhost(["trust", dir], { cwd: dir, env: { XDG_CONFIG_HOME: join(dir, "xdg"), HOME: join(dir, "home") } })).code).toBe(0);
      const run = inTerminal(["call", "read", JSON.stringify({ path: join(outside, "x.txt") })], { XDG_CONFIG_HOME: join(dir, "xdg"), HOME: join(dir, "home") });
      await run.waitFor("Run it?");
      expect(run.output).not.toContain("in this project");
      run.type(ENTER);
      expect(await run.exit).toBe(2);
    } finally {
      removeDir(outside);
    }
  });
});
