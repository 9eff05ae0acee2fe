import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { userInfo } from "node:os";
import { partsOf } from "../_parts.js";
import { removePageFile, writePageFile } from "../page-file.js";
import type { AlwaysChoice, PageAnswer, PageAsk, PageChoice } from "../wire.js";
import { AskStore, type HeldAsk, MAX_PENDING } from "./_asks.js";
import { readJson } from "./_body.js";
import { checkAsk, checkChoice } from "./_checks.js";
import { allowedHosts, forbid, refusedBecause, SECURITY_HEADERS, sendJson } from "./_guard.js";
import { streamEvents } from "./_events.js";

/** What "always" and "for this session" mean for an ask: given by the host that serves the page (the CLI writes the same rules its terminal prompt writes). */
export interface PageRules {
  /** The rules "always" would write for the ask, and where: shown before anything is written. Empty when "always" is not offered. */
  offer(ask: PageAsk): Promise<AlwaysChoice[]>;
  /** Writes the rules of `choice` (`always:project`, `always:user`): the rule written, or why not and what to add by hand. */
  write(ask: PageAsk, choice: string): Promise<{ written: true; rule: string } | { written: false; why: string; byHand: string }>;
  /** What "for this session" covers: a key (asks of the same session with the same key are approved with it) and the words for it. */
  sessionScope(ask: PageAsk): { key: string; text: string };
}

/** `serveApprovals`' settings. */
export interface ApprovalsServeOptions {
  host: string;
  port: number;
  /** The page's token: the browser's (in the printed address, or `Authorization: Bearer`), for the page, its events and its answers. Never written to a file. */
  token: string;
  /** The askers' token, written to the page file: it lets a process put an ask on the page (`POST /asks`), and nothing else. */
  askerToken: string;
  /** The page file to write (the address, the askers' token and the pid), removed when the page closes. */
  file: string;
  /** More names to accept in the `Host` and `Origin` headers (a page on another address). */
  allowedHosts?: readonly string[];
  /** What "always" and "for this session" mean; without it, "always" is not offered and a session approval covers the same call only. */
  rules?: PageRules;
  /** The longest an ask may wait, in ms, whatever its asker says (default a day). */
  maxWaitMs?: number;
}

/** A running page. */
export interface ApprovalsPageServer {
  /** The page's address, without the token. */
  url: string;
  /** The address with its token, to open. */
  openUrl: string;
  server: Server;
  close(): Promise<void>;
}

const MAX_ASK_BYTES = 8 * 1024 * 1024;
const MAX_CHOICE_BYTES = 64 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;
const ASSETS = new URL("./assets/", import.meta.url);
const FILES: Record<string, string> = { "/": "index.html", "/app.js": "app.js", "/app.css": "app.css" };
const TYPES: Record<string, string> = { "index.html": "text/html; charset=utf-8", "app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8" };

/**
 * Serves the approvals page: the asks of every process set to ask through it, live, to answer in a
 * browser. Writes the page file asking processes read (mode 600), and removes it on close.
 */
