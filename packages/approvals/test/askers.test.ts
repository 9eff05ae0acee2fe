import { spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import type { BrowserContext } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { browser, cleanUp, onCleanup, openPage, project, readJson, start, startPage, toolhost, until, writeConfig } from "./_helpers.js";

// The other processes that have no one to ask, each asking through the page in Chromium: a
// headless agent host's hook, and `toolhost mcp serve` under a client that cannot elicit.

let context: BrowserContext;
beforeAll(async () => {
  context = await browser();
});
afterEach(cleanUp);
afterAll(async () => {
  await context?.close();
});

const POLICY = ["@toolhost/hooks-policy", { extends: ["recommended"], audit: ".toolhost/audit.jsonl" }];

function payload(dir: string, command: string, session = "session-1"): string {
  return JSON.stringify({ session_id: session, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command }, tool_use_id: `toolu_${Math.random().toString(36).slice(2)}`, cwd: dir });
}

describe("a headless hook (toolhost hook claude-code --on-ask page)", () => {
  it("puts Claude Code's ask on the page, and answers allow once a person approves, in time", async () => {
    const dir = project({ "build/x": "x\n" });
    writeConfig(dir, [POLICY, "@toolhost/approvals"]);
    const served = await startPage();
    const { page, errors } = await openPage(context, served.openUrl);
    const hook = start(["hook", "claude-code", "--on-ask", "page", "--timeout", "60"], { cwd: dir, input: payload(dir, "rm -r build") });
    const card = page.locator("#pending .ask").first();
    await card.waitFor();
    expect(await card.locator("pre.command").textContent()).toBe("rm -r build");
    expect(await card.textContent()).toContain("toolhost hook claude-code");
    await card.locator("button.once").click();
    expect(await hook.exited).toBe(0);
    expect(JSON.parse(hook.stdout())).toMatchObject({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } });
    // The hook only answers: Claude Code runs the command.
    expect(existsSync(join(dir, "build"))).toBe(true);
    expect(errors).toEqual([]);
  });

  it("refuses with the person's reason, and before the host's timeout when no one answers", async () => {
    const dir = project();
    writeConfig(dir, [POLICY, "@toolhost/approvals"]);
    const served = await startPage();
    const { page } = await openPage(context, served.openUrl);
    const denied = start(["hook", "claude-code", "--on-ask", "page"], { cwd: dir, input: payload(dir, "rm -r build") });
    await page.locator("#pending .ask input.reason").fill("use the clean script");
    await page.locator("#pending .ask input.reason").press("Enter");
    expect(await denied.exited).toBe(0);
    const answer = JSON.parse(denied.stdout()) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    expect(answer.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(answer.hookSpecificOutput.permissionDecisionReason).toContain("it was refused on the approvals page: use the clean script");
    // A host timeout of 10 s: the hook refuses on its own before it, saying why.
    const unanswered = start(["hook", "claude-code", "--on-ask", "page", "--timeout", "10"], { cwd: dir, input: payload(dir, "rm -r dist") });
    expect(await unanswered.exited).toBe(0);
    const late = JSON.parse(unanswered.stdout()) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    expect(late.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(late.hookSpecificOutput.permissionDecisionReason).toMatch(/no one answered on the approvals page \(.*\) within \d+ seconds?, so the call is refused/);
    await page.locator("#answered .ask .outcome", { hasText: "Withdrawn" }).or(page.locator("#answered .ask .outcome", { hasText: "Timed out" })).first().waitFor();
  });

  it("approves the session's later asks of the same kind, and no other session's", async () => {
    const dir = project();
    writeConfig(dir, [POLICY, "@toolhost/approvals"]);
    const served = await startPage();
    const { page } = await openPage(context, served.openUrl);
    const first = start(["hook", "claude-code", "--on-ask", "page"], { cwd: dir, input: payload(dir, "rm -r build", "s-1") });
    await page.locator("#pending .ask button.session").click();
    expect(await first.exited).toBe(0);
    const later = start(["hook", "claude-code", "--on-ask", "page"], { cwd: dir, input: payload(dir, "rm -r build/cache", "s-1") });
    expect(await later.exited).toBe(0);
    expect(JSON.parse(later.stdout())).toMatchObject({ hookSpecificOutput: { permissionDecision: "allow" } });
    await page.locator("#answered .ask .outcome", { hasText: "approved for this session with ask 1" }).waitFor();
    const other = start(["hook", "claude-code", "--on-ask", "page"], { cwd: dir, input: payload(dir, "rm -r build/cache", "s-2") });
    await page.locator("#pending .ask").waitFor();
    await page.locator("#pending .ask button.no").click();
    expect(await other.exited).toBe(0);
    expect(JSON.parse(other.stdout())).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny" } });
  });
});

/** The hook server's token, in the environment of the server and of the hooks that forward to it. */
const HOOK_TOKEN = "t".repeat(40);
const HOOK_ENV = { TOOLHOST_HOOK_TOKEN: HOOK_TOKEN };

/** `toolhost hook serve` on a free port: its address. */
async function startHookServer(cwd: string): Promise<string> {
  const server = start(["hook", "serve", "--http", "127.0.0.1:0"], { cwd, env: HOOK_ENV });
  for (;;) {
    const printed = /toolhost hook server on (http:\/\/\S+)/.exec(server.stdout());
    if (printed) return `${printed[1]}/`;
    if (server.process.exitCode !== null) throw new Error(`toolhost hook serve exited: ${server.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** POSTs a payload as Claude Code's own http hook does (its header, no Origin), and reads the answer. */
function postHook(url: string, body: string): Promise<{ status: number; answer: unknown }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${HOOK_TOKEN}` } }, (response) => {
      let text = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, answer: JSON.parse(text) }));
    });
    sent.on("error", reject);
    sent.end(body);
  });
}

