import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { createServer, request } from "node:http";
import { join } from "node:path";
import { callDigest } from "@toolhost/core";
import type { BrowserContext } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  browser,
  cleanUp,
  onCleanup,
  openPage,
  project,
  queueKey,
  start,
  startPage,
  startRedis,
  startWorker,
  toolhost,
  until,
  USER_CONFIG_DIR,
  workerCounts,
  writeConfig,
} from "./_helpers.js";
import { type FakeOpenAI, startFakeOpenAI, textTurn, toolCallsTurn } from "../../provider-openai/test/_fake-openai.js";

// In Debian's Chromium, headless, driven by playwright-core: the page `toolhost approvals serve`
// prints, the built CLI asking through it with no terminal, a worker on a Redis of the test.

let context: BrowserContext;
beforeAll(async () => {
  context = await browser();
});
afterEach(cleanUp);
afterAll(async () => {
  await context?.close();
});

const POLICY = "@toolhost/hooks-policy";
const APPROVALS = "@toolhost/approvals";

function policy(rules: unknown[] = [], extra: Record<string, unknown> = {}): unknown[] {
  return [POLICY, { extends: ["recommended"], rules, audit: ".toolhost/audit.jsonl", ...extra }];
}

function auditLines(dir: string): Array<Record<string, unknown>> {
  return readFileSync(join(dir, ".toolhost", "audit.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("a queued call asked about on the page", () => {
  it("shows `rm -r build` with its command, rules and asker; approved with the keyboard, it runs once on the worker, and stays listed as answered", async () => {
    const redis = await startRedis();
    const env = { TOOLHOST_QUEUE_KEY: queueKey() };
    const workerDir = project({ "build/out.txt": "built\n" });
    writeConfig(workerDir, [["@toolhost/tool-bash", { sandbox: "off" }], [QUEUE(), { redis: redis.url, queue: "calls" }]]);
    const worker = await startWorker(workerDir, env);
    const host = project();
    writeConfig(host, [["@toolhost/tool-bash", { sandbox: "off" }], policy(), [QUEUE(), { redis: redis.url, queue: "calls", tools: ["bash"] }], APPROVALS]);
    const served = await startPage();
    const { page, errors } = await openPage(context, served.openUrl);

    const call = start(["call", "bash", JSON.stringify({ command: "rm -r build" })], { cwd: host, env });
    const card = page.locator("#pending .ask").first();
    await card.waitFor();
    expect(await card.locator("pre.command").textContent()).toBe("rm -r build");
    const text = await card.textContent();
    expect(text).toContain("toolhost call bash");
    expect(text).toContain(host);
    expect(text).toContain("recommended:rules[18]");
    expect(text).toContain("layer recommended");
    // Nothing has run while it waits.
    expect(existsSync(join(workerDir, "build"))).toBe(true);
    expect(workerCounts(worker)).toEqual({ completed: 0, failed: 0, running: 0 });

    await page.keyboard.press("j");
    await page.keyboard.press("y");
    expect(await call.exited).toBe(0);
    expect(call.stderr()).toContain(`asking through the approvals page at ${served.url}`);
    expect(call.stderr()).not.toContain(served.token);
    expect(existsSync(join(workerDir, "build"))).toBe(false);
    await until(() => workerCounts(worker).completed > 0 && workerCounts(worker).running === 0);
    expect(workerCounts(worker)).toEqual({ completed: 1, failed: 0, running: 0 });

    const answered = page.locator("#answered .ask").first();
    await answered.locator(".outcome").waitFor();
    expect(await answered.locator(".outcome").textContent()).toMatch(/^Approved once, by \S+ on the page, from 127\.0\.0\.1, at /);
    expect(await page.locator("#pending .ask").count()).toBe(0);
    const approval = auditLines(host).find((line) => line.event === "approval");
    expect(approval).toMatchObject({ outcome: "approved once", approved: true, answeredBy: "@toolhost/cli (approvals page)" });
    expect(approval?.via).toContain(`approvals page (${served.url}, `);
    expect(JSON.stringify(auditLines(host))).not.toContain(served.token);
    expect(served.child.stderr()).not.toContain(served.token);
    expect(errors).toEqual([]);
  });

  it("says once, without the token, where a process asks, however many asks it makes", async () => {
    const dir = project({ "one/x": "1\n", "two/x": "2\n" });
    writeConfig(dir, [["@toolhost/tool-bash", { sandbox: "off" }], policy(), APPROVALS]);
    const served = await startPage();
    const { page } = await openPage(context, served.openUrl);
    const line = (command: string) => `${JSON.stringify({ name: "bash", arguments: { command } })}\n`;
    const run = start(["run", "-"], { cwd: dir, input: line("rm -r one") + line("rm -r two") });
    for (const answered of [0, 1]) {
      await page.locator("#pending .ask.pending button.once").first().click();
      await page.locator("#answered .ask").nth(answered).waitFor();
    }
    expect(await run.exited).toBe(0);
    expect(existsSync(join(dir, "one")) || existsSync(join(dir, "two"))).toBe(false);
    expect(run.stderr().match(/asking through the approvals page/g)).toHaveLength(1);
    expect(run.stderr()).not.toContain(served.token);
  });
});

function QUEUE(): string {
  return join(import.meta.dirname, "..", "..", "queue", "dist", "index.js");
}

describe("what the page shows, and what an answer does", () => {
  let model: FakeOpenAI | undefined;
  afterEach(async () => {
    await model?.close();
    model = undefined;
  });

  it("shows a write's diff; a refusal with a reason reaches the model, and nothing is written", async () => {
    const dir = project({ "notes.txt": "the answer is 41\nkeep this line\n" });
    model = await startFakeOpenAI([toolCallsTurn([{ id: "call_w", name: "write", arguments: { path: "notes.txt", content: "the answer is 42\nkeep this line\n" } }]), textTurn("Understood.")]);
    writeConfig(dir, [["@toolhost/provider-openai", { model: "fake-model", baseURL: model.url, maxRetries: 0 }], "@toolhost/tool-fs", policy([{ tool: "write", path: "notes.txt", decision: "ask", reason: "the notes are asked about" }]), APPROVALS]);
    const served = await startPage();
    const { page, errors } = await openPage(context, served.openUrl);
    const agent = start(["agent", "fix the notes"], { cwd: dir, env: { OPENAI_API_KEY: "test" } });
    const card = page.locator("#pending .ask").first();
    await card.waitFor();
    expect(await card.locator("p.mono").first().textContent()).toBe("changes notes.txt");
    expect(await card.locator(".diff .remove").allTextContents()).toEqual(["the answer is 41"]);
    expect(await card.locator(".diff .add").allTextContents()).toEqual(["the answer is 42"]);
    expect(await card.locator(".diff .same").allTextContents()).toEqual(["keep this line"]);
    if (process.env.TOOLHOST_APPROVALS_SCREENSHOT) await page.screenshot({ path: process.env.TOOLHOST_APPROVALS_SCREENSHOT, fullPage: true });

    await page.keyboard.press("n");
    await page.keyboard.type("not now: the notes are frozen until Friday");
    await page.keyboard.press("Enter");
    expect(await agent.exited).toBe(0);
    const toolMessage = (model.requests[1]?.body.messages as Array<{ role: string; content: string }>).find((message) => message.role === "tool");
    expect(toolMessage?.content).toContain("not now: the notes are frozen until Friday");
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("the answer is 41\nkeep this line\n");
    await page.locator("#answered .ask .outcome").waitFor();
    expect(await page.locator("#answered .ask .outcome").textContent()).toMatch(/^Refused, by \S+ on the page, from 127\.0\.0\.1, at .*not now: the notes are frozen until Friday/);
    expect(errors).toEqual([]);
  });

  it('"always" shows the rule it writes, writes that rule, and the same call then runs without asking', async () => {
    const dir = project({ "dist/a.js": "1\n", "dist2/a.js": "2\n" });
    writeConfig(dir, [["@toolhost/tool-bash", { sandbox: "off" }], policy()]);
    const config = JSON.parse(readFileSync(join(dir, "toolhost.config.json"), "utf8")) as { plugins: unknown[] };
    writeConfig(dir, [...config.plugins, APPROVALS]);
    const served = await startPage();
    const { page } = await openPage(context, served.openUrl);
    const call = start(["call", "bash", JSON.stringify({ command: "rm -r dist" })], { cwd: dir });
    const always = page.locator("#pending .ask button.always").first();
    await always.waitFor();
    const shown = (await always.locator(".hint").textContent()) ?? "";
    expect(shown).toBe('writes {"tool": "bash", "command": "rm -r dist", "decision": "allow"}');
    expect(await always.locator("span").first().textContent()).toBe("Always, in this project (./toolhost.config.json) [a]");
    await always.click();
    expect(await call.exited).toBe(0);
    expect(existsSync(join(dir, "dist"))).toBe(false);
    const rules = (JSON.parse(readFileSync(join(dir, "toolhost.config.json"), "utf8")) as { plugins: unknown[] }).plugins
      .filter((entry): entry is [string, { rules: unknown[] }] => Array.isArray(entry) && entry[0] === POLICY)
      .flatMap((entry) => entry[1].rules);
    expect(rules).toEqual([JSON.parse(shown.replace(/^writes /, ""))]);
    await page.locator("#answered .ask .outcome").waitFor();
    expect(await page.locator("#answered .ask").textContent()).toContain('rule written: {"tool": "bash", "command": "rm -r dist", "decision": "allow"} in ./toolhost.config.json');

    mkdirSync(join(dir, "dist"));
    const again = await toolhost(["call", "bash", JSON.stringify({ command: "rm -r dist" })], { cwd: dir });
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain("asking through the approvals page");
    // A sibling is not covered: it is asked about.
    const sibling = start(["call", "bash", JSON.stringify({ command: "rm -r dist2" })], { cwd: dir });
    await page.locator("#pending .ask pre.command", { hasText: "rm -r dist2" }).waitFor();
    await page.locator("#pending .ask button.no").first().click();
    expect(await sibling.exited).toBe(2);
    expect(existsSync(join(dir, "dist2"))).toBe(true);
  });

  it("shows HTML and script from a file, a command, a rule's reason and a folder as text, and runs none of it", async () => {
    const hostile = `<script>window.__pwned = "script"</script><img src=x onerror="window.__pwned='img'"><b>bold</b>`;
    const dir = project({ "page.html": `${hostile}\n` });
    writeConfig(dir, [
      "@toolhost/tool-fs",
      ["@toolhost/tool-bash", { sandbox: "off" }],
      policy([
        { tool: "write", path: "page.html", decision: "ask", reason: `a reason ${hostile}` },
        { command: "echo *", decision: "ask", reason: "echo is asked" },
      ]),
      APPROVALS,
    ]);
    const served = await startPage();
    const { page, errors } = await openPage(context, served.openUrl);
    const write = start(["call", "write", JSON.stringify({ path: "page.html", content: `${hostile} <iframe src="javascript:alert(1)"></iframe>\n` })], { cwd: dir });
    const echo = start(["call", "bash", JSON.stringify({ command: `echo '${hostile}'` })], { cwd: dir });
    await page.locator("#pending .ask").nth(1).waitFor();
    const pending = page.locator("#pending");
    expect(await pending.textContent()).toContain(`a reason ${hostile}`);
    expect(await pending.locator(".diff .remove").allTextContents()).toEqual([hostile]);
    expect(await pending.locator(".diff .add").allTextContents()).toEqual([`${hostile} <iframe src="javascript:alert(1)"></iframe>`]);
    expect(await pending.locator("pre.command").allTextContents()).toEqual([`echo '${hostile}'`]);
    expect(await pending.locator("script, img, iframe, b").count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    await page.locator("#pending .ask button.no").first().click();
    await page.locator("#answered .ask").waitFor();
    await page.locator("#pending .ask button.no").first().click();
    expect(await write.exited).toBe(2);
    expect(await echo.exited).toBe(2);
    expect(errors).toEqual([]);
  });

  it("answers an ask once: a second answer, from another tab or a replay, is refused and changes nothing", async () => {
    const dir = project({ "build/x": "x\n" });
    writeConfig(dir, [["@toolhost/tool-bash", { sandbox: "off" }], policy(), APPROVALS]);
    const served = await startPage();
    const first = await openPage(context, served.openUrl);
    const second = await openPage(context, served.openUrl);
    const call = start(["call", "bash", JSON.stringify({ command: "rm -r build" })], { cwd: dir });
    await first.page.locator("#pending .ask").waitFor();
    await second.page.locator("#pending .ask").waitFor();
    const id = (await first.page.locator("#pending .ask").getAttribute("data-id")) as string;
    await first.page.locator("#pending .ask button.no").click();
    expect(await call.exited).toBe(2);
    expect(call.stderr()).toContain("it was refused on the approvals page: no reason given");
    // The other tab moved it to the answered list too; a replayed "yes" is refused.
    await second.page.locator("#answered .ask .outcome").waitFor();
    const replay = await post(served.url, `asks/${id}/answer`, served.token, { digest: `sha256:${"0".repeat(64)}`, choice: "once" });
    expect(replay.status).toBe(409);
    const records = await eventsSnapshot(served.url, served.token);
    const record = records.find((each) => each.id === id) as { ask: { digest: string }; answer: { outcome: string } };
    const again = await post(served.url, `asks/${id}/answer`, served.token, { digest: record.ask.digest, choice: "once" });
    expect(again.status).toBe(409);
    expect(again.body).toContain("answered already (denied");
    expect(record.answer.outcome).toBe("denied");
    expect(existsSync(join(dir, "build"))).toBe(true);
  });

  it("ends an ask no one answers with a refusal that says so, and lists it as timed out", async () => {
    const dir = project({ "build/x": "x\n" });
    writeConfig(dir, [["@toolhost/tool-bash", { sandbox: "off" }], policy(), [APPROVALS, { timeout: 2 }]]);
    const served = await startPage();
    const { page } = await openPage(context, served.openUrl);
    const call = await toolhost(["call", "bash", JSON.stringify({ command: "rm -r build" })], { cwd: dir });
    expect(call.code).toBe(2);
    expect(call.stderr).toContain(`no one answered on the approvals page (${served.url}) within 2 seconds, so the call is refused`);
    expect(existsSync(join(dir, "build"))).toBe(true);
    await page.locator("#answered .ask .outcome").waitFor();
    expect(await page.locator("#answered .ask .outcome").textContent()).toContain("Timed out: no one answered in time");
  });

  it("refuses at once, saying how to start the page, when none is running", async () => {
    const dir = project({ "build/x": "x\n" });
    writeConfig(dir, [["@toolhost/tool-bash", { sandbox: "off" }], policy(), APPROVALS]);
    const call = await toolhost(["call", "bash", JSON.stringify({ command: "rm -r build" })], { cwd: dir });
    expect(call.code).toBe(2);
    expect(call.stderr).toContain('no approvals page is running for this user');
    expect(call.stderr).toContain('Start one with "toolhost approvals serve"');
    const config = await toolhost(["config"], { cwd: dir });
    expect(config.stdout).toMatch(/page +none running/);
    const served = await startPage();
    const shown = await toolhost(["config"], { cwd: dir });
    expect(shown.stdout).toContain(`page     ${served.url} (pid ${served.child.process.pid})`);
    expect(shown.stdout).not.toContain(served.token);
  });
});

describe("who may reach the page", () => {
  it("gives nothing to a request without the token, with a wrong one, for another Host, or from another Origin", async () => {
    const served = await startPage();
    const port = new URL(served.url).port;
    for (const path of ["", "app.js", "events", "health", "asks"]) {
      const bare = await get(served.url, path, {});
      expect([path, bare.status, bare.body]).toEqual([path, 403, "forbidden\n"]);
      const wrong = await get(served.url, `${path}?token=${served.token.slice(1)}`, {});
      expect(wrong.status).toBe(403);
    }
    const rebound = await get(served.url, `?token=${served.token}`, { host: `attacker.example:${port}` });
    expect(rebound.status).toBe(403);
    const foreign = await get(served.url, `?token=${served.token}`, { origin: "http://attacker.example" });
    expect([foreign.status, foreign.body]).toEqual([403, "forbidden\n"]);
    const ok = await get(served.url, `?token=${served.token}`, {});
    expect(ok.status).toBe(200);
    expect(ok.headers["content-security-policy"]).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(ok.body).not.toMatch(/<script>|<script [^>]*>[^<]/);
    expect(ok.body).not.toMatch(/ on\w+=/);
  });

  it("lets a process that reads the page file put asks on the page, never read or answer one", async () => {
    const dir = project({ "build/x": "x\n" });
    writeConfig(dir, [["@toolhost/tool-bash", { sandbox: "off" }], policy(), APPROVALS]);
    const served = await startPage();
    const file = JSON.parse(readFileSync(join(USER_CONFIG_DIR, "approvals-page.json"), "utf8")) as { url: string; token: string; pid: number };
    expect(file).toMatchObject({ url: served.url, pid: served.child.process.pid });
    expect(file.token).not.toBe(served.token);
    expect(JSON.stringify(file)).not.toContain(served.token);
    const call = start(["call", "bash", JSON.stringify({ command: "rm -r build" })], { cwd: dir });
    const [record] = await waitForRecords(served.url, served.token, 1);
    const { id, ask } = record as { id: string; ask: { digest: string } };
    // What a model's unconfined command could do with the file: none of it reads or answers.
    for (const path of ["", "app.js", "events", "health"]) expect((await get(served.url, `${path}?token=${file.token}`, {})).status).toBe(403);
    const own = await post(served.url, `asks/${id}/answer`, file.token, { digest: ask.digest, choice: "once" });
    expect([own.status, own.body]).toEqual([403, "forbidden\n"]);
    // The page's token does not ask; an ask whose digest is not its content's is refused.
    expect((await post(served.url, "asks", served.token, {})).status).toBe(403);
    const forged = await post(served.url, "asks", file.token, { ...(record as { ask: object }).ask, call: { args: { command: "rm -rf /" } }, parts: [] });
    expect([forged.status, forged.body]).toEqual([400, `${JSON.stringify({ error: "digest is not the digest of the call's tool, arguments and access" })}\n`]);
    expect((await eventsSnapshot(served.url, served.token)).find((each) => each.id === id)?.state).toBe("pending");
    // A well-formed ask naming a JS file of its choosing as its config: the page never loads it.
    writeFileSync(join(dir, "evil.config.mjs"), `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(join(dir, "ran"))}, "ran");\nexport default { plugins: [] };\n`);
    const args = { command: "echo hi" };
    const asks = [{ kind: "command", subject: "echo hi", locked: false, rules: [{ id: "r", layer: "config", locked: false, decision: "ask", matcher: "echo *", tool: "*" }] }];
    const fake = {
      ...(record as { ask: object }).ask,
      digest: callDigest({ name: "bash", args }),
      asker: { pid: 1, command: "toolhost call bash", cwd: dir, config: join(dir, "evil.config.mjs"), session: "s" },
      call: { args, details: { policy: { decision: "ask", rules: [], parts: [], asks } } },
      timeoutMs: 60_000,
    };
    const faking = post(served.url, "asks", file.token, fake);
    const listed = (await waitForRecords(served.url, served.token, 2))[1] as unknown as { id: string; always: unknown[]; ask: { digest: string } };
    // Its "always" was worked out (a host was made for its folder), from the folder's own config.
    expect(listed.always.length).toBeGreaterThan(0);
    expect(existsSync(join(dir, "ran"))).toBe(false);
    await post(served.url, `asks/${listed.id}/answer`, served.token, { digest: listed.ask.digest, choice: "deny" });
    expect((await faking).status).toBe(200);
    await post(served.url, `asks/${id}/answer`, served.token, { digest: ask.digest, choice: "deny", reason: "test over" });
    expect(await call.exited).toBe(2);
    expect(existsSync(join(dir, "build"))).toBe(true);
  });

  it("lets no page of another origin read the asks or answer one, even one that knows the token", async () => {
    const dir = project({ "build/x": "x\n" });
    writeConfig(dir, [["@toolhost/tool-bash", { sandbox: "off" }], policy(), APPROVALS]);
    const served = await startPage();
    const call = start(["call", "bash", JSON.stringify({ command: "rm -r build" })], { cwd: dir });
    await until(() => call.stderr().includes("asking through the approvals page"));
    const records = await waitForRecords(served.url, served.token, 1);
    const { id, ask } = records[0] as { id: string; ask: { digest: string } };
    const attacker = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><title>start</title><script>
        const page = ${JSON.stringify(served.url)}, token = ${JSON.stringify(served.token)};
        (async () => {
          const seen = [];
          try { const r = await fetch(page + "events?token=" + token); seen.push("read " + (await r.text()).slice(0, 40)); } catch (e) { seen.push("fetch blocked"); }
          try { await fetch(page + "asks/${id}/answer", { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body: JSON.stringify({ digest: ${JSON.stringify(ask.digest)}, choice: "once" }) }); seen.push("posted"); } catch (e) { seen.push("post blocked"); }
          document.title = seen.join(" | ");
        })();
      </script>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
    onCleanup(() => {
      attacker.closeAllConnections();
      return new Promise<void>((resolve) => attacker.close(() => resolve()));
    });
    const page = await context.newPage();
    onCleanup(() => page.close());
    await page.goto(`http://localhost:${(attacker.address() as { port: number }).port}/`);
    await page.waitForFunction(() => document.title !== "start");
    expect(await page.title()).toMatch(/^fetch blocked \| (posted|post blocked)$/);
    const after = await eventsSnapshot(served.url, served.token);
    expect(after.find((each) => each.id === id)?.state).toBe("pending");
    expect(existsSync(join(dir, "build"))).toBe(true);
    await post(served.url, `asks/${id}/answer`, served.token, { digest: ask.digest, choice: "deny", reason: "test over" });
    expect(await call.exited).toBe(2);
  });
});

describe("what an asking process sends its asks to", () => {
  it("sends nothing to a port another user listens on, nor through a page file others can read", async () => {
    const dir = project({ "build/x": "x\n" });
    writeConfig(dir, [["@toolhost/tool-bash", { sandbox: "off" }], policy(), APPROVALS]);
    // Another user (uid 65534) listens where a crashed page's file still points; the file names a live pid.
    const foreign = spawnForeignListener();
    onCleanup(() => foreign.stop());
    const port = await foreign.port;
    mkdirSync(USER_CONFIG_DIR, { recursive: true });
    const file = join(USER_CONFIG_DIR, "approvals-page.json");
    writeFileSync(file, JSON.stringify({ url: `http://127.0.0.1:${port}/`, token: "the-token", pid: process.pid, started: "" }), { mode: 0o600 });
    onCleanup(() => rmSync(file, { force: true }));
    const call = await toolhost(["call", "bash", JSON.stringify({ command: "rm -r build" })], { cwd: dir });
    expect(call.code).toBe(2);
    expect(call.stderr).toContain(`the approvals page's port (http://127.0.0.1:${port}/) is held by another user's process`);
    expect(foreign.received()).toBe("");
    chmodSync(file, 0o644);
    const readable = await toolhost(["call", "bash", JSON.stringify({ command: "rm -r build" })], { cwd: dir });
    expect(readable.stderr).toContain("names the approvals page, but it is not a file only you can read and write, so it is not used");
    expect(foreign.received()).toBe("");
    expect(existsSync(join(dir, "build"))).toBe(true);
  });
});

/** A loopback HTTP server run as uid 65534 (setpriv), printing what it receives. */
function spawnForeignListener(): { port: Promise<number>; received(): string; stop(): Promise<void> } {
  const script = `const s = require("node:http").createServer((q, r) => { process.stdout.write("got " + q.url + "\\n"); r.end("{}"); }); s.listen(0, "127.0.0.1", () => process.stderr.write(s.address().port + "\\n"));`;
  const child = spawn("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  const port = new Promise<number>((resolve, reject) => {
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      err += chunk;
      if (/^\d+\n/.test(err)) resolve(Number(err.trim()));
    });
    child.on("exit", (code) => reject(new Error(`the foreign listener exited (${code}): ${err}`)));
  });
  port.catch(() => undefined);
  return { port, received: () => out, stop: () => stopChild(child) };
}

