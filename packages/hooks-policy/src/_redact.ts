import { type AgentToolResult, ToolhostError } from "@toolhost/core";
import type { RedactRule } from "./_schema.js";

interface Redaction {
  name: string;
  regex: RegExp;
  replacement: string;
}

/** The built-in redactions: common secret formats. Each replacement names what was there. */
const BUILTINS: ReadonlyArray<Redaction> = [
  {
    name: "private key",
    regex: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g,
    replacement: "[redacted private key]",
  },
  { name: "AWS access key", regex: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[0-9A-Z]{16}\b/g, replacement: "[redacted AWS key]" },
  { name: "GitHub token", regex: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g, replacement: "[redacted GitHub token]" },
  { name: "Slack token", regex: /\bxox[abposre]-[A-Za-z0-9-]{10,}/g, replacement: "[redacted Slack token]" },
  { name: "API key", regex: /\bsk-(?:ant-|proj-|svcacct-)?[A-Za-z0-9_-]{20,}/g, replacement: "[redacted API key]" },
  { name: "Stripe key", regex: /\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}\b/g, replacement: "[redacted Stripe key]" },
  { name: "Google API key", regex: /\bAIza[0-9A-Za-z_-]{35}/g, replacement: "[redacted Google API key]" },
  { name: "JWT", regex: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}/g, replacement: "[redacted JWT]" },
  { name: "bearer token", regex: /\b(Bearer\s+)[A-Za-z0-9._~+/-]{16,}=*/g, replacement: "$1[redacted token]" },
  { name: "URL password", regex: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]{3,}@/gi, replacement: "$1[redacted]@" },
  {
    name: "secret assignment",
    regex:
      /\b((?:[A-Za-z0-9]{1,40}[_-]){0,6}(?:password|passwd|secret|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token|access[_-]?token|token)["']?\s*[:=]\s*["']?)(?!\[redacted)[^\s"'`,;]{6,}/gi,
    replacement: "$1[redacted]",
  },
];

/** Rewrites the text of results. Compiled once; throws at load time on an invalid pattern. */
export class Redactor {
  readonly #redactions: Redaction[];

  constructor(rules: readonly RedactRule[], builtins: boolean) {
    this.#redactions = rules.map((rule, index) => compile(rule, index));
    if (builtins) this.#redactions.push(...BUILTINS);
  }

  get active(): boolean {
    return this.#redactions.length > 0;
  }

  /** Redacts one string. */
  text(text: string): string {
    let out = text;
    for (const { regex, replacement } of this.#redactions) {
      regex.lastIndex = 0;
      out = out.replace(regex, replacement);
    }
    return out;
  }

  /**
   * The fields of a result to replace, or undefined when nothing changed. Throws when a value
   * cannot be walked, so the kernel withholds the result instead of passing secrets through.
   */
  result(result: AgentToolResult): Pick<AgentToolResult, "content" | "details"> | undefined {
    let changed = false;
    const content = result.content.map((block) => {
      if (block.type !== "text") return block;
      const text = this.text(block.text);
      if (text === block.text) return block;
      changed = true;
      return { ...block, text };
    });
    const seen = new Map<object, unknown>();
    const details = this.#deep(result.details, 0, seen, () => {
      changed = true;
    });
    return changed ? { content, details } : undefined;
  }

  #deep(value: unknown, depth: number, seen: Map<object, unknown>, onChange: () => void): unknown {
    if (typeof value === "string") {
      const text = this.text(value);
      if (text !== value) onChange();
      return text;
    }
    if (typeof value !== "object" || value === null) return value;
    if (depth > 64) throw new ToolhostError("TOOLHOST_POLICY_REDACTION_FAILED", "details are nested more than 64 levels deep");
    const done = seen.get(value);
    if (done !== undefined) return done;
    if (Array.isArray(value)) {
      const copy: unknown[] = [];
      seen.set(value, copy);
      for (let i = 0; i < value.length; i++) copy.push(this.#deep(value[i], depth + 1, seen, onChange));
      return copy;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      if (value instanceof Error) {
        const message = this.text(value.message);
        if (message !== value.message) onChange();
        return { name: value.name, message };
      }
      if (ArrayBuffer.isView(value) || value instanceof Date) return value;
      // Maps, class instances: redacted through their enumerable fields.
    }
    const copy: Record<string, unknown> = {};
    seen.set(value, copy);
    for (const key of Object.keys(value)) copy[key] = this.#deep((value as Record<string, unknown>)[key], depth + 1, seen, onChange);
    return copy;
  }
}

function compile(rule: RedactRule, index: number): Redaction {
  const flags = [...new Set(`${rule.flags ?? ""}g`)].join("");
  let regex: RegExp;
  try {
    regex = new RegExp(rule.pattern, flags);
  } catch (error) {
    throw new ToolhostError(
      "TOOLHOST_INVALID_PLUGIN_OPTIONS",
      `Invalid options for @toolhost/hooks-policy: redact[${index}].pattern ${JSON.stringify(rule.pattern)} is not a valid regular expression (${(error as Error).message}). Fix the pattern in the config.`,
    );
  }
  if (regex.test("")) {
    throw new ToolhostError(
      "TOOLHOST_INVALID_PLUGIN_OPTIONS",
      `Invalid options for @toolhost/hooks-policy: redact[${index}].pattern ${JSON.stringify(rule.pattern)} matches empty text, so it would rewrite everything. Make it match at least one character.`,
    );
  }
  regex.lastIndex = 0;
  return { name: `redact[${index}]`, regex, replacement: rule.replacement ?? "[redacted]" };
}
