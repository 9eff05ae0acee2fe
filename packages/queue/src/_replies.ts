import type { AgentToolResult, AgentToolUpdate } from "@toolhost/core";
import { errorResult, isResult } from "./_job.js";
import type { Signed } from "./_scripts.js";
import { type Keyring, canonicalJson, sign, verify } from "./_signing.js";
import { QueueErrorCode } from "./errors.js";

/** What a worker says about a call: its result, or an update while it runs. */
export type ReplyBody = { result: AgentToolResult } | { update: AgentToolUpdate };

/** A worker's answer about one call, signed when it holds a key (with the job's key, `keyId`, when it has that one). */
export function sealReply(keyring: Keyring | undefined, callId: string, body: ReplyBody, keyId?: string): Signed {
  const text = canonicalJson({ call: callId, ...body });
  return { text, sig: keyring ? sign(keyring, "reply", text, keyId) : "" };
}

/** The call id an answer is about (read before its signature is checked, to find the call). */
export function replyCallId(text: string): string | undefined {
  try {
    const call = (JSON.parse(text) as { call?: unknown }).call;
    return typeof call === "string" ? call : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Opens a worker's answer about `callId` read from Redis: its signature is checked when this host
 * holds the key, and it must name that call. A result that cannot be trusted becomes a refusal
 * (the call may or may not have run); an update that cannot be trusted is undefined (dropped).
 */
export function openReply(keyring: Keyring | undefined, reply: Signed, callId: string): { result: AgentToolResult } | { update: AgentToolUpdate } | undefined {
  const refusal = keyring ? verify(keyring, "reply", reply.text, reply.sig === "" ? undefined : reply.sig) : undefined;
  let body: { call?: unknown; result?: unknown; update?: unknown };
  try {
    body = JSON.parse(reply.text) as typeof body;
  } catch {
    return { result: badResult() };
  }
  if (body?.call !== callId) return undefined;
  if (refusal) {
    if (body.update !== undefined) return undefined;
    return {
      result: errorResult(
        QueueErrorCode.REPLY_REFUSED,
        `The answer for this call in Redis was refused: ${refusal.reason}. The call may or may not have run on a worker; a worker without the queue's key (or someone with access to Redis) wrote the answer.`,
        { refused: refusal.code },
      ),
    };
  }
  if (isResult(body.result)) return { result: body.result };
  if (isResult(body.update)) return { update: body.update };
  return { result: badResult() };
}

export function badResult(): AgentToolResult {
  return errorResult(QueueErrorCode.BAD_JOB, "The worker's answer was not a tool result; the worker may run another program's version.");
}
