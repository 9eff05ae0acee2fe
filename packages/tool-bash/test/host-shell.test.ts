import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentHarness, type SandboxService, Type } from "@toolhost/core";
import policyPlugin from "@toolhost/hooks-policy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import bashPlugin from "../src/index.js";
import { tempFolder } from "./_helpers.js";

// The "sandbox" service as `toolhost hook` uses it: the command line another host's shell runs in
// the command's place. Run here by real shells as the hosts run commands (`bash -c`, `sh -c`, and
// Claude Code's `eval` of the quoted line), and compared byte for byte with the command unwrapped.

const folder = tempFolder();
const workspace = join(folder.dir, "ws");
let harness: AgentHarness;
let sandbox: SandboxService;

const asked = new Map<string, { command: string; cwd: string; line?: string | Error }>();

/** The command line for `command` run from `cwd`, made as the hook makes it: in an allowed call's execute stage. */
async function wrap(command: string, cwd = workspace): Promise<string> {
  const id = `call-${asked.size + 1}`;
  asked.set(id, { command, cwd });
  await harness.executeToolCalls([{ id, name: "host-call", arguments: {} }]);
  const line = asked.get(id)?.line;
  if (line instanceof Error) throw line;
  if (line === undefined) throw new Error("the call was not wrapped");
  return line;
}

/** Runs `line` as a host runs a command: `<shell> -c <line>`, in `cwd`, with `env` added; what it gave. */
function run(shell: string, line: string, cwd = workspace, env: Record<string, string> = {}) {
  const result = spawnSync(shell, ["-c", line], { cwd, env: { ...process.env, ...env }, encoding: "buffer", input: "" });
  return { status: result.status, stdout: result.stdout.toString("latin1"), stderr: result.stderr.toString("latin1") };
}

beforeAll(async () => {
  mkdirSync(join(workspace, "sub"), { recursive: true });
  harness = new AgentHarness({ cwd: workspace, workspace });
  await harness.use(policyPlugin, { extends: ["recommended"], rules: [{ tool: "host-call", decision: "allow" }] });
  await harness.use(bashPlugin, { limits: { processes: 64 } });
  sandbox = harness.getService("sandbox") as SandboxService;
  harness.registerTool({ name: "host-call", label: "host call", description: "another host's shell call", parameters: Type.Object({}), execute: async () => ({ content: [], details: {} }) });
  harness.hooks.executeToolCall.tapPromise({ name: "test", stage: -1 }, async (ctx) => {
    const call = asked.get(ctx.toolCall.id);
    if (!call) return undefined;
    try {
      call.line = (await sandbox.wrap(call.command, { cwd: call.cwd, holds: false }, ctx.execution)).commandLine;
    } catch (error) {
      call.line = error as Error;
    }
    return { content: [{ type: "text", text: "wrapped" }], details: {} };
  });
});
afterAll(async () => {
  await harness?.dispose();
  folder.remove();
});

const EXACT = [
  ["quotes of every kind", `printf '%s|' "it's" 'a "b"' $'tab\\there' \`echo back\` "$(echo sub)"; echo`],
  ["here-documents, quoted and not", "cat <<'EOF'\n$HOME `x` \\ 'q' \"d\"\nEOF\ncat <<EOF\n$((1 + 2)) \\$literal\nEOF"],
  ["backslashes and a line continued", "echo a\\\\b \\\n  c; echo 'trailing\\'"],
  ["text that is not ASCII, control bytes, a CR", "printf 'h\\303\\251llo \\342\\234\\223 \\001\\r\\n'; echo 'héllo ✓'"],
  ["a quote at the very end", "echo \"'\""],
  ["stdout and stderr, and the exit status", "echo out; echo err >&2; echo out2; exit 42"],
  ["the environment the host gave", 'echo "$HOST_GAVE" "${#HOST_GAVE}"'],
] as const;

