import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CLI_DIR, shellWord } from "../_defaults.js";
import { UsageError } from "../usage-error.js";
import { serverUrl } from "./args.js";
import type { HookHost } from "./hosts.js";

export type HookScope = "project" | "user";

/** Where each host keeps its settings, per scope. */
export function settingsPath(host: HookHost["id"], scope: HookScope, cwd: string): string {
  const folder = host === "claude-code" ? ".claude" : ".gemini";
  return join(scope === "user" ? homedir() : cwd, folder, "settings.json");
}

/** What the host's settings run per call: toolhost's command, or (Claude Code) its http hook posting to a `toolhost hook serve`. */
export type HookHandler = ({ type: "command"; command: string } | { type: "http"; url: string }) & { timeoutSeconds: number };

/**
 * The command the host runs per call. A project's settings are shared, so they name the project's
 * own install (through the host's project-folder variable); a user's name this very CLI. With a
 * server, the command forwards each call to it (deciding in-process when it cannot be used).
 */
function hookCommand(host: HookHost["id"], scope: HookScope, server: URL | undefined, asking: HookAsking): string {
  const forward = server === undefined ? "" : ` --server ${shellWord(server.href)}`;
  const page = asking.onAsk === "page" ? ` --on-ask page --timeout ${asking.timeoutSeconds}` : "";
  if (scope === "project") {
    const variable = host === "claude-code" ? "CLAUDE_PROJECT_DIR" : "GEMINI_PROJECT_DIR";
    return `"$${variable}"/node_modules/.bin/toolhost hook ${host}${forward}${page}`;
  }
  return `"${process.execPath}" "${join(CLI_DIR, "dist", "bin.js")}" hook ${host}${forward}${page}`;
}

/** Where the installed hook's asks go (`--on-ask`), and the host's timeout for it (`--timeout`, seconds). */
export interface HookAsking {
  onAsk: "host" | "page";
  timeoutSeconds: number;
}

/**
 * What `hook install` writes: the command (forwarding to `server` when given one), or with
 * `httpHook` Claude Code's own http hook posting to the server's `/claude-code`.
 */
export function hookHandler(host: HookHost["id"], scope: HookScope, serverText: string | undefined, httpHook: boolean, asking: HookAsking = { onAsk: "host", timeoutSeconds: 30 }): HookHandler {
  let server: URL | undefined;
  try {
    server = serverText === undefined ? undefined : serverUrl(serverText, "--server");
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { timeoutSeconds } = asking;
  if (!httpHook) return { type: "command", command: hookCommand(host, scope, server, asking), timeoutSeconds };
  if (host !== "claude-code" || server === undefined) {
    throw new UsageError("--http-hook is Claude Code's http hook: give it with `hook install claude-code --server <url>` (Gemini CLI's hooks are commands: use --server alone).");
  }
  // The server asks on the page for this hook, counting the host's timeout from each request's arrival.
  const page = asking.onAsk === "page" ? `?on-ask=page&timeout-ms=${timeoutSeconds * 1000}` : "";
  return { type: "http", url: `${server.href.replace(/\/+$/, "")}/claude-code${page}`, timeoutSeconds };
}

/** The hook entry for the host's settings: every tool, before it runs. */
function entry(host: HookHost["id"], handler: HookHandler): { event: string; group: Record<string, unknown> } {
  if (handler.type === "http") {
    // The token, when the server wants one, comes from the user's environment, never from the file.
    const hook = { type: "http", url: handler.url, headers: { Authorization: "Bearer $TOOLHOST_HOOK_TOKEN" }, allowedEnvVars: ["TOOLHOST_HOOK_TOKEN"], timeout: handler.timeoutSeconds };
    return { event: "PreToolUse", group: { matcher: "*", hooks: [hook] } };
  }
  if (host === "claude-code") {
    return { event: "PreToolUse", group: { matcher: "*", hooks: [{ type: "command", command: handler.command, timeout: handler.timeoutSeconds }] } };
  }
  // Gemini CLI's timeout is in milliseconds.
  return { event: "BeforeTool", group: { matcher: ".*", hooks: [{ type: "command", name: "toolhost-policy", command: handler.command, timeout: handler.timeoutSeconds * 1000 }] } };
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * The settings with toolhost's hook added, everything else kept as it was. `changed` is false when
 * a toolhost hook for this host is already there, in either form (a command, or an http hook
 * posting to a server's `/<host>`): it is added once, and changing its form is done by hand.
 */
export function mergeSettings(existing: unknown, host: HookHost["id"], handler: HookHandler, file: string): { settings: Json; changed: boolean } {
  if (!isObject(existing)) throw new UsageError(`${file} does not hold a JSON object; fix it or move it away, then run this again.`);
  const { event, group } = entry(host, handler);
  const hooks = existing.hooks ?? {};
  if (!isObject(hooks)) throw new UsageError(`"hooks" in ${file} is not an object; fix it by hand, then run this again.`);
  const groups = hooks[event] ?? [];
  if (!Array.isArray(groups)) throw new UsageError(`"hooks.${event}" in ${file} is not a list; fix it by hand, then run this again.`);
  const ours = new RegExp(`(toolhost|bin\\.js)"? hook ${host}\\b`);
  const oursOver = new RegExp(`/${host}/*(\\?[^#]*)?$`);
  const isOurs = (hook: Json): boolean =>
    (typeof hook.command === "string" && ours.test(hook.command)) || (hook.type === "http" && typeof hook.url === "string" && oursOver.test(hook.url));
  const present = groups.some((item) => isObject(item) && Array.isArray(item.hooks) && item.hooks.some((hook) => isObject(hook) && isOurs(hook)));
  if (present) return { settings: existing, changed: false };
  return { settings: { ...existing, hooks: { ...hooks, [event]: [...groups, group] } }, changed: true };
}

/** Reads a settings file: `{}` when there is none; an error naming the file when it is not JSON. */
export async function readSettings(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new UsageError(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
  }
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file} is not valid JSON (${(error as Error).message}); nothing was changed. Fix it, or add the hook by hand.`);
  }
}

/** Writes the settings whole or not at all (a temporary file renamed over it). */
export async function writeSettings(file: string, settings: Json): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.toolhost-${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o644 });
  await rename(temporary, file);
}
