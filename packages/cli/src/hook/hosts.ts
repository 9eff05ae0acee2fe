import { isAbsolute, resolve } from "node:path";
import type { AccessEnvironment, ToolAccess } from "@toolhost/core";

/**
 * Another agent host whose tool calls toolhost's policy decides through that host's hook protocol:
 * how its payload reads, what each of its built-in tools touches, and how it wants the answer.
 */
export interface HookHost {
  /** The name on the command line: `toolhost hook <id>`. */
  id: "claude-code" | "gemini";
  /** The host's name, for messages. */
  title: string;
  /** The hook event this answers (PreToolUse, BeforeTool). */
  event: string;
  /** What each built-in tool touches, by the host's tool name. Tools not listed declare nothing. */
  tools: Readonly<Record<string, (input: Record<string, unknown>, env: AccessEnvironment) => ToolAccess>>;
  /** The answer for a decision, as the JSON the host reads on stdout (or in an HTTP response body). */
  answer(decision: HookDecision): Record<string, unknown>;
  /**
   * Whether `value` is an answer `answer` could have given for `onAllow`: what the forwarding client
   * (`toolhost hook <id> --server`) checks a server's reply against before printing it. An outright
   * allow while `onAllow` is `defer` is not: it would let through more than asked.
   */
  isAnswer(value: unknown, onAllow: HookDecision["onAllow"]): boolean;
}

/** What toolhost decided about one call of another host. */
export interface HookDecision {
  decision: "allow" | "ask" | "deny";
  reason: string;
  /** `defer` (default): on allow, say nothing and let the host's own permissions decide; `allow`: allow outright. */
  onAllow: "defer" | "allow";
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);
const hasKeys = (value: Record<string, unknown>, keys: readonly string[]): boolean =>
  Object.keys(value).length === keys.length && keys.every((key) => Object.hasOwn(value, key));

const str = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/** The first of `fields` that holds a path, absolute against `cwd`. */
function pathOf(input: Record<string, unknown>, env: AccessEnvironment, fields: readonly string[]): string | undefined {
  for (const field of fields) {
    const value = str(input[field]);
    if (value !== undefined) return isAbsolute(value) ? value : resolve(env.cwd, value);
  }
  return undefined;
}

const reads = (fields: readonly string[]) => (input: Record<string, unknown>, env: AccessEnvironment): ToolAccess => {
  const path = pathOf(input, env, fields);
  return path === undefined ? {} : { reads: [path] };
};

const writes = (fields: readonly string[]) => (input: Record<string, unknown>, env: AccessEnvironment): ToolAccess => {
  const path = pathOf(input, env, fields);
  return path === undefined ? {} : { writes: [path] };
};

/** A search or listing: a recursive read of its folder (the working directory when none is given). */
const readsTree = (fields: readonly string[]) => (input: Record<string, unknown>, env: AccessEnvironment): ToolAccess => ({
  readTrees: [pathOf(input, env, fields) ?? env.cwd],
});

const command = (fields: readonly string[]) => (input: Record<string, unknown>, env: AccessEnvironment): ToolAccess => {
  const text = str(input.command);
  return text === undefined ? {} : { commands: [{ command: text, cwd: pathOf(input, env, fields) ?? env.cwd }] };
};

const fetches = (input: Record<string, unknown>): ToolAccess => {
  const url = str(input.url);
  if (url !== undefined) return { network: [{ url, method: "GET" }] };
  // Gemini's web_fetch takes its URLs inside a prompt: each one it names is a destination.
  const prompt = str(input.prompt) ?? "";
  const urls = prompt.match(/\bhttps?:\/\/[^\s"'<>)\]]+/g) ?? [];
  return { network: urls.map((found) => ({ url: found, method: "GET" })) };
};

/**
 * Claude Code's built-in tools (hooks reference, PreToolUse input; tool inputs as Claude Code sends
 * them, with absolute file paths).
 */
export const claudeCode: HookHost = {
  id: "claude-code",
  title: "Claude Code",
  event: "PreToolUse",
  tools: {
    Bash: command([]),
    Read: reads(["file_path"]),
    Write: writes(["file_path"]),
    Edit: writes(["file_path"]),
    MultiEdit: writes(["file_path"]),
    NotebookEdit: writes(["notebook_path"]),
    NotebookRead: reads(["notebook_path"]),
    Glob: readsTree(["path"]),
    Grep: readsTree(["path"]),
    LS: readsTree(["path"]),
    WebFetch: fetches,
  },
  answer({ decision, reason, onAllow }) {
    if (decision === "allow" && onAllow === "defer") return {};
    return {
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: decision, permissionDecisionReason: reason },
    };
  },
  isAnswer(value, onAllow) {
    if (!isRecord(value)) return false;
    if (hasKeys(value, [])) return true;
    const output = value.hookSpecificOutput;
    if (!hasKeys(value, ["hookSpecificOutput"]) || !isRecord(output)) return false;
    if (!hasKeys(output, ["hookEventName", "permissionDecision", "permissionDecisionReason"])) return false;
    const decision = output.permissionDecision;
    const decided = decision === "deny" || decision === "ask" || (decision === "allow" && onAllow === "allow");
    return output.hookEventName === "PreToolUse" && decided && typeof output.permissionDecisionReason === "string";
  },
};

/** Gemini CLI's built-in tools (hooks reference, BeforeTool input; the tools reference for their arguments). */
export const gemini: HookHost = {
  id: "gemini",
  title: "Gemini CLI",
  event: "BeforeTool",
  tools: {
    run_shell_command: command(["dir_path", "directory"]),
    read_file: reads(["file_path", "absolute_path", "path"]),
    read_many_files: (input, env) => {
      const paths = Array.isArray(input.paths) ? input.paths.filter((item): item is string => typeof item === "string") : [];
      return { readTrees: paths.length > 0 ? paths.map((path) => resolve(env.cwd, path)) : [env.cwd] };
    },
    write_file: writes(["file_path", "absolute_path", "path"]),
    replace: writes(["file_path", "absolute_path", "path"]),
    list_directory: readsTree(["dir_path", "path"]),
    glob: readsTree(["dir_path", "path"]),
    search_file_content: readsTree(["dir_path", "path"]),
    web_fetch: fetches,
  },
  answer({ decision, reason, onAllow }) {
    if (decision === "allow") return onAllow === "allow" ? { decision: "allow" } : {};
    // Gemini CLI's hooks have no "ask": a call the policy would ask about is refused, with the reason.
    const why = decision === "ask" ? `${reason} (toolhost's policy asks about this call, and Gemini CLI's hooks cannot ask: it was refused)` : reason;
    return { decision: "deny", reason: why };
  },
  isAnswer(value, onAllow) {
    if (!isRecord(value)) return false;
    if (hasKeys(value, [])) return true;
    if (hasKeys(value, ["decision"])) return value.decision === "allow" && onAllow === "allow";
    return hasKeys(value, ["decision", "reason"]) && value.decision === "deny" && typeof value.reason === "string";
  },
};

export const HOOK_HOSTS: Readonly<Record<HookHost["id"], HookHost>> = { "claude-code": claudeCode, gemini };