async function stopChild(child: ReturnType<typeof spawn>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  await exited;
}

type Reply = { status: number; body: string; headers: Record<string, string | string[] | undefined> };

function get(base: string, path: string, headers: Record<string, string>): Promise<Reply> {
  return send("GET", base, path, headers, undefined);
}

function post(base: string, path: string, token: string, body: unknown): Promise<Reply> {
  return send("POST", base, path, { authorization: `Bearer ${token}`, "content-type": "application/json" }, JSON.stringify(body));
}

function send(method: string, base: string, path: string, headers: Record<string, string>, body: string | undefined): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, headers }, (response) => {
      let text = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text, headers: response.headers }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** The page's list as its event stream's first event gives it. */
function eventsSnapshot(base: string, token: string): Promise<Array<{ id: string; state: string; ask: unknown; answer?: unknown }>> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(`events?token=${token}`, base), (response) => {
      let text = "";
      response.setEncoding("utf8").on("data", (chunk: string) => {
        text += chunk;
        const match = /^event: snapshot\ndata: (.*)\n\n/.exec(text);
        if (match) {
          req.destroy();
          resolve(JSON.parse(match[1] as string));
        }
      });
    });
    req.on("error", reject);
    req.end();
  });
}

async function waitForRecords(base: string, token: string, count: number): Promise<Array<{ id: string; state: string; ask: unknown }>> {
  for (;;) {
    const records = await eventsSnapshot(base, token);
    if (records.length >= count) return records;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
