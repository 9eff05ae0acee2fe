import type { Signed } from "./_scripts.js";

/**
 * What a call's record in Redis says: `q:<hash>` while it is queued or running, `d:<hash>:<sig>:<answer>`
 * once a worker answered it (the answer signed as the worker sent it). The hash is of the call's
 * content, so a call id sent again with other content is told apart.
 */
export type CallRecord = { state: "queued"; hash: string } | { state: "done"; hash: string; answer: Signed };

export function queuedRecord(hash: string): string {
  return `q:${hash}`;
}

export function doneRecord(hash: string, answer: Signed): string {
  return `d:${hash}:${answer.sig}:${answer.text}`;
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
