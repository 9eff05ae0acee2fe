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
  /** The host's shell tool, whose `command` an allowed call may have rewritten to run in toolhost's sandbox. */
  shell: string;
  /** The answer for a decision, as the JSON the host reads on stdout (or in an HTTP response body). */
  answer(decision: HookDecision): Record<string, unknown>;
  /**
   * Whether `value` is an answer `answer` could have given for `asked`: what the forwarding client
   * (`toolhost hook <id> --server`) checks a server's reply against before printing it. An outright
   * allow while `onAllow` is `defer` is not, unless it runs the shell call confined (and confining
   * was asked), or the hook asks on the approvals page (where a person approved it): it would let
   * through more than asked. A rewrite may change only the shell call's
   * `command`, and must carry the original command whole, quoted as the sandbox quotes it.
   */
  isAnswer(value: unknown, asked: AnswerShape): boolean;
}

/** What the forwarding client asked for, to check a server's answer against. */
export interface AnswerShape {
  onAllow: HookDecision["onAllow"];
  /** Whether the shell call may come back rewritten to run confined. */
  confine: boolean;
  /** The call's tool and input as the payload gave them. */
  tool: string;
  input: Record<string, unknown>;
  /** `page`: an ask goes to the approvals page, and an approval there comes back as an outright allow. */
  onAsk?: "host" | "page";
}

/** Whether an outright allow answers what was asked: with `--on-allow allow`, or a call approved on the approvals page. */
function allowsOutright(asked: AnswerShape): boolean {
  return asked.onAllow === "allow" || asked.onAsk === "page";
}

/** What toolhost decided about one call of another host. */
export interface HookDecision {
  decision: "allow" | "ask" | "deny";
  reason: string;
  /** `defer` (default): on allow, say nothing and let the host's own permissions decide; `allow`: allow outright. */
  onAllow: "defer" | "allow";
  /**
   * An allowed shell call rewritten to run in toolhost's sandbox: the tool's whole new input. It is
   * allowed outright (the host's own rules would judge the sandbox's command line, not the model's
   * command), with `reason` saying that it runs confined.
   */
  updatedInput?: Record<string, unknown>;
  /** A line for the host to show the user beside the decision (that a shell call runs unconfined, and why). */
  note?: string;
}

/** A word as the sandbox quotes it for a POSIX shell: bare when it holds only safe characters, else single-quoted. */
export function quotedWord(word: string): string {
  if (/^[A-Za-z0-9_/.,:=+@%^-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Whether `updated` is `input` with only its `command` rewritten to a line that ends with the original command, quoted. */
function isRewrite(updated: unknown, asked: AnswerShape, shell: string): boolean {
  if (!asked.confine || asked.tool !== shell || !isRecord(updated)) return false;
  const original = asked.input.command;
  const command = updated.command;
  if (typeof original !== "string" || typeof command !== "string" || !command.endsWith(` ${quotedWord(original)}`)) return false;
  const keys = Object.keys(updated);
  return keys.length === Object.keys(asked.input).length && keys.every((key) => key === "command" || (Object.hasOwn(asked.input, key) && JSON.stringify(updated[key]) === JSON.stringify(asked.input[key])));
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
  shell: "Bash",
  answer({ decision, reason, onAllow, updatedInput, note }) {
    const shown = note === undefined ? {} : { systemMessage: note };
    if (decision === "allow" && updatedInput !== undefined) {
      return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: reason, updatedInput } };
    }
    if (decision === "allow" && onAllow === "defer") return shown;
    return {
      ...shown,
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: decision, permissionDecisionReason: reason },
    };
  },
  isAnswer(value, asked) {
    if (!isRecord(value)) return false;
    const { systemMessage, ...rest } = value;
    if (systemMessage !== undefined && typeof systemMessage !== "string") return false;
    if (hasKeys(rest, [])) return true;
    const output = rest.hookSpecificOutput;
    if (!hasKeys(rest, ["hookSpecificOutput"]) || !isRecord(output) || output.hookEventName !== "PreToolUse") return false;
    if (typeof output.permissionDecisionReason !== "string") return false;
    if (hasKeys(output, ["hookEventName", "permissionDecision", "permissionDecisionReason", "updatedInput"])) {
      return systemMessage === undefined && output.permissionDecision === "allow" && isRewrite(output.updatedInput, asked, "Bash");
    }
    if (!hasKeys(output, ["hookEventName", "permissionDecision", "permissionDecisionReason"])) return false;
    const decision = output.permissionDecision;
    return decision === "deny" || decision === "ask" || (decision === "allow" && allowsOutright(asked));
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
  shell: "run_shell_command",
  answer({ decision, reason, onAllow, updatedInput, note }) {
    const shown = note === undefined ? {} : { systemMessage: note };
    if (decision === "allow" && updatedInput !== undefined) {
      // Gemini CLI keeps no reason of an allow: the line it shows the user says that the call runs confined.
      return { decision: "allow", reason, systemMessage: reason, hookSpecificOutput: { hookEventName: "BeforeTool", tool_input: updatedInput } };
    }
    if (decision === "allow") return onAllow === "allow" ? { ...shown, decision: "allow" } : shown;
    // Gemini CLI's hooks have no "ask": a call the policy would ask about is refused, with the reason.
    const why = decision === "ask" ? `${reason} (toolhost's policy asks about this call, and Gemini CLI's hooks cannot ask: it was refused)` : reason;
    return { ...shown, decision: "deny", reason: why };
  },
  isAnswer(value, asked) {
    if (!isRecord(value)) return false;
    const { systemMessage, ...rest } = value;
    if (systemMessage !== undefined && typeof systemMessage !== "string") return false;
    if (hasKeys(rest, [])) return true;
    if (hasKeys(rest, ["decision"])) return rest.decision === "allow" && allowsOutright(asked);
    if (hasKeys(rest, ["decision", "reason", "hookSpecificOutput"])) {
      const output = rest.hookSpecificOutput;
      return (
        systemMessage === rest.reason &&
        rest.decision === "allow" &&
        typeof rest.reason === "string" &&
        isRecord(output) &&
        hasKeys(output, ["hookEventName", "tool_input"]) &&
        output.hookEventName === "BeforeTool" &&
        isRewrite(output.tool_input, asked, "run_shell_command")
      );
    }
    return hasKeys(rest, ["decision", "reason"]) && rest.decision === "deny" && typeof rest.reason === "string";
  },
};

export const HOOK_HOSTS: Readonly<Record<HookHost["id"], HookHost>> = { "claude-code": claudeCode, gemini };