describe("the command line another host's shell runs", () => {
  for (const [name, command] of EXACT) {
    it(`runs ${name} as the host would have, byte for byte`, async () => {
      const line = await wrap(command);
      const env = { HOST_GAVE: "value with spaces 'and' quotes" };
      const plain = run("/bin/bash", command, workspace, env);
      expect(run("/bin/bash", line, workspace, env)).toEqual(plain);
      expect(run("/bin/sh", line, workspace, env)).toEqual(plain);
      // Claude Code evals the command, quoted, in its own bash.
      const quoted = `'${line.replaceAll("'", `'\\''`)}'`;
      expect(run("/bin/bash", `eval ${quoted} < /dev/null`, workspace, env)).toEqual(plain);
    });
  }

  it("runs where the host runs it, and is confined there: the home folder is empty, nothing outside the workspace is seen", async () => {
    const cwd = join(workspace, "sub");
    writeFileSync(join(folder.dir, "outside.txt"), "outside\n");
    const line = await wrap(`pwd; ls -A ~ | wc -l; cat ${join(folder.dir, "outside.txt")}`, cwd);
    const ran = run("/bin/bash", line, cwd);
    expect(ran.stdout).toBe(`${cwd}\n0\n`);
    expect(ran.stderr).toContain("No such file or directory");
    expect(ran.stderr).toContain(`[sandbox: ${join(folder.dir, "outside.txt")} is not in toolhost's sandbox`);
    expect(ran.stderr).toContain("[sandbox: the home folder is empty here");
    expect(ran.status).toBe(1);
  });

  it("holds the kernel's state and shows no host path in /proc/1/cmdline; what it opens outlives this process, in a folder of this user's alone", async () => {
    const line = await wrap("tr '\\0' ' ' < /proc/1/cmdline; echo; : > /proc/sys/kernel/core_pattern; hostname; keyctl show @s >&2; unshare -U true; wc -c < /proc/timer_list");
    const ran = run("/bin/bash", line);
    const [cmdline, shown, size] = ran.stdout.split("\n");
    expect(cmdline).toMatch(/^\S*bwrap --args 3 -- \S*prlimit .* -- \S*bash -c tr /);
    expect(cmdline).not.toContain(folder.dir);
    expect(shown).toBe("localhost");
    expect(size).toBe("0");
    expect(ran.stderr).toContain("/proc/sys/kernel/core_pattern: Read-only file system");
    expect(ran.stderr).toContain("Unable to dump key: Operation not permitted");
    expect(ran.stderr).toContain("unshare: unshare failed: Operation not permitted");
    // The files bwrap reads (its arguments, the filter) are opened by the line itself, from the runtime folder: not removed when this process exits.
    const opened = [...line.matchAll(/ ([34])<(\S+)/g)].map((match) => match[2] as string);
    expect(opened).toHaveLength(2);
    for (const file of opened) {
      const runtime = file.slice(0, file.lastIndexOf("/"));
      expect(statSync(runtime).mode & 0o777).toBe(0o700);
      expect(statSync(runtime).uid).toBe(process.getuid?.());
      expect(file.startsWith(workspace)).toBe(false);
    }
  });

  it("gives a shell ended by a signal as shells give it: 128 + the signal's number", async () => {
    const ran = run("/bin/bash", await wrap("echo before; kill -TERM $$; echo after"));
    expect(ran).toMatchObject({ status: 143, stdout: "before\n" });
  });

  it("refuses a command with a NUL byte", async () => {
    await expect(wrap("echo a\0b")).rejects.toThrow(/NUL/);
  });

  it("ends what the command left running when it exits, and when the host kills it", async () => {
    const mark = String(9_100_000 + Math.floor(Math.random() * 100_000));
    expect(run("/bin/bash", await wrap(`sleep ${mark} & echo started`)).stdout).toBe("started\n");
    expect(processesWith(mark)).toEqual([]);
    // The host's timeout (or Ctrl-C) ends the shell it started and its group.
    const child = spawn("/bin/bash", ["-c", await wrap(`sleep ${mark}1 & echo started; sleep ${mark}2`)], { cwd: workspace, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    process.kill(-(child.pid as number), "SIGTERM");
    await new Promise<void>((resolve) => child.once("close", () => resolve()));
    await waitFor(() => processesWith(`${mark}1`).length + processesWith(`${mark}2`).length === 0);
    expect([...processesWith(`${mark}1`), ...processesWith(`${mark}2`)]).toEqual([]);
  });

  it("bounds the processes of a call with its cgroup, and removes the cgroup after it", async () => {
    const line = await wrap("for i in $(seq 1 100); do sleep 30 & done 2>&1 | tail -1; echo done");
    const child = spawn("/bin/bash", ["-c", line], { cwd: workspace, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    await new Promise<void>((resolve) => child.once("close", () => resolve()));
    expect(stdout).toMatch(/Resource temporarily unavailable|retry/);
    expect(stdout).toContain("done");
    // bash runs a lone command in its own process: the cgroups are named after that pid.
    const named = readdirSync("/sys/fs/cgroup", { recursive: true, encoding: "utf8" }).filter((path) => path.endsWith(`toolhost-${child.pid}-1`) || path.endsWith(`toolhost-${child.pid}-2`));
    expect(named).toEqual([]);
  });
});

function processesWith(mark: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const line = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      if (line.includes(`sleep ${mark}`)) found.push(`${pid}: ${line}`);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

async function waitFor(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("what a long-lived process keeps for a command another host runs", () => {
  it("is let go once the command's first process has ended, however it ended, or when none started", async () => {
    const { Leases } = await import("../src/host-shell/_leases.js");
    const leases = new Leases({ pollMs: 20, startMs: 300 });
    const released: string[] = [];
    const killed = leases.take("killed", () => released.push("killed"));
    const exited = leases.take("exited", () => released.push("exited"));
    leases.take("never", () => released.push("never"));
    const sleeper = spawn("/bin/sh", ["-c", `echo $$ > '${killed.file}'; exec sleep 30`], { stdio: "ignore" });
    const quick = spawn("/bin/sh", ["-c", `echo $$ > '${exited.file}'; sleep 0.2`], { stdio: "ignore" });
    await new Promise<void>((resolve) => quick.once("exit", () => resolve()));
    await waitFor(() => released.includes("exited"));
    expect(released).not.toContain("killed");
    sleeper.kill("SIGKILL");
    await waitFor(() => released.includes("killed") && released.includes("never"));
    expect(released.sort()).toEqual(["exited", "killed", "never"]);
    leases.dispose();
  });
});