describe("the served hook (toolhost hook serve) and the hook that forwards to it, asking on the page", () => {
  it("the forwarding hook's ask goes through the server to the page, and the hook answers allow once a person approves", async () => {
    const dir = project({ "build/x": "x\n" });
    writeConfig(dir, [POLICY, "@toolhost/approvals"]);
    const served = await startPage();
    const { page, errors } = await openPage(context, served.openUrl);
    const server = await startHookServer(dir);
    const hook = start(["hook", "claude-code", "--server", server, "--on-ask", "page", "--timeout", "60"], { cwd: dir, input: payload(dir, "rm -r build"), env: HOOK_ENV });
    const card = page.locator("#pending .ask").first();
    await card.waitFor();
    expect(await card.locator("pre.command").textContent()).toBe("rm -r build");
    // The server asked, for the hook: not a second, in-process ask.
    expect(await card.textContent()).toContain("toolhost hook serve (claude-code)");
    await card.locator("button.once").click();
    expect(await hook.exited).toBe(0);
    expect(JSON.parse(hook.stdout())).toMatchObject({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } });
    expect(hook.stderr()).not.toContain("was not used");
    expect(await page.locator("#pending .ask").count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it("through the server: refused with the person's reason, and before the host's timeout when no one answers", async () => {
    const dir = project();
    writeConfig(dir, [POLICY, "@toolhost/approvals"]);
    const served = await startPage();
    const { page } = await openPage(context, served.openUrl);
    const server = await startHookServer(dir);
    const denied = start(["hook", "claude-code", "--server", server, "--on-ask", "page"], { cwd: dir, input: payload(dir, "rm -r build"), env: HOOK_ENV });
    await page.locator("#pending .ask input.reason").fill("use the clean script");
    await page.locator("#pending .ask input.reason").press("Enter");
    expect(await denied.exited).toBe(0);
    const answer = JSON.parse(denied.stdout()) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    expect(answer.hookSpecificOutput).toMatchObject({ permissionDecision: "deny", permissionDecisionReason: expect.stringContaining("it was refused on the approvals page: use the clean script") });
    // A host timeout of 10 s: the server's ask ends before it, and the forwarding hook prints the server's refusal.
    const unanswered = start(["hook", "claude-code", "--server", server, "--on-ask", "page", "--timeout", "10"], { cwd: dir, input: payload(dir, "rm -r dist"), env: HOOK_ENV });
    expect(await unanswered.exited).toBe(0);
    const late = JSON.parse(unanswered.stdout()) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    expect(late.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(late.hookSpecificOutput.permissionDecisionReason).toMatch(/no one answered on the approvals page \(.*\) within \d+ seconds?, so the call is refused/);
    expect(unanswered.stderr()).not.toContain("was not used");
  });

  it("hook install --on-ask page writes hooks that ask there: the forwarding command, and Claude Code's own http hook", async () => {
    const dir = project({ "build/x": "x\n", "dist/x": "x\n" });
    writeConfig(dir, [POLICY, "@toolhost/approvals"]);
    const served = await startPage();
    const { page } = await openPage(context, served.openUrl);
    const server = await startHookServer(dir);
    const home = project();
    const settings = join(home, ".claude", "settings.json");
    type Entry = { type: string; command?: string; url?: string; timeout: number };
    const installed = async (args: string[]): Promise<Entry> => {
      const { code, stderr } = await toolhost(["hook", "install", "claude-code", "--user", "--server", server, "--on-ask", "page", "--timeout", "90", ...args, "--write", "--yes"], { cwd: dir, env: { HOME: home } });
      expect(code, stderr).toBe(0);
      expect(stderr).toContain("The hook asks on the approvals page, waiting up to 90 s");
      const written = readJson(settings) as { hooks: { PreToolUse: Array<{ hooks: Entry[] }> } };
      const entry = written.hooks.PreToolUse.at(-1)!.hooks[0]!;
      rmSync(settings);
      return entry;
    };
    // The command form: run as Claude Code runs it (a shell, the payload on standard input).
    const command = await installed([]);
    expect(command).toMatchObject({ type: "command", timeout: 90 });
    expect(command.command).toMatch(/ hook claude-code --server '?http:\/\/127\.0\.0\.1:\d+\/'? --on-ask page --timeout 90$/);
    const shell = spawn("/bin/sh", ["-c", command.command!], { cwd: dir, env: { ...process.env, ...HOOK_ENV }, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    shell.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    const shellExited = new Promise<number | null>((resolve) => shell.once("close", resolve));
    onCleanup(() => void shell.kill("SIGKILL"));
    shell.stdin.end(payload(dir, "rm -r build"));
    await page.locator("#pending .ask button.once").click();
    expect(await shellExited).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ hookSpecificOutput: { permissionDecision: "allow" } });
    // Claude Code's http hook: its URL asks the server to ask on the page, within the entry's timeout.
    const http = await installed(["--http-hook"]);
    expect(http).toMatchObject({ type: "http", timeout: 90, url: `${server}claude-code?on-ask=page&timeout-ms=90000` });
    const posted = postHook(http.url!, payload(dir, "rm -r dist"));
    const card = page.locator("#pending .ask").first();
    await card.waitFor();
    expect(await card.locator("pre.command").textContent()).toBe("rm -r dist");
    await card.locator("button.once").click();
    expect(await posted).toMatchObject({ status: 200, answer: { hookSpecificOutput: { permissionDecision: "allow" } } });
  });
});

describe("toolhost mcp serve under a client that cannot elicit", () => {
  it("asks on the page, and the client gets the call's result once it is approved", async () => {
    const dir = project({ "build/x": "x\n" });
    writeConfig(dir, [["@toolhost/tool-bash", { sandbox: "off" }], POLICY, "@toolhost/approvals"]);
    const served = await startPage();
    const { page } = await openPage(context, served.openUrl);
    const server = start(["mcp", "serve"], { cwd: dir, keepInput: true });
    const send = (message: unknown): void => void server.process.stdin?.write(`${JSON.stringify(message)}\n`);
    const lines = (): Array<{ id?: number; result?: { content?: Array<{ text: string }>; isError?: boolean } }> =>
      server.stdout().split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line));
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } } });
    await until(() => lines().some((line) => line.id === 1));
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "bash", arguments: { command: "rm -r build" } } });
    const card = page.locator("#pending .ask").first();
    await card.waitFor();
    expect(await card.textContent()).toContain("toolhost mcp serve");
    await card.locator("button.once").click();
    await until(() => lines().some((line) => line.id === 2));
    const answer = lines().find((line) => line.id === 2);
    expect(answer?.result?.isError).not.toBe(true);
    expect(existsSync(join(dir, "build"))).toBe(false);
  });
});
