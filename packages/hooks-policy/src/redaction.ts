import { type AgentToolResult, ToolhostError } from "@toolhost/core";
import type { RedactRule } from "./options.js";
import { applyEdits, type Edit, eachMatch, expand, type Redaction } from "./secrets/_edits.js";
import { builtinRedactions } from "./secrets/_secrets.js";
import { lazyGlob } from "./paths/_lazy-glob.js";

/** Environment variables shorter than this are not redacted: they would match ordinary words. */
export const MIN_KNOWN_VALUE_LENGTH = 8;

/** What the redactor masks besides the patterns: values of the host's environment variables. */
export interface KnownValues {
  /** Globs on variable names (`*_TOKEN`), matched without regard to case. */
  names: readonly string[];
  /** The environment to read; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Rewrites every text that leaves the kernel: the values of the named environment variables, your
 * patterns and the built-in formats are all found in the text as it came, and every match is
 * replaced (where two overlap, both are masked). Compiled once; throws at load time on an
 * invalid pattern.
 */
export class Redactor {
  readonly #redactions: Redaction[] = [];

  constructor(rules: readonly RedactRule[], builtins: boolean, known?: KnownValues) {
    const values = known ? knownValues(known) : undefined;
    if (values) this.#redactions.push(values);
    this.#redactions.push(...rules.map((rule, index) => compile(rule, index)));
    if (builtins) this.#redactions.push(...builtinRedactions());
  }

  get active(): boolean {
    return this.#redactions.length > 0;
  }

  /** Redacts one string. */
  text(text: string): string {
    if (typeof text !== "string") throw new TypeError(`the redactor was given ${typeof text}, not text`);
    const edits: Edit[] = [];
    for (const redaction of this.#redactions) redaction(text, edits);
    return applyEdits(text, edits);
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
  const replacement = rule.replacement ?? "[redacted]";
  return eachMatch(regex, (match) => ({ replacement: expand(replacement, match) }));
}

/**
 * One redaction for the values of the environment variables whose names match: each value is
 * replaced by `[redacted $NAME]` wherever it appears. Longest values first, so a value that holds
 * another is masked whole. Undefined when no variable matches.
 */
function knownValues({ names, env = process.env }: KnownValues): Redaction | undefined {
  if (names.length === 0) return undefined;
  const globs = names.map((name) => lazyGlob(name, { nocase: true }));
  const isSecretName = (name: string) => globs.some((glob) => glob(name));
  const byValue = new Map<string, string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.length < MIN_KNOWN_VALUE_LENGTH || !isSecretName(name)) continue;
    if (!byValue.has(value)) byValue.set(value, name);
  }
  if (byValue.size === 0) return undefined;
  const values = [...byValue.keys()].sort((a, b) => b.length - a.length);
  const regex = new RegExp(values.map(escapeRegExp).join("|"), "g");
  return eachMatch(regex, ([value]) => ({ replacement: `[redacted $${byValue.get(value) ?? "secret"}]` }));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&");
}
