// The sandbox, through a real harness and real bubblewrap. Without a working bwrap these tests
// fail (they ask for `sandbox: "required"`, which then refuses every call): CI installs it.
import { execFileSync } from "node:child_process";
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { AgentHarness, definePlugin, type PolicyService } from "@toolhost/core";
import { beforeEach, describe, expect, it } from "vitest";
import bashPlugin, { BashErrorCode } from "../src/index.js";
import { cleanupsAfterEach, isRunning, runBash as bash, runIsolated, tempFolder } from "./_helpers.js";

let ws: string;
let out: string;
const cleanups = cleanupsAfterEach();
beforeEach(() => {
  const a = tempFolder();
  ws = a.dir;
  // Outside the system's /tmp, which the sandbox replaces with its own: there, the folder would look missing, not read-only.
  out = mkdtempSync(join("/var/tmp", "tool-bash-outside-"));
  cleanups.push(a.remove, () => rmSync(out, { recursive: true, force: true }));
});

const SECRET = "SECRET_VALUE_4711";

/** A policy that denies reading `.env` and `keys/`, and writing `protected.txt`, under any root. */
const testPolicy = definePlugin({
  name: "test-policy",
  apply(harness) {
    const service: PolicyService = {
      explain: async (request) => ({ decision: "allow", reason: "test", tool: request.tool, rules: [], parts: [] }),
      protectedPaths: async (root) => ({
        denyRead: [join(root, ".env"), join(root, "keys")].filter((path) => existsSync(path)),
        denyWrite: [join(root, "protected.txt")].filter((path) => existsSync(path)),
      }),
    };
    harness.provideService("policy", service);
  },
});

// Today's sandbox: all of / read-only ("host"). The minimal root has its own tests (sandbox-minimal.test.ts).
async function harnessWith(options: Record<string, unknown> = {}, withPolicy = true): Promise<AgentHarness> {
  const harness = new AgentHarness({ cwd: ws, workspace: ws });
  await harness.use(bashPlugin, { sandbox: "required", root: "host", ...options });
  if (withPolicy) await harness.use(testPolicy);
  cleanups.push(() => harness.dispose());
  return harness;
}

