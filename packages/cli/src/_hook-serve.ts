import { stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { timingSafeEqual } from "node:crypto";
import { createHost, type Host } from "@toolhost/core/config";
import { UsageError } from "./_cli.js";
import { cliHostOptions } from "./_defaults.js";
import { HookJudge, parsePayload } from "./_hook-decide.js";
import { HOOK_HOSTS, type HookDecision } from "./_hook-hosts.js";

/** `toolhost hook serve`'s settings. */
export interface HookServeOptions {
  host: string;
  port: number;
  /** Required unless the server listens on loopback only: callers send `Authorization: Bearer <token>`. */
  token?: string | undefined;
  config?: string | undefined;
  onAllow: HookDecision["onAllow"];
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
const MAX_BODY = 8 * 1024 * 1024;
const MAX_HOSTS = 32;

/** Parses `[host:]port` (`8787`, `127.0.0.1:8787`, `[::1]:8787`). */
export function parseListen(text: string): { host: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (!match || !(port >= 0 && port <= 65535)) {
    throw new UsageError(`--http takes [host:]port, e.g. 8787 or 127.0.0.1:8787, not "${text}".`);
  }
  return { host: (match[1] ?? "127.0.0.1").replace(/^\[|\]$/g, ""), port };
}

/**
 * Claude Code's HTTP hook form: one process answers every call, so no start-up per call. Each POST
 * to /claude-code (or /gemini) carries one payload; the answer is always 200 with the host's JSON,
 * a deny when anything fails, because the hosts treat other statuses as "go ahead".
 */
export async function serveHooks(options: HookServeOptions): Promise<Server> {
  if (!LOOPBACK.has(options.host) && !options.token) {
    throw new UsageError(
      `toolhost hook serve listens on ${options.host}, beyond this machine, without a token. Give --token (or TOOLHOST_HOOK_TOKEN), or listen on 127.0.0.1.`,
    );
  }
  const hosts = new HostCache(options.config);
  const server = createServer((request, response) => {
    handle(request, response, options, hosts).catch((error: unknown) => {
      answer(response, 200, HOOK_HOSTS["claude-code"].answer({ decision: "deny", reason: `toolhost failed: ${(error as Error).message}`, onAllow: "defer" }));
    });
  });
  server.on("close", () => void hosts.close());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return server;
}

async function handle(request: IncomingMessage, response: ServerResponse, options: HookServeOptions, hosts: HostCache): Promise<void> {
  const port = (request.socket.localPort ?? options.port).toString();
  // DNS rebinding: a page in a browser may reach loopback under another name; only our names pass.
  const hostHeader = (request.headers.host ?? "").toLowerCase();
  const allowedHosts = [options.host, "127.0.0.1", "localhost", "[::1]"].map((name) => `${name.includes(":") && !name.startsWith("[") ? `[${name}]` : name}:${port}`);
  if (!allowedHosts.includes(hostHeader) || request.headers.origin !== undefined) {
    answer(response, 403, { error: "forbidden: unexpected Host or Origin header" });
    return;
  }
  const id = (request.url ?? "").replace(/\?.*$/, "").replace(/^\//, "");
  const hookHost = id === "claude-code" || id === "gemini" ? HOOK_HOSTS[id] : undefined;
  if (request.method === "GET" && id === "health") {
    answer(response, 200, { ok: true });
    return;
  }
  if (!hookHost || request.method !== "POST") {
    answer(response, 404, { error: "POST a hook payload to /claude-code or /gemini" });
    return;
  }
  const deny = (reason: string): void => answer(response, 200, hookHost.answer({ decision: "deny", reason, onAllow: options.onAllow }));
  if (options.token && !sameToken(request.headers.authorization, options.token)) {
    deny("toolhost hook serve: missing or wrong bearer token, so the call is refused. Send Authorization: Bearer <token>.");
    return;
  }
  let body: string;
  try {
    body = await readBody(request);
  } catch (error) {
    deny(`toolhost could not read the payload: ${(error as Error).message}`);
    return;
  }
  try {
    const call = await parsePayload(hookHost, body);
    const judge = await hosts.judgeFor(call.cwd);
    const verdict = await judge.decide(hookHost, call);
    answer(response, 200, hookHost.answer({ ...verdict, onAllow: options.onAllow }));
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    deny(`toolhost refused this call: ${(error as Error).message}${typeof code === "string" ? ` (${code})` : ""}`);
  }
}

function sameToken(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer (.+)$/i.exec(header ?? "")?.[1] ?? "");
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new Error("the payload is over 8 MiB"));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent) return;
  response.writeHead(status, { "content-type": "application/json" }).end(`${JSON.stringify(body)}\n`);
}

/** One loaded config per working directory, reloaded when its file changes. */
class HostCache {
  readonly #entries = new Map<string, Promise<{ host: Host; judge: HookJudge; mtimeMs: number | undefined }>>();

  constructor(readonly configPath: string | undefined) {}

  async judgeFor(cwd: string): Promise<HookJudge> {
    const cached = this.#entries.get(cwd);
    if (cached) {
      const entry = await cached.catch(() => undefined);
      if (entry && (await mtimeOf(entry.host.configPath)) === entry.mtimeMs) return entry.judge;
      this.#entries.delete(cwd);
      void entry?.host.harness.dispose().catch(() => undefined);
    }
    if (this.#entries.size >= MAX_HOSTS) await this.#evictOldest();
    const loading = createHost({ ...cliHostOptions(cwd, this.configPath), onlyProviding: "policy" }).then(async (host) => ({ host, judge: new HookJudge(host), mtimeMs: await mtimeOf(host.configPath) }));
    this.#entries.set(cwd, loading);
    // A config error is not cached: the next call tries again, after the user fixed the file.
    loading.catch(() => this.#entries.delete(cwd));
    return (await loading).judge;
  }

  async #evictOldest(): Promise<void> {
    const [oldest] = this.#entries.keys();
    if (oldest === undefined) return;
    const entry = this.#entries.get(oldest);
    this.#entries.delete(oldest);
    (await entry?.catch(() => undefined))?.host.harness.dispose().catch(() => undefined);
  }

  async close(): Promise<void> {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    for (const entry of entries) await (await entry.catch(() => undefined))?.host.harness.dispose().catch(() => undefined);
  }
}

async function mtimeOf(file: string | undefined): Promise<number | undefined> {
  if (file === undefined) return undefined;
  return stat(file).then((info) => info.mtimeMs, () => -1);
}
