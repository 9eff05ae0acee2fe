import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { ToolhostError, messageOf } from "@toolhost/core";
import { QueueErrorCode } from "./errors.js";

/** The least length of a key: 32 characters (`openssl rand -hex 32` gives 64). */
const MIN_KEY_LENGTH = 32;
/** What a signature signs, so that a job's signature never passes as a reply's and back. */
export type SignedKind = "job" | "reply";

/** The keys a host signs with (the first) and a worker accepts (every one), by their ids. */
export interface Keyring {
  /** Where the keys came from, for messages (`TOOLHOST_QUEUE_KEY`, `/etc/toolhost/queue.key`). */
  source: string;
  keys: Array<{ id: string; secret: Buffer }>;
}

/** Why a signed text was refused: the result's code and a sentence that says what to do. */
export interface Refusal {
  code: string;
  reason: string;
}

/**
 * JSON with every object's keys in sorted order (UTF-16 code units, as RFC 8785) and no spaces, so
 * that the text a host signs is the text any implementation makes again from the same value.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  });
}

/**
 * Reads the keys: from `keyFile` (relative to `baseDir`; readable by its owner only) when given,
 * else from the variable `keyEnv`. Several keys (separated by spaces, commas or lines; `#` starts a
 * comment line in a file) are a rotation: the first signs, every one verifies. Undefined when
 * neither holds a key; a key too short, or a file others can read, is an error.
 */
export function readKeyring(option: { keyEnv: string; keyFile?: string | undefined }, baseDir: string): Keyring | undefined {
  if (option.keyFile !== undefined) {
    const file = resolve(baseDir, option.keyFile);
    return keyringOf(readKeyFile(file), file);
  }
  const text = process.env[option.keyEnv];
  if (text === undefined || text.trim() === "") return undefined;
  return keyringOf(text, `the variable ${option.keyEnv}`);
}

function readKeyFile(file: string): string {
  let text: string;
  try {
    const { mode } = statSync(file);
    if ((mode & 0o077) !== 0) {
      throw new ToolhostError(
        QueueErrorCode.BAD_KEY,
        `The queue's key file ${file} can be read or written by other users (mode ${(mode & 0o777).toString(8)}): run chmod 600 ${file}, and give a new key to the hosts and workers if others may have read it.`,
      );
    }
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (error instanceof ToolhostError) throw error;
    throw new ToolhostError(QueueErrorCode.BAD_KEY, `Could not read the queue's key file ${file}: ${messageOf(error)}. Fix signing.keyFile, or write a key there (openssl rand -hex 32 > ${file}; chmod 600 ${file}).`);
  }
  return text
    .split("\n")
    .filter((line) => !line.trim().startsWith("#"))
    .join("\n");
}

function keyringOf(text: string, source: string): Keyring {
  const secrets = text.split(/[\s,]+/).filter((part) => part !== "");
  if (secrets.length === 0) throw new ToolhostError(QueueErrorCode.BAD_KEY, `${source} holds no key. Write one there (openssl rand -hex 32).`);
  const keys = secrets.map((secret, index) => {
    if (secret.length < MIN_KEY_LENGTH) {
      throw new ToolhostError(
        QueueErrorCode.BAD_KEY,
        `Key ${index + 1} of ${source} is ${secret.length} characters long; a queue key needs at least ${MIN_KEY_LENGTH} (make one with openssl rand -hex 32).`,
      );
    }
    return { id: keyId(secret), secret: Buffer.from(secret, "utf8") };
  });
  return { source, keys };
}

/** A key's public name: the head of its SHA-256, safe to print and to put in a job. */
function keyId(secret: string): string {
  return createHash("sha256").update(`toolhost-queue-key\n${secret}`).digest("hex").slice(0, 12);
}

/**
 * `v1.<key id>.<base64url HMAC-SHA256>` of `text`, with the keyring's first key, or with the key
 * `keyId` when the ring holds it (a worker answers with the key the job was signed with, so that a
 * host that has not got the newest key yet can check the answer while keys rotate).
 */
