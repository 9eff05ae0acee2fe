import { appendFile, mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import type { PolicyExplanation } from "@toolhost/core";
import type { AuditEntry } from "./audit-entry.js";

/** Appends one JSON line per decision, in the order the decisions were made. */
export class AuditLog {
  #queue: Promise<void> = Promise.resolve();
  #ready: Promise<unknown> | undefined;

  /** `redact` masks secrets in the reason; when it throws, the reason is withheld, never written raw. */
  constructor(
    readonly file: string,
    readonly redact: (text: string) => string = (text) => text,
  ) {}

  record(tool: string, args: unknown, explanation: PolicyExplanation): Promise<void> {
    const entry: AuditEntry = {
      time: new Date().toISOString(),
      tool,
      argsDigest: digest(args),
      decision: explanation.decision,
      rules: explanation.rules,
      reason: this.#redacted(explanation.reason),
    };
    const line = `${JSON.stringify(entry)}\n`;
    this.#ready ??= mkdir(dirname(this.file), { recursive: true });
    const next = this.#queue.then(async () => {
      await this.#ready;
      await appendFile(this.file, line, "utf8");
    });
    this.#queue = next.catch(() => undefined);
    return next;
  }

  #redacted(reason: string): string {
    try {
      return this.redact(reason);
    } catch {
      return REASON_WITHHELD;
    }
  }
}

/** The reason an audit line holds when redacting it failed. */
export const REASON_WITHHELD = "[reason withheld: redaction failed]";

/** node:crypto, loaded on the first digest: a policy without an audit log never needs it (~5 ms of a hook's start). */
let nodeCrypto: typeof import("node:crypto") | undefined;

/** sha256 of canonical JSON: object keys sorted at every level. */
export function digest(value: unknown): string {
  nodeCrypto ??= createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  return nodeCrypto.createHash("sha256").update(canonicalJson(value)).digest("hex");
}

export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  }) ?? "null";
}
