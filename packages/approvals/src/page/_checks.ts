import { callDigest, type ToolAccess } from "@toolhost/core";
import type { PageAsk, PageChoice } from "../wire.js";

/*
 * What the page takes from a request, checked before it is kept or shown: an ask's fields of the
 * types the page reads (the page shows them as text whatever they hold), a choice among the few
 * there are. A malformed one is refused with what is wrong.
 */

const CHOICES = new Set(["once", "session", "deny", "always:project", "always:user"]);
const MAX_REASON = 2_000;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => value !== null && typeof value === "object" && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === "string";
const texts = (value: unknown): boolean => Array.isArray(value) && value.every(isText);

/** The ask, or what is wrong with it. */
export function checkAsk(value: unknown): PageAsk | string {
  if (!isObject(value)) return "an ask is a JSON object";
  const { digest, tool, toolCallId, reason, askedBy, asker, parts, preview, call, timeoutMs } = value;
  if (!isText(digest) || !/^sha256:[0-9a-f]{64}$/.test(digest)) return "digest is not a call's digest (sha256:…)";
  if (!isText(tool) || !isText(toolCallId) || !isText(reason) || !isText(askedBy)) return "tool, toolCallId, reason and askedBy are strings";
  if (!isObject(asker) || typeof asker.pid !== "number" || !isText(asker.command) || !isText(asker.cwd) || !isText(asker.session)) return "asker has pid, command, cwd and session";
  if (asker.config !== undefined && !isText(asker.config)) return "asker.config is a string";
  if (!Array.isArray(parts) || !parts.every(isPart)) return "parts is a list of asking parts";
  if (!isPreview(preview)) return "preview is not a call's preview";
  if (!isObject(call)) return "call is an object";
  if (typeof timeoutMs !== "number" || !(timeoutMs > 0)) return "timeoutMs is a positive number";
  if (!sameContent(digest, tool, call)) return "digest is not the digest of the call's tool, arguments and access";
  return value as unknown as PageAsk;
}

/** Whether the digest is the call's own: what "always" and the session read is what the answer binds to. */
function sameContent(digest: string, tool: string, call: Json): boolean {
  try {
    return callDigest({ name: tool, args: call.args, ...(isObject(call.access) && { access: call.access as ToolAccess }) }) === digest;
  } catch {
    return false;
  }
}

function isPart(value: unknown): boolean {
  if (!isObject(value) || !isText(value.kind) || !isText(value.subject) || typeof value.locked !== "boolean" || !Array.isArray(value.rules)) return false;
  return value.rules.every((rule) => isObject(rule) && isText(rule.id) && isText(rule.layer) && isText(rule.matcher) && isText(rule.decision) && typeof rule.locked === "boolean");
}

function isPreview(value: unknown): boolean {
  if (!isObject(value)) return false;
  const { commands, network, writes, reads, readTrees, args } = value;
  if (!Array.isArray(commands) || !commands.every((each) => isObject(each) && isText(each.command) && (each.cwd === undefined || isText(each.cwd)))) return false;
  if (!Array.isArray(network) || !network.every((each) => isObject(each) && isText(each.method) && isText(each.url))) return false;
  if (!Array.isArray(writes) || !writes.every(isWrite)) return false;
  return texts(reads) && texts(readTrees) && (args === undefined || isText(args));
}

function isWrite(value: unknown): boolean {
  if (!isObject(value) || !isText(value.path)) return false;
  if (value.note !== undefined && !isText(value.note)) return false;
  if (value.change !== undefined && !isText(value.change)) return false;
  return value.diff === undefined || (Array.isArray(value.diff) && value.diff.every((line) => isObject(line) && isText(line.kind) && isText(line.text)));
}

/** A person's choice, or what is wrong with it. */
export function checkChoice(value: unknown): PageChoice | string {
  if (!isObject(value)) return "an answer is a JSON object";
  const { digest, choice, reason } = value;
  if (!isText(digest)) return "digest is the digest the page showed";
  if (!isText(choice) || !CHOICES.has(choice)) return `choice is one of ${[...CHOICES].join(", ")}`;
  if (reason !== undefined && (!isText(reason) || reason.length > MAX_REASON)) return `reason is a string of at most ${MAX_REASON} characters`;
  return { digest, choice, ...(isText(reason) && { reason }) };
}