export async function serveApprovals(options: ApprovalsServeOptions): Promise<ApprovalsPageServer> {
  const store = new AskStore();
  const page = { options, store, hosts: new Set<string>(), who: userInfo().username };
  const server = createServer((request, response) => {
    route(request, response, page).catch(() => sendJson(response, 500, { error: "the page failed to answer" }));
  });
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  page.hosts = allowedHosts(options.host, port);
  for (const name of options.allowedHosts ?? []) page.hosts.add(`${name}:${port}`.toLowerCase());
  const url = `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}/`;
  writePageFile(options.file, { url, token: options.askerToken, pid: process.pid, started: new Date().toISOString() });
  const close = async (): Promise<void> => {
    removePageFile(options.file);
    store.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { url, openUrl: `${url}?token=${encodeURIComponent(options.token)}`, server, close };
}

type Page = { options: ApprovalsServeOptions; store: AskStore; hosts: Set<string>; who: string };

async function route(request: IncomingMessage, response: ServerResponse, page: Page): Promise<void> {
  const path = (request.url ?? "/").split("?")[0] ?? "/";
  const asking = request.method === "POST" && path === "/asks";
  if (refusedBecause(request, page.hosts, asking ? page.options.askerToken : page.options.token) !== undefined) return forbid(response);
  if (request.method === "GET" && FILES[path] !== undefined) return sendAsset(response, FILES[path] as string, page.options.token);
  if (request.method === "GET" && path === "/favicon.ico") return void response.writeHead(204, SECURITY_HEADERS).end();
  if (request.method === "GET" && path === "/events") return streamEvents(request, response, page.store);
  if (request.method === "GET" && path === "/health") return sendJson(response, 200, { ok: true, pid: process.pid, pending: page.store.list().filter((each) => each.state === "pending").length });
  if (asking) return receiveAsk(request, response, page);
  const answering = /^\/asks\/([\w-]{1,64})\/answer$/.exec(path);
  if (request.method === "POST" && answering) return receiveChoice(request, response, page, answering[1] as string);
  sendJson(response, 404, { error: "no such page" });
}

function sendAsset(response: ServerResponse, name: string, token: string): void {
  let body = readFileSync(new URL(name, ASSETS), "utf8");
  // The page's own links carry the token, as the address did: the token is ours (base64url), and escaped all the same.
  if (name === "index.html") body = body.replaceAll("{{TOKEN}}", encodeURIComponent(token).replace(/[&<>"']/g, ""));
  response.writeHead(200, { ...SECURITY_HEADERS, "content-type": TYPES[name] ?? "text/plain" }).end(body);
}

/** An asking process's ask: held open until it is answered, times out, or the asker goes. */
async function receiveAsk(request: IncomingMessage, response: ServerResponse, page: Page): Promise<void> {
  const body = await readJson(request, MAX_ASK_BYTES);
  if ("error" in body) return sendJson(response, 400, { error: body.error });
  const checked = checkAsk(body.value);
  if (typeof checked === "string") return sendJson(response, 400, { error: checked });
  // What the page lists as asking is read from the details "always" writes from, not taken as sent.
  const { parts, omitted } = partsOf(checked.call.details);
  const ask: PageAsk = { ...checked, parts, partsOmitted: omitted };
  if (!page.store.hasRoom(body.bytes)) return sendJson(response, 503, { error: `the page holds as many asks as it keeps (${MAX_PENDING} waiting at most, 256 MiB in all): answer some first` });
  const rules = page.options.rules;
  const scope = rules ? rules.sessionScope(ask) : { key: ask.digest, text: "this same call again" };
  const always = rules ? await rules.offer(ask).catch(() => []) : [];
  let delivered = false;
  const held = page.store.add({
    ask,
    sessionKey: `${ask.asker.session}\u0000${scope.key}`,
    sessionText: scope.text,
    always,
    deadlineMs: Math.min(ask.timeoutMs, page.options.maxWaitMs ?? DAY_MS),
    bytes: body.bytes,
    deliver: (answer) => {
      if (response.destroyed || response.writableEnded) return false;
      delivered = true;
      sendJson(response, 200, answer);
      return true;
    },
  });
  // The asker stopped the call, or went away: the ask is withdrawn from the page.
  response.on("close", () => {
    if (!delivered && held.record.state === "pending") page.store.settle(held, { outcome: "withdrawn", approved: false, reason: "the asking process stopped waiting (the call was stopped, or the process ended)" });
  });
}

/** A person's answer from the page. */
async function receiveChoice(request: IncomingMessage, response: ServerResponse, page: Page, id: string): Promise<void> {
  const body = await readJson(request, MAX_CHOICE_BYTES);
  if ("error" in body) return sendJson(response, 400, { error: body.error });
  const choice = checkChoice(body.value);
  if (typeof choice === "string") return sendJson(response, 400, { error: choice });
  const found = page.store.get(id);
  if (found !== undefined && found.ask.digest !== choice.digest) return sendJson(response, 409, { error: "the answer is for other content than this ask's: reload the page" });
  if (found !== undefined && choice.choice.startsWith("always:") && !found.record.always.some((each) => each.choice === choice.choice)) {
    return sendJson(response, 400, { error: `"${choice.choice}" is not offered for this ask` });
  }
  const held = page.store.take(id);
  if (typeof held === "string") return sendJson(response, 409, { error: `not answered: ${held}` });
  const by = `${page.who} on the page, from ${request.socket.remoteAddress ?? "an unknown address"}`;
  page.store.settle(held, await answerOf(held, choice, by, page.options.rules));
  sendJson(response, 200, { ok: true, record: held.record });
}

async function answerOf(held: HeldAsk, choice: PageChoice, by: string, rules: PageRules | undefined): Promise<Omit<PageAnswer, "id" | "digest" | "at">> {
  if (choice.choice === "deny") return { outcome: "denied", approved: false, by, reason: choice.reason?.trim() || "no reason given" };
  if (choice.choice === "once" || choice.choice === "session") return { outcome: "approved", approved: true, scope: choice.choice, by };
  const outcome = rules ? await rules.write(held.ask, choice.choice).catch((error: Error) => ({ written: false as const, why: error.message, byHand: "the rule by hand" })) : undefined;
  if (outcome?.written) return { outcome: "approved", approved: true, scope: "always", by, rule: outcome.rule };
  const why = outcome ? `no rule was written: ${outcome.why}; to stop being asked, add ${outcome.byHand}` : "no rule was written";
  return { outcome: "approved", approved: true, scope: "once", by, reason: why };
}
