import type { Signed } from "./_scripts.js";

/**
 * What a call's record in Redis says: `q:<digest>` while it is queued or running,
 * `d:<digest>:<sig>:<answer>` once a worker answered it (the answer signed as the worker sent it).
 * The digest is of the call's content (its tool, arguments and declared access, `callDigest`
 * without its `sha256:`), so a call id sent again with other content is told apart.
 */
export type CallRecord = { state: "queued"; hash: string } | { state: "done"; hash: string; answer: Signed };

/** The record's part of a call's digest (`sha256:<hex>` → `<hex>`: no colon, which separates the record's fields). */
export function recordHash(digest: string): string {
  return digest.startsWith("sha256:") ? digest.slice("sha256:".length) : digest.replaceAll(":", "_");
}

export function queuedRecord(digest: string): string {
  return `q:${recordHash(digest)}`;
}

export function doneRecord(digest: string, answer: Signed): string {
  return `${doneRecordHead(digest)}${answer.sig}:${answer.text}`;
}

/** How an answered record of the call with this digest starts. */
export function doneRecordHead(digest: string): string {
  return `d:${recordHash(digest)}:`;
}

/** Whether a record is of the call with this digest. */
export function isRecordOf(record: CallRecord | undefined, digest: string): boolean {
  return record !== undefined && record.hash === recordHash(digest);
}

/** Reads a record; undefined when it is not one (another program's value). */
export function readRecord(text: string | null | undefined): CallRecord | undefined {
  if (typeof text !== "string") return undefined;
  if (text.startsWith("q:")) return { state: "queued", hash: text.slice(2) };
  if (!text.startsWith("d:")) return undefined;
  const hashEnd = text.indexOf(":", 2);
  const sigEnd = hashEnd < 0 ? -1 : text.indexOf(":", hashEnd + 1);
  if (sigEnd < 0) return undefined;
  return { state: "done", hash: text.slice(2, hashEnd), answer: { sig: text.slice(hashEnd + 1, sigEnd), text: text.slice(sigEnd + 1) } };
}
