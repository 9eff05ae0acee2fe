import { appendFileSync, closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, realpathSync, writeSync } from "node:fs";
import { appendFile, mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { type ConfigOwner, isInside, messageOf, ToolhostError } from "@toolhost/core";
import type { AuditEntry } from "../audit-entry.js";
import { type OwnedOptions, whose } from "../layers/_owners.js";
import { PolicyErrorCode } from "../types.js";

/** An audit file, and whose config named it. */
export interface AuditFile {
  file: string;
  owner: ConfigOwner | undefined;
  /**
   * An untrusted project's file: it must stay inside the workspace, and is opened without following
   * a link at its end, so that a repository cannot have the log appended to `~/.bashrc`.
   */
  confined: boolean;
}

/**
 * Every owner's audit file, each once: a lower owner cannot switch off a higher owner's log, only
 * add its own. A relative path is relative to the folder of the config that names it. An
 * untrusted project's file outside the workspace, or reached through a link out of it, is an error.
 */
export function auditFilesOf(owned: readonly OwnedOptions[], workspace: string): AuditFile[] {
  const files: AuditFile[] = [];
  for (const each of owned) {
    if (each.options.audit === undefined) continue;
    const file = resolve(each.folder, each.options.audit);
    if (!each.trusted) checkConfined(file, workspace, each);
    if (!files.some((known) => known.file === file)) files.push({ file, owner: each.owner, confined: !each.trusted });
  }
  return files;
}

function checkConfined(file: string, workspace: string, each: OwnedOptions): void {
  let folder = dirname(file);
  while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder);
  const inside = isInside(file, workspace) && isInside(realOf(folder), realOf(workspace)) && !isLink(file);
  if (inside) return;
  const trust = each.trust ?? `run "toolhost trust ${each.folder}"`;
  throw new ToolhostError(
    PolicyErrorCode.UNTRUSTED_CODE,
    `Invalid options for @toolhost/hooks-policy in ${whose(each.owner, each.file)}: the audit file ${file} is outside the workspace ${workspace} (or is a link, or reached through one out of it), and a folder you have not trusted may have the log written only inside itself. Name a file inside the workspace; if you trust this project, ${trust}.`,
  );
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function realOf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

/** The flags an untrusted project's file is opened with: append, create, and never through a link at its end. */
const CONFINED_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);

/** Appends one JSON line per entry to every audit file, in the order the entries were recorded. */
export class AuditLog {
  #queue: Promise<void> = Promise.resolve();
  #ready: Promise<unknown> | undefined;

  /** `redact` masks secrets in every text of a line; where it throws, the text is withheld, never written raw. */
  constructor(
    readonly files: readonly AuditFile[],
    readonly redact: (text: string) => string = (text) => text,
  ) {}

  /** The files, for messages. */
  get file(): string {
    return this.files.map((each) => each.file).join(", ");
  }

  /** Writes the entry, its texts redacted; rejects naming the file that could not be written. */
  record(entry: AuditEntry): Promise<void> {
    const line = `${JSON.stringify(this.#redacted(entry))}\n`;
    this.#ready ??= Promise.all(this.files.map((each) => mkdir(dirname(each.file), { recursive: true })));
    const next = this.#queue.then(async () => {
      await this.#ready;
      await Promise.all(
        this.files.map((each) =>
          appendFile(each.file, line, each.confined ? { encoding: "utf8", flag: CONFINED_FLAGS } : "utf8").catch((error: unknown) => {
            throw new Error(`${each.file}: ${messageOf(error)}`);
          }),
        ),
      );
    });
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Writes the entry at once (for an event listener, which cannot wait: the line is on disk before
   * the call goes on); the error of the first file that could not be written, or undefined.
   */
  recordNow(entry: AuditEntry): Error | undefined {
    const line = `${JSON.stringify(this.#redacted(entry))}\n`;
    for (const each of this.files) {
      try {
        mkdirSync(dirname(each.file), { recursive: true });
        appendSync(each, line);
      } catch (error) {
        return new Error(`${each.file}: ${messageOf(error)}`);
      }
    }
    return undefined;
  }

  /** Every string of the entry redacted but the ones it makes itself (time, ids of the call, the digest). */
  #redacted(entry: AuditEntry): AuditEntry {
    const walk = (value: unknown, key: string): unknown => {
      if (typeof value === "string") return KEPT.has(key) ? value : this.#text(value);
      if (Array.isArray(value)) return value.map((item) => walk(item, ""));
      if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, walk(item, name)]));
      return value;
    };
    return walk(entry, "") as AuditEntry;
  }

  #text(text: string): string {
    try {
      return this.redact(text);
    } catch {
      return REASON_WITHHELD;
    }
  }
}

function appendSync(each: AuditFile, line: string): void {
  if (!each.confined) return appendFileSync(each.file, line, "utf8");
  const fd = openSync(each.file, CONFINED_FLAGS, 0o666);
  try {
    writeSync(fd, line);
  } finally {
    closeSync(fd);
  }
}

/** Strings of a line that the log makes itself and never holds a secret. */
const KEPT = new Set(["time", "event", "toolCallId", "argsDigest", "decision", "outcome", "scope", "owner"]);

/** The text an audit line holds where redacting it failed. */
export const REASON_WITHHELD = "[reason withheld: redaction failed]";

/** node:crypto, loaded on the first digest: a policy without an audit log never needs it (~5 ms of a hook's start). */
let nodeCrypto: typeof import("node:crypto") | undefined;

/** sha256 of canonical JSON: object keys sorted at every level. */
export function digest(value: unknown): string {
  nodeCrypto ??= createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  return nodeCrypto.createHash("sha256").update(canonicalJson(value)).digest("hex");
}

export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, item: unknown) => {
      if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
      return sorted;
    }) ?? "null"
  );
}