describe("the sandbox", { timeout: 60_000 }, () => {
  it("runs here (bubblewrap installed and working), and says so in each result's details and the tool's description", async () => {
    const harness = await harnessWith();
    const result = await bash(harness, "echo inside");
    expect(result.text).toBe("inside");
    expect(result.details.sandbox).toMatchObject({ mode: "required", enforced: true, network: "off", writable: [ws] });
    expect(result.details.sandbox.backend).toMatch(/^bwrap \d+(\.\d+)+ \(\/\S+\/bwrap\)$/);
    expect(harness.getTool("bash")?.description).toContain("Commands run in a sandbox");
  });

  it("refuses writes outside the workspace, whatever the spelling, and leaves nothing behind", async () => {
    writeFileSync(join(ws, "file.txt"), "data");
    symlinkSync(out, join(ws, "link"));
    const harness = await harnessWith();
    const rel = `${"../".repeat(ws.split("/").length - 1)}${out.slice(1)}`;
    const attempts: Array<[string, string]> = [
      [`echo x > ${out}/abs.txt`, "abs.txt"],
      [`echo x > ${rel}/dotdot.txt`, "dotdot.txt"],
      ["echo x > link/via-link.txt", "via-link.txt"],
      [`cp file.txt ${out}/cp.txt`, "cp.txt"],
      [`echo x | tee ${out}/tee.txt`, "tee.txt"],
      [`python3 -c "open('${out}/py.txt', 'w').write('x')"`, "py.txt"],
    ];
    for (const [command, name] of attempts) {
      const result = await bash(harness, command);
      expect(result.isError, command).toBe(true);
      expect(result.text, command).toContain("Read-only file system");
      expect(result.text, command).toContain("[sandbox: a write outside the writable folders was refused");
      expect(existsSync(join(out, name)), command).toBe(false);
    }
    expect(readdirSync(out)).toEqual([]);
  });

  it("keeps writes inside the workspace, reading the system, a private /tmp, git status and pnpm working", async () => {
    execFileSync("git", ["init", "-q", ws]);
    const harness = await harnessWith();
    const marker = `toolhost-sandbox-test-${process.pid}-${Date.now()}`;
    const result = await bash(
      harness,
      `echo hi > new.txt && cat new.txt && head -1 /etc/passwd | cut -d: -f1 && echo t > /tmp/${marker} && cat /tmp/${marker} && git status --short && pnpm --version`,
    );
    expect(result.isError, result.text).toBe(false);
    expect(result.text.split("\n").slice(0, 3)).toEqual(["hi", "root", "t"]);
    expect(result.text).toContain("?? new.txt");
    expect(result.text).toMatch(/\n\d+\.\d+\.\d+$/);
    expect(readFileSync(join(ws, "new.txt"), "utf8")).toBe("hi\n");
    // The /tmp of a call is its own.
    expect(existsSync(join("/tmp", marker))).toBe(false);
  });

  it("keeps .git read-only unless writable lists it, and says how to allow it", async () => {
    execFileSync("git", ["init", "-q", ws]);
    writeFileSync(join(ws, "a.txt"), "a");
    const strict = await bash(await harnessWith(), "git add a.txt");
    expect(strict.isError).toBe(true);
    expect(strict.text).toContain(`[sandbox: ${join(ws, ".git")} is read-only`);
    expect(strict.details.sandbox.readOnly).toEqual([join(ws, ".git")]);
    const open = await bash(await harnessWith({ writable: ["${workspace}", "${workspace}/.git"] }), "git add a.txt && git status --short");
    expect(open.isError, open.text).toBe(false);
    expect(open.text).toBe("A  a.txt");
  });

  it("hides what the policy denies to read: by name, glob, grep -r, find -exec, a symlink, a hard link, tar, a script, python", async () => {
    writeFileSync(join(ws, ".env"), `TOKEN=${SECRET}\n`);
    mkdirSync(join(ws, "keys"));
    writeFileSync(join(ws, "keys", "id_rsa"), `${SECRET}\n`);
    symlinkSync(join(ws, ".env"), join(ws, "env-link"));
    linkSync(join(ws, ".env"), join(ws, "env-hard"));
    writeFileSync(join(ws, "read.sh"), "cat .env keys/id_rsa\n");
    writeFileSync(join(ws, "visible.txt"), "visible\n");
    const harness = await harnessWith();
    const commands = [
      "cat .env",
      "cat .e*",
      "cat keys/*",
      `grep -r ${SECRET} . ; cat visible.txt`,
      "find . -type f -exec cat {} \\;",
      "cat env-link",
      "cat env-hard",
      "tar c . | strings",
      "bash read.sh",
      `python3 -c "print(open('.env').read(), open('env-hard').read())"`,
    ];
    for (const command of commands) {
      const result = await bash(harness, command);
      expect(result.text, command).not.toContain(SECRET);
      expect(result.details.sandbox.hidden, command).toEqual(expect.arrayContaining([join(ws, ".env"), join(ws, "keys"), join(ws, "env-hard")]));
    }
    expect((await bash(harness, "grep -r visible .")).text).toContain("visible.txt:visible");
    expect((await bash(harness, "cat .env")).text).toContain(`[sandbox: the policy denies reading ${join(ws, ".env")}`);
  });

  it("refuses the call when a denied file has a hard link it cannot hide", async () => {
    writeFileSync(join(ws, ".env"), `TOKEN=${SECRET}\n`);
    linkSync(join(ws, ".env"), join(out, "elsewhere"));
    const result = await bash(await harnessWith(), "echo never");
    expect(result.isError).toBe(true);
    expect(result.details.code).toBe(BashErrorCode.SANDBOX_FAILED);
    expect(result.text).toContain(`${join(ws, ".env")}, which the policy denies to read, has 2 hard links`);
    expect(result.text).not.toContain("never\n");
  });

  it("keeps what the policy denies to write read-only inside the workspace", async () => {
    writeFileSync(join(ws, "protected.txt"), "original\n");
    const result = await bash(await harnessWith(), "echo changed >> protected.txt");
    expect(result.isError).toBe(true);
    expect(result.text).toContain(`[sandbox: the policy denies writing ${join(ws, "protected.txt")}`);
    expect(readFileSync(join(ws, "protected.txt"), "utf8")).toBe("original\n");
  });

  it("refuses the call (fails closed) when the policy cannot say what it protects", async () => {
    const harness = new AgentHarness({ cwd: ws, workspace: ws });
    cleanups.push(() => harness.dispose());
    await harness.use(bashPlugin, { sandbox: "required", root: "host" });
    harness.provideService("policy", {
      explain: async () => ({ decision: "deny", reason: "x", tool: "bash", rules: [], parts: [] }),
      protectedPaths: async () => {
        throw new Error("rules did not load");
      },
    });
    const result = await bash(harness, "echo never");
    expect(result.details.code).toBe(BashErrorCode.SANDBOX_FAILED);
    expect(result.text).toContain("the policy could not list the paths it protects");
    expect(result.text).toContain("rules did not load");
  });
});

