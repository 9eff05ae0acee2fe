import { stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import type { HookHost } from "./hosts.js";

// A hook payload, read and checked. Loads no core: the forwarding client (_hook-command.ts) checks a
// payload here before sending it, so that a bad one is refused exactly as when deciding in-process.

/** One tool call of another host, as its hook payload gives it. */
export interface HookCall {
  tool: string;
  input: Record<string, unknown>;
  /** The folder the host runs in: where the config is searched from and relative paths start. */
  cwd: string;
  /** The host's id of the call, when it sends one. */
  id: string;
  /** The host's session, when it sends one (`session_id`). */
  session?: string;
}

/** A payload that cannot be judged: the call is refused (exit 2 with the reason). */
export class HookInputError extends Error {
  override name = "HookInputError";
  readonly code = "TOOLHOST_HOOK_BAD_PAYLOAD";
}

const MAX_PAYLOAD = 8 * 1024 * 1024;

/** Reads a hook payload: one JSON object with `tool_name`, `tool_input` and `cwd`. */
export async function parsePayload(hookHost: HookHost, text: string): Promise<HookCall> {
  if (text.length > MAX_PAYLOAD) throw new HookInputError(`The ${hookHost.title} hook payload is over 8 MiB; refused.`);
  if (text.trim() === "") {
    throw new HookInputError(`No ${hookHost.title} hook payload on standard input: expected one JSON object with tool_name and tool_input.`);
  }
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch (error) {
    throw new HookInputError(`The ${hookHost.title} hook payload is not valid JSON (${(error as Error).message}).`);
  }
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) {
    throw new HookInputError(`The ${hookHost.title} hook payload is not a JSON object.`);
  }
  const { tool_name: tool, tool_input: input, cwd, hook_event_name: event, tool_use_id: id, session_id: session } = payload as Record<string, unknown>;
  if (typeof event === "string" && event !== hookHost.event) {
    throw new HookInputError(`toolhost hook ${hookHost.id} answers ${hookHost.event} events, not "${event}": register it for ${hookHost.event} only.`);
  }
  if (typeof tool !== "string" || tool === "") throw new HookInputError(`The ${hookHost.title} hook payload has no tool_name.`);
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new HookInputError(`The ${hookHost.title} hook payload's tool_input is not an object.`);
  }
  const folder = typeof cwd === "string" && cwd !== "" ? cwd : process.cwd();
  const isFolder = isAbsolute(folder) && (await stat(folder).then((info) => info.isDirectory(), () => false));
  if (!isFolder) throw new HookInputError(`The ${hookHost.title} hook payload's cwd ${JSON.stringify(folder)} is not an existing absolute folder.`);
  const call: HookCall = { tool, input: input as Record<string, unknown>, cwd: folder, id: typeof id === "string" && id !== "" ? id : "hook" };
  if (typeof session === "string" && session !== "") call.session = session;
  return call;
}
