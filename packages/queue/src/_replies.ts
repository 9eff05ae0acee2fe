import type { AgentToolResult, AgentToolUpdate } from "@toolhost/core";
import { type ReplyEnvelope, errorResult, isResult, parseEnvelope } from "./_job.js";
import { type Keyring, canonicalJson, sign, verify } from "./_signing.js";
import { QueueErrorCode } from "./errors.js";

/** A worker's answer about one call, signed when it holds a key (with the job's key, `keyId`, when it has that one). */
export function sealReply(
  keyring: Keyring | undefined,
  callId: string,
  body: { result: AgentToolResult } | { update: AgentToolUpdate },
  keyId?: string,
): ReplyEnvelope {
  const reply = canonicalJson({ call: callId, ...body });
  return keyring ? { v: 2, reply, sig: sign(keyring, "reply", reply, keyId) } : { v: 2, reply };
}

/**
 * Opens a worker's answer about `callId` read from Redis: its signature is checked when this host
 * holds the key, and it must name that call. A result that cannot be trusted becomes a refusal
 * (the call may or may not have run); an update that cannot be trusted is undefined (dropped).
 */
export function openReply(keyring: Keyring | undefined, value: unknown, callId: string, kind: "result"): AgentToolResult;
export function openReply(keyring: Keyring | undefined, value: unknown, callId: string, kind: "update"): AgentToolUpdate | undefined;
export function openReply(keyring: Keyring | undefined, value: unknown, callId: string, kind: "result" | "update"): AgentToolResult | AgentToolUpdate | undefined {
  const envelope = parseEnvelope(value, "reply");
  if (!envelope) return kind === "result" ? badResult() : undefined;
  const refusal = keyring ? verify(keyring, "reply", envelope.text, envelope.sig) : undefined;
  if (refusal) {
    if (kind === "update") return undefined;
    return errorResult(
      QueueErrorCode.REPLY_REFUSED,
      `The answer for this call in Redis was refused: ${refusal.reason}. The call may or may not have run on a worker; a worker without the queue's key (or someone with access to Redis) wrote the answer.`,
      { refused: refusal.code },
    );
  }
  let body: { call?: unknown; result?: unknown; update?: unknown };
  try {
    body = JSON.parse(envelope.text) as typeof body;
  } catch {
    return kind === "result" ? badResult() : undefined;
  }
  const item = body?.[kind];
  if (body?.call !== callId || !isResult(item)) return kind === "result" ? badResult() : undefined;
  return item;
}

export function badResult(): AgentToolResult {
  return errorResult(QueueErrorCode.BAD_JOB, "The worker's answer was not a tool result; the worker may run another program's version.");
}