export function sign(keyring: Keyring, kind: SignedKind, text: string, keyId?: string): string {
  const key = keyring.keys.find((candidate) => candidate.id === keyId) ?? (keyring.keys[0] as Keyring["keys"][number]);
  return `v1.${key.id}.${mac(key.secret, kind, text)}`;
}

/** Who checks a signature and who made it, for the refusal's words ("this worker", "the host that sent it (id)"). */
export interface Sides {
  here: "this worker" | "this host";
  there: string;
}

/** Checks a signature made by `sign` with any key of the ring; the refusal when it does not hold. */
export function verify(keyring: Keyring, kind: SignedKind, text: string, signature: unknown, sides: Sides): Refusal | undefined {
  const what = kind === "job" ? "it" : "the answer";
  if (typeof signature !== "string" || signature === "") {
    const fix =
      sides.here === "this worker"
        ? `give that host the key this worker holds (set TOOLHOST_QUEUE_KEY in its environment, or signing.keyFile in its queue plugin's options)`
        : `give that worker the key this host holds (TOOLHOST_QUEUE_KEY or --key-file), instead of running it with --no-auth`;
    return {
      code: QueueErrorCode.JOB_UNSIGNED,
      reason: `${what} carries no signature: ${sides.there} holds no queue key, while ${sides.here} holds one (key ${keyIds(keyring).join(", ")} from ${keyring.source}); ${fix}`,
    };
  }
  const [version, id, given, ...rest] = signature.split(".");
  if (version !== "v1" || id === undefined || given === undefined || rest.length > 0) {
    return { code: QueueErrorCode.JOB_SIGNATURE_INVALID, reason: `${what} has a signature not of the form v1.<key id>.<mac>` };
  }
  const key = keyring.keys.find((candidate) => candidate.id === id);
  if (!key) {
    const held = keyring.keys.map((candidate) => candidate.id).join(", ");
    return {
      code: QueueErrorCode.JOB_SIGNATURE_INVALID,
      reason: `${what} is signed with key ${id.slice(0, 12)} by ${sides.there}, which ${sides.here} does not hold (it holds ${held} from ${keyring.source}): give every host and worker the same key, or list the new and the old key while rotating`,
    };
  }
  const expected = Buffer.from(mac(key.secret, kind, text));
  const actual = Buffer.from(given);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
    return { code: QueueErrorCode.JOB_SIGNATURE_INVALID, reason: `${what} has a signature that does not match its content (key ${id}): it was changed after it was signed, or signed by someone without the key` };
  }
  return undefined;
}

function mac(secret: Buffer, kind: SignedKind, text: string): string {
  return createHmac("sha256", secret).update(`toolhost-${kind}\n`).update(text).digest("base64url");
}

/**
 * What a worker's refusal names of a job it refused before trusting it: the signature its text
 * would carry under the key its signature names (or this worker's first key). It equals the job's
 * signature only when the text is the one the host signed, so a host takes the refusal for its own
 * job and not for a forged one that borrows its nonce. "" for a worker without a key.
 */
export function refusedMark(keyring: Keyring | undefined, job: { text: string; sig: string }): string {
  return keyring ? sign(keyring, "job", job.text, signatureKeyId(job.sig === "" ? undefined : job.sig)) : "";
}

/**
 * Whether a worker's refusal (its `refusedMark`) is of the job this host signed as `sig`: it is
 * when the marks agree; when the worker could not have checked this host's key (it holds none,
 * or another), the refusal stands for every job it gets, this host's too.
 */
export function refusesOwnJob(keyring: Keyring | undefined, sig: string, mark: unknown): boolean {
  if (!keyring || mark === "") return true;
  if (typeof mark !== "string") return false;
  if (mark === sig) return true;
  const id = signatureKeyId(mark);
  return id === undefined || !keyring.keys.some((key) => key.id === id);
}

/** The key id a signature names, if it has the form `sign` makes. */
export function signatureKeyId(signature: string | undefined): string | undefined {
  const [version, id] = signature?.split(".") ?? [];
  return version === "v1" ? id : undefined;
}

/** The ids of a keyring's keys, for health reports. */
export function keyIds(keyring: Keyring): string[] {
  return keyring.keys.map((key) => key.id);
}