describe("the sandbox's network", { timeout: 60_000 }, () => {
  let server: Server;
  let port: number;
  let requests = 0;
  beforeEach(async () => {
    requests = 0;
    server = createServer((_request, response) => {
      requests += 1;
      response.end("hello from outside\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  });

  it("is off by default: a server on this machine's loopback is not reached, and the result says why", async () => {
    const result = await bash(await harnessWith(), `curl -sS http://127.0.0.1:${port}/`);
    expect(result.isError).toBe(true);
    expect(result.text).not.toContain("hello from outside");
    expect(result.text).toContain('[sandbox: the network is off for commands (the bash tool\'s "network" option is "off")');
    expect(requests).toBe(0);
  });

  it("says so too when a command that needs the network fails silently", async () => {
    const result = await bash(await harnessWith(), `curl -s http://127.0.0.1:${port}/`);
    expect(result.isError).toBe(true);
    expect(result.text).toContain("[sandbox: the network is off for commands");
    expect(requests).toBe(0);
  });

  it('is reachable with network: "on"', async () => {
    const result = await bash(await harnessWith({ network: "on" }), `curl -sS http://127.0.0.1:${port}/`);
    expect(result.text).toBe("hello from outside");
    expect(requests).toBe(1);
  });
});

/** Live `sleep` processes whose argument starts with `token` (the shells that started them hold it too). */
function processesWith(token: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const [program, argument] = readFileSync(`/proc/${name}/cmdline`, "latin1").split("\0");
      if (program?.endsWith("sleep") && argument?.startsWith(token) && isRunning(Number(name))) found.push(Number(name));
    } catch {
      // gone
    }
  }
  return found;
}

async function noneLeft(token: string): Promise<number[]> {
  // The namespace's processes are killed at once but reaped a moment later: a bounded wait, not a threshold.
  for (let i = 0; i < 100; i++) {
    const left = processesWith(token);
    if (left.length === 0) return left;
    await delay(100);
  }
  return processesWith(token);
}

/** 8 processes that drop the call's marker and leave the session, each with a unique sleep time to find it by. */
function escapees(token: string): string {
  const lines = Array.from({ length: 8 }, (_, i) => `(env -u TOOLHOST_BASH_CALL setsid sleep 1000.${token}${i} >/dev/null 2>&1 </dev/null &)`);
  return `${lines.join("\n")}\necho started\nsleep 300`;
}

describe("no process outlives a sandboxed call", { timeout: 60_000 }, () => {
  const token = (): string => String(Math.floor(Math.random() * 1e9));

  it("on abort", async () => {
    const harness = await harnessWith();
    const id = token();
    const controller = new AbortController();
    const call = harness.executeToolCalls([{ id: "1", name: "bash", arguments: { command: escapees(id) } }], { signal: controller.signal });
    while (processesWith(`1000.${id}`).length < 8) await delay(50);
    controller.abort();
    await call;
    expect(await noneLeft(`1000.${id}`)).toEqual([]);
  });

  it("on timeout", async () => {
    const harness = await harnessWith({ timeout: 2 });
    const id = token();
    const result = await bash(harness, escapees(id));
    expect(result.details.code).toBe(BashErrorCode.TIMED_OUT);
    expect(result.text).toContain("started");
    expect(await noneLeft(`1000.${id}`)).toEqual([]);
  });

  it("on dispose", async () => {
    const harness = await harnessWith();
    const id = token();
    const call = bash(harness, escapees(id)).catch(() => undefined);
    while (processesWith(`1000.${id}`).length < 8) await delay(50);
    await harness.dispose();
    await call;
    expect(await noneLeft(`1000.${id}`)).toEqual([]);
  });

  it("when the shell exits, leaving them behind", async () => {
    const id = token();
    const result = await bash(await harnessWith(), escapees(id).replace("sleep 300", "true"));
    expect(result.text).toBe("started");
    expect(await noneLeft(`1000.${id}`)).toEqual([]);
  });
});

describe("without a working sandbox", { timeout: 60_000 }, () => {
  // A machine of its own for each: a private mount namespace where the system's bwrap is covered
  // (the host looks for it only in the system's folders, never on PATH).
  const NOT_FOUND = "bubblewrap (bwrap) was not found in the system's folders (/usr/bin, /bin, /usr/sbin, /sbin, /usr/local/bin";

  it('"required" refuses every call, saying what is missing and how to install it', () => {
    writeFileSync(join(ws, "never-written"), "");
    const ran = runIsolated(ws, { workspace: ws, options: { sandbox: "required", root: "host" }, commands: ["echo hello", "rm never-written"] }, { bwrap: "missing" });
    expect(ran.warnings.filter((w) => w.code === "TOOLHOST_BASH_SANDBOX_UNAVAILABLE")).toHaveLength(1);
    for (const result of ran.results) {
      expect(result.isError).toBe(true);
      expect(result.code).toBe(BashErrorCode.SANDBOX_UNAVAILABLE);
      expect(result.text).toContain(NOT_FOUND);
      expect(result.text).toContain("apt-get install bubblewrap");
      expect(result.text).not.toMatch(/\n\s+at /); // no stack trace
    }
    expect(existsSync(join(ws, "never-written"))).toBe(true);
  });

  it('"auto" runs unsandboxed and says so once, at load', () => {
    const ran = runIsolated(ws, { workspace: ws, options: { sandbox: "auto", root: "host" }, commands: [`echo x > ${out}/unsandboxed.txt && echo done`] }, { bwrap: "missing" });
    const unsandboxed = ran.warnings.filter((w) => w.code === "TOOLHOST_BASH_UNSANDBOXED");
    expect(unsandboxed).toHaveLength(1);
    expect(unsandboxed[0]?.message).toContain(`Commands run unsandboxed: ${NOT_FOUND}`);
    expect(ran.warnings).toHaveLength(1);
    const [result] = ran.results;
    expect(result?.text).toBe("done");
    expect(result?.sandbox).toMatchObject({ mode: "auto", enforced: false });
    expect(result?.sandbox.reason).toContain(NOT_FOUND);
  });

  it("reports why bwrap cannot make a sandbox (user namespaces blocked), in words, without a stack trace", () => {
    const broken = "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n";
    const ran = runIsolated(ws, { workspace: ws, options: { sandbox: "required", root: "host" }, commands: ["echo never"] }, { bwrap: broken });
    const [warning] = ran.warnings.filter((w) => w.code === "TOOLHOST_BASH_SANDBOX_UNAVAILABLE");
    expect(warning?.message).toContain("/usr/bin/bwrap cannot make a sandbox on this machine: bwrap: setting up uid map: Permission denied.");
    expect(warning?.message).toContain("User namespaces look blocked here");
    const [result] = ran.results;
    expect(result?.code).toBe(BashErrorCode.SANDBOX_UNAVAILABLE);
    expect(result?.text).toContain("setting up uid map: Permission denied");
    expect(result?.text).not.toMatch(/\n\s+at /);
  });

  it('"off" probes nothing and warns nothing', async () => {
    const seen: string[] = [];
    const listener = (warning: Error): number => seen.push(warning.message);
    process.on("warning", listener);
    try {
      await harnessWith({ sandbox: "off" });
      await delay(50); // warnings are emitted on the next tick
    } finally {
      process.off("warning", listener);
    }
    const warnings = seen;
    expect(warnings).toEqual([]);
  });
});

describe("full-output files", { timeout: 60_000 }, () => {
  it("are readable from the sandbox, say until when they are kept, and are all deleted when the harness is disposed", async () => {
    const harness = await harnessWith({ maxStdoutLines: 4 });
    const first = await bash(harness, "seq 1 1000");
    const path = first.details.fullOutputPath as string;
    expect(first.text).toContain(`full output: ${path} (kept until ${first.details.fullOutputExpiresAt})`);
    const read = await bash(harness, `wc -l < ${path}`);
    expect(read.text).toBe("1000");
    await harness.dispose();
    expect(existsSync(path)).toBe(false);
    expect(existsSync(dirname(path))).toBe(false);
  });

  it("are deleted after fullOutputLifetime seconds", async () => {
    const harness = await harnessWith({ maxStdoutLines: 4, fullOutputLifetime: 0.5 });
    const path = (await bash(harness, "seq 1 100")).details.fullOutputPath as string;
    expect(existsSync(path)).toBe(true);
    for (let i = 0; i < 100 && existsSync(path); i++) await delay(100);
    expect(existsSync(path)).toBe(false);
  });

  it("are written through the harness's redact hook, whole lines at a time: a token split across chunks is redacted whole", async () => {
    const harness = await harnessWith({ maxStdoutLines: 2 });
    harness.hooks.redact.tap("test-redactor", (text) => text.replaceAll(/ghp_[A-Za-z0-9]{36}/g, "[REDACTED]"));
    const token = `ghp_${"a1B2".repeat(9)}`;
    const command = [
      `for i in 1 2 3; do echo "line $i ${token}"; done`,
      `printf 'split ${token.slice(0, 10)}'; sleep 0.3; printf '${token.slice(10)} end\\n'`,
      `echo "err ${token}" >&2`,
    ].join("\n");
    const result = await bash(harness, command);
    const file = readFileSync(result.details.fullOutputPath as string, "utf8");
    expect(file).not.toContain("ghp_");
    expect(file).toContain("split [REDACTED] end\n");
    expect(file).toContain("err [REDACTED]\n");
    expect(file.match(/\[REDACTED\]/g)?.length).toBe(5);
  });

  it("are not kept when the redact hook fails on them", async () => {
    const harness = await harnessWith({ maxStdoutLines: 2 });
    harness.hooks.redact.tap("test-redactor", (text) => {
      if (text.includes("line 3")) throw new Error("redactor broke");
      return text;
    });
    const result = await bash(harness, "seq 1 5 | sed 's/^/line /'");
    expect(result.details.fullOutputPath).toBeNull();
    expect(result.details.stdout).toContain("the full output could not be saved (the redact hook failed on it: ");
    expect(result.details.stdout).toContain("redactor broke)");
  });

  it("are not written with keepFullOutput: false", async () => {
    const harness = await harnessWith({ maxStdoutLines: 2, keepFullOutput: false });
    const result = await bash(harness, "seq 1 10");
    expect(result.details.fullOutputPath).toBeNull();
    expect(result.text).toBe("1\n… 8 lines left out; the full output is not kept (keepFullOutput: false)\n10");
  });
});

describe("the bash tool's declarations", { timeout: 60_000 }, () => {
  it("declares its command with the folder it runs in, and annotations", async () => {
    const harness = await harnessWith({ sandbox: "off", cwd: "sub" });
    const tool = harness.getTool("bash");
    expect(await tool?.access?.({ command: "ls -la" }, { cwd: ws, workspace: ws })).toEqual({ commands: [{ command: "ls -la", cwd: join(ws, "sub") }] });
    expect(tool?.annotations).toEqual({ readOnly: false, destructive: true, openWorld: true });
  });

  it("declares, sandboxed, what the sandbox lets the call change (for the policy); unsandboxed, nothing of the kind", async () => {
    mkdirSync(join(ws, "build"));
    const env = { cwd: ws, workspace: ws };
    const boxed = await harnessWith({ writable: ["${workspace}", "build"] });
    expect(await boxed.getTool("bash")?.access?.({ command: "make" }, env)).toEqual({
      commands: [{ command: "make", cwd: ws }],
      // This test's policy service cannot list what it denies outside the workspace: the sandbox does not say it hides it.
      confinement: { writable: [ws, join(ws, "build")], network: false, hidesDeniedReads: false },
    });
    const online = await harnessWith({ network: "on" });
    expect(await online.getTool("bash")?.access?.({ command: "make" }, env)).toMatchObject({ confinement: { writable: [ws], network: true } });
    const open = runIsolated(ws, { workspace: ws, options: { sandbox: "auto" }, commands: [], access: "make" }, { bwrap: "missing" });
    expect(open.access).toEqual({ commands: [{ command: "make", cwd: ws }] });
  });

  it("runs commandPrefix first in every command", async () => {
    const harness = await harnessWith({ commandPrefix: "set -o pipefail; GREETING=hello" });
    const result = await bash(harness, 'false | true; echo "exit $? $GREETING"');
    expect(result.text).toBe("exit 1 hello");
    expect(result.details.command).toBe('false | true; echo "exit $? $GREETING"');
  });
});
