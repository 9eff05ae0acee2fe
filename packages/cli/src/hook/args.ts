import { parseArgs } from "node:util";
import type { HookDecision, HookHost } from "./hosts.js";

// The options of `toolhost hook claude-code|gemini`, read without the command parser and without
// core: both the forwarding client and the in-process path start from them.

/** How `toolhost hook <host>` is called. */
export interface HookRunOptions {
  host: HookHost["id"];
  /** A config file instead of the search from the payload's `cwd` (in-process only). */
  config?: string | undefined;
  /** What toolhost's allow becomes in the host's answer. */
  onAllow: HookDecision["onAllow"];
  /** A running `toolhost hook serve` to ask instead of deciding here (`--server`, else `TOOLHOST_HOOK_SERVER`). */
  server?: URL | undefined;
  /** The payload, when it was read already (the forwarding client deciding here after all). */
  input?: string | undefined;
  /**
   * Whether an allowed shell call is rewritten to run in toolhost's sandbox (default true;
   * `--no-confine` false): the command is then judged as the sandbox confines it.
   */
  confine: boolean;
  /** Where an ask goes: to the host, which asks its user (default), or to the approvals page (`--on-ask page`, for a headless host). */
  onAsk?: "host" | "page";
  /** The host's timeout for this hook, in seconds (`--timeout`, default what `hook install` writes): an ask on the page ends before it. */
  timeoutSeconds?: number;
}

/** A hook called wrongly (an unknown option, a bad value): the call is blocked, with this message. */
export class HookUsageError extends Error {
  override name = "HookUsageError";
  readonly code = "TOOLHOST_HOOK_USAGE";
}

/** The environment variable that names a hook server when `--server` is not given. */
export const SERVER_ENV = "TOOLHOST_HOOK_SERVER";

/**
 * Reads `toolhost hook <host>`'s own options (after the host's name). `--server` and `--config`
 * together are refused: the server finds its own config, and no request may name one for it. A
 * server named only by the environment gives way to an explicit `--config` (decided here with it).
 */
export function hookRunOptions(host: HookHost["id"], args: string[], env: NodeJS.ProcessEnv = process.env): HookRunOptions {
  const values = parseOptions(args);
  const onAllow = values["on-allow"];
  if (onAllow !== "defer" && onAllow !== "allow") throw new HookUsageError(`--on-allow takes "defer" or "allow", not "${onAllow}".`);
  const asking = askingOptions(values["on-ask"], values.timeout);
  const confine = values["no-confine"] !== true;
  if (values.server !== undefined && values.config !== undefined) {
    throw new HookUsageError(
      `--server and --config cannot go together: the server decides with the config it finds from each call's cwd. Give --config to \`toolhost hook serve\` instead, or drop --server.`,
    );
  }
  if (values.server !== undefined) return { host, onAllow, confine, server: serverUrl(values.server, "--server"), ...asking };
  const fromEnv = env[SERVER_ENV];
  if (fromEnv !== undefined && fromEnv !== "" && values.config === undefined) return { host, onAllow, confine, server: serverUrl(fromEnv, SERVER_ENV), ...asking };
  return { host, onAllow, confine, config: values.config, ...asking };
}

/** `--on-ask` and `--timeout`: an ask on the page (here, or on the server the hook forwards to) ends before the host's timeout. */
function askingOptions(onAsk: string | undefined, timeout: string | undefined): { onAsk: "host" | "page"; timeoutSeconds: number } {
  if (onAsk !== undefined && onAsk !== "host" && onAsk !== "page") throw new HookUsageError(`--on-ask takes "host" or "page", not "${onAsk}".`);
  const seconds = Number(timeout ?? DEFAULT_HOOK_TIMEOUT);
  if (!Number.isInteger(seconds) || seconds < 1) throw new HookUsageError(`--timeout takes the host's timeout for this hook in whole seconds, not "${timeout}".`);
  return { onAsk: onAsk ?? "host", timeoutSeconds: seconds };
}

/** The timeout `hook install` gives the hook (Claude Code's `timeout: 30`, Gemini CLI's 30000 ms). */
export const DEFAULT_HOOK_TIMEOUT = 30;

function parseOptions(args: string[]): {
  config?: string | undefined;
  "on-allow": string;
  server?: string | undefined;
  "on-ask"?: string | undefined;
  timeout?: string | undefined;
  "no-confine"?: boolean | undefined;
} {
  try {
    return parseArgs({
      args,
      options: { config: { type: "string", short: "c" }, "on-allow": { type: "string", default: "defer" }, server: { type: "string" }, "on-ask": { type: "string" }, timeout: { type: "string" }, "no-confine": { type: "boolean" } },
      allowPositionals: false,
      strict: true,
    }).values;
  } catch (error) {
    throw new HookUsageError(`${(error as Error).message} (toolhost hook takes --on-allow, --server, --config, --on-ask, --timeout and --no-confine).`);
  }
}

/** A hook server's address: an http(s) URL without credentials, query or fragment; its path may hold a prefix. */
export function serverUrl(text: string, source: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  const plain = url !== undefined && (url.protocol === "http:" || url.protocol === "https:") && !url.username && !url.password && !url.search && !url.hash;
  if (!url || !plain) {
    throw new HookUsageError(`${source} takes the http(s) URL of a running \`toolhost hook serve\`, e.g. http://127.0.0.1:8787, not "${text}".`);
  }
  return url;
}
