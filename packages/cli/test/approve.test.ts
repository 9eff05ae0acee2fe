import { spawn } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { BIN, project, removeDir, tempDir, writeConfig, writeFile } from "./_helpers.js";

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
function inTerminal(args: string[], env: Record<string, string> = {}) {
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
      { id: "3", name: "bash", arguments: { command: "python3 -c 'print(7)'" } },
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
