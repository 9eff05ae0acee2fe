// network "proxy": the sandbox has no route out, and every connection through the tool's proxy is
// judged by the harness's policy (the real hooks-policy, with its audit log) and its approver.
// Real bubblewrap, real curl, real servers on this machine's loopback.
import { readFileSync } from "node:fs";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { AgentHarness } from "@toolhost/core";
import policyPlugin from "@toolhost/hooks-policy";
import { beforeEach, describe, expect, it } from "vitest";
import bashPlugin, { BashErrorCode, createBashTool } from "../src/index.js";
import { cleanupsAfterEach, runBash as bash, tempFolder } from "./_helpers.js";

let ws: string;
const cleanups = cleanupsAfterEach();
beforeEach(() => {
  const folder = tempFolder();
  ws = folder.dir;
  cleanups.push(folder.remove);
});

const MB = 1024 * 1024;

/** A loopback HTTP server: `/big` streams 100 MB, anything else says hello; it counts its requests. */
async function serve(): Promise<{ port: number; requests: () => number }> {
  let requests = 0;
  const server: Server = createServer((request, response) => {
    requests += 1;
    if (request.url !== "/big") return void response.end(`hello ${request.url}\n`);
    response.writeHead(200, { "content-length": String(100 * MB) });
    const chunk = Buffer.alloc(MB, "x");
    let sent = 0;
    const more = (): void => {
      while (sent < 100 && response.write(chunk)) sent += 1;
      if (sent < 100) response.once("drain", () => ((sent += 1), more()));
      else response.end();
    };
    more();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, requests: () => requests };
}

/** A harness with the proxied sandbox and hooks-policy: commands allowed, the `allowed` server allowed, the `denied` one denied, the rest asked. */
async function harnessWith(allowed: number, denied: number, options: Record<string, unknown> = {}): Promise<{ harness: AgentHarness; audit: string }> {
  const audit = join(ws, "audit.jsonl");
  const harness = new AgentHarness({ cwd: ws, workspace: ws });
  await harness.use(bashPlugin, { sandbox: "required", network: "proxy", ...options });
  await harness.use(policyPlugin, {
    default: "ask",
    audit,
    rules: [
      { tool: "*", command: "*", decision: "allow" },
      { tool: "*", path: "/dev/null", decision: "allow" },
      { tool: "*", url: `http://127.0.0.1:${allowed}/**`, decision: "allow" },
      { tool: "*", url: `https://127.0.0.1:${allowed}/**`, decision: "allow" },
      { tool: "*", url: `http://127.0.0.1:${denied}/**`, decision: "deny", reason: "that server is not for commands" },
    ],
  });
  cleanups.push(() => harness.dispose());
  return { harness, audit };
}

const curl = (url: string, extra = ""): string => `curl -sS --noproxy '' ${extra} ${url}`;

describe("network proxy", { timeout: 120_000 }, () => {
  it("lets through what the policy allows (HTTP, CONNECT, SOCKS5), refuses what it denies with the reason, and the audit log says so", async () => {
    const [allowed, denied] = [await serve(), await serve()];
    const { harness, audit } = await harnessWith(allowed.port, denied.port);
    const plain = await bash(harness, curl(`http://127.0.0.1:${allowed.port}/plain`));
    expect(plain.text).toBe("hello /plain");
    const tunnel = await bash(harness, curl(`http://127.0.0.1:${allowed.port}/tunnel`, '-p -x "$HTTPS_PROXY"'));
    expect(tunnel.text).toBe("hello /tunnel");
    const socks = await bash(harness, curl(`http://127.0.0.1:${allowed.port}/socks`, '-x "$ALL_PROXY"'));
    expect(socks.text).toBe("hello /socks");
    const refused = await bash(harness, curl(`http://127.0.0.1:${denied.port}/secret`));
    expect(refused.text).toContain(`toolhost's proxy refused the connection to 127.0.0.1:${denied.port}: Blocked by @toolhost/hooks-policy`);
    expect(refused.text).toContain("that server is not for commands");
    expect(refused.text).toContain(`[sandbox: the proxy refused 127.0.0.1:${denied.port} (http://127.0.0.1:${denied.port}/secret)`);
    expect(refused.details.sandbox.connections).toMatchObject([{ destination: `127.0.0.1:${denied.port}`, method: "GET", allowed: false }]);
    expect(denied.requests()).toBe(0);
    expect(allowed.requests()).toBe(3);
    const lines = readFileSync(audit, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { decision: string; reason: string });
    expect(lines.some((line) => line.decision === "deny" && line.reason.includes(`http://127.0.0.1:${denied.port}/secret`))).toBe(true);
    expect(lines.some((line) => line.decision === "allow" && line.reason.includes(`CONNECT https://127.0.0.1:${allowed.port}/`))).toBe(true);
  });

  it("has no route out: a direct connection fails, even to this machine's loopback, and the result says how to connect", async () => {
    const server = await serve();
    const { harness } = await harnessWith(server.port, 1);
    const result = await bash(harness, `curl -sS -m 5 http://127.0.0.1:${server.port}/direct`);
    expect(result.isError).toBe(true);
    expect(result.text).toContain("Failed to connect");
    expect(result.text).toContain("[sandbox: the network is reachable only through the proxy in HTTP_PROXY, HTTPS_PROXY and ALL_PROXY");
    expect(server.requests()).toBe(0);
    // Without the call's credentials the proxy serves no one.
    const anonymous = await bash(harness, `curl -sS -o /dev/null -w '%{http_code}' --noproxy '' -x "http://127.0.0.1:\${HTTP_PROXY##*:}" http://127.0.0.1:${server.port}/`);
    expect(anonymous.text).toBe("407");
    expect(server.requests()).toBe(0);
  });

  it("asks the approver about a destination no rule names, and honours its no", async () => {
    const [allowed, asked] = [await serve(), await serve()];
    const { harness } = await harnessWith(allowed.port, 1);
    const questions: string[] = [];
    harness.hooks.approve.tapPromise("test-approver", async (ctx) => {
      questions.push(JSON.stringify(ctx.access?.network));
      return { approved: false, reason: "the user said no" };
    });
    const result = await bash(harness, `${curl(`http://127.0.0.1:${asked.port}/one`)}; ${curl(`http://127.0.0.1:${asked.port}/one`)}`);
    expect(result.text).toContain("the user said no");
    expect(asked.requests()).toBe(0);
    // Asked once for the call: the answer stands for the same URL.
    expect(questions).toEqual([JSON.stringify([{ url: `http://127.0.0.1:${asked.port}/one`, method: "GET" }])]);
  });

  it("refuses what would be asked when no one can approve", async () => {
    const asked = await serve();
    const { harness } = await harnessWith(1, 2);
    const result = await bash(harness, curl(`http://127.0.0.1:${asked.port}/`));
    expect(result.text).toContain("no one could approve it");
    expect(asked.requests()).toBe(0);
  });

  it("lets through the tool's own destinations without asking about the name; the address is still the policy's", async () => {
    const server = await serve();
    const { harness, audit } = await harnessWith(1, 2, { destinations: [`127.0.0.1:${server.port}`, `localhost:${server.port}`] });
    const result = await bash(harness, curl(`http://127.0.0.1:${server.port}/named`));
    expect(result.text).toBe("hello /named");
    expect(result.details.sandbox.connections).toMatchObject([{ allowed: true, reason: "named in the bash tool's destinations" }]);
    // The policy was not asked about the destination, only about the address it goes to (which no rule names).
    const text = readFileSync(audit, "utf8");
    expect(text).not.toContain(`network GET http://127.0.0.1:${server.port}/named:`);
    expect(text).toContain(`network GET http://127.0.0.1:${server.port}/named at 127.0.0.1: no rule names the address`);
    // An address the policy denies holds for a destination the tool names.
    const { harness: denying } = await harnessWith(1, server.port, { destinations: [`localhost:${server.port}`] });
    const refused = await bash(denying, curl(`http://localhost:${server.port}/denied`));
    expect(refused.text).toContain(`toolhost's proxy refused the connection to localhost:${server.port}`);
    expect(refused.text).toContain("that server is not for commands");
    expect(server.requests()).toBe(1);
    const access = await harness.getTool("bash")?.access?.({ command: "curl" }, { cwd: ws, workspace: ws });
    expect(access?.confinement).toMatchObject({ root: "minimal", network: "proxy", destinations: [`127.0.0.1:${server.port}`, `localhost:${server.port}`] });
  });

  it("carries 100 MB whole, in bounded memory", async () => {
    const server = await serve();
    const { harness } = await harnessWith(server.port, 1);
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 10);
    try {
      const plain = await bash(harness, curl(`http://127.0.0.1:${server.port}/big`, "-o /dev/null -w '%{size_download}'"));
      expect(plain.text).toBe(String(100 * MB));
      const tunnel = await bash(harness, `${curl(`http://127.0.0.1:${server.port}/big`, `-p -x "$HTTPS_PROXY" -o /dev/null -w '%{size_download}'`)} && head -c 0 /dev/null`);
      expect(tunnel.text).toBe(String(100 * MB));
    } finally {
      clearInterval(sampler);
    }
    // Streamed with backpressure: nowhere near the 100 MB that went through.
    expect(peak - before).toBeLessThan(48 * MB);
  });

  it("is refused, saying why, for a call made without a harness (no one to ask)", async () => {
    const tool = createBashTool({ cwd: ws, sandbox: "required", network: "proxy" });
    const result = await tool.execute("1", { command: "echo never" }, new AbortController().signal, () => {}, undefined);
    expect(result.isError).toBe(true);
    expect(result.details.code).toBe(BashErrorCode.PROXY_UNAVAILABLE);
    expect(result.content[0]?.type === "text" && result.content[0].text).toContain('the bash tool\'s network is "proxy", which asks the harness\'s policy about each destination, and this call came without a harness');
  });
});
