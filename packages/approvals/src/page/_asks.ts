import { randomUUID } from "node:crypto";
import type { AlwaysChoice, PageAnswer, PageAsk, PageRecord } from "../wire.js";

/*
 * The page's asks: pending ones until they are answered, time out or are withdrawn (the asking
 * process stopped the call or went away), and the answered ones after, newest kept. An ask is
 * answered once: the first answer takes it out of `pending` before anything is awaited, and every
 * later one is refused. Each change is told to the page's open event streams.
 */

/** How many answered asks stay listed. */
const KEEP_ANSWERED = 200;
/** How many asks may wait at once, and session approvals be kept: past them a new one is refused. */
export const MAX_PENDING = 1_000;
const MAX_SESSIONS = 10_000;
/** What the listed asks may hold in all, in bytes of their bodies: past it a new ask is refused. */
export const MAX_HELD_BYTES = 256 * 1024 * 1024;

/** One ask held by the store. */
export interface HeldAsk {
  readonly record: PageRecord;
  readonly ask: PageAsk;
  /** The session's scope key: a later ask of the same session with the same key is approved for the session. */
  readonly sessionKey: string;
  /** Hands the answer to the asker; false when it is no longer there to take it. */
  readonly deliver: (answer: PageAnswer) => boolean;
  /** The size of the ask's body, counted against `MAX_HELD_BYTES` while it is listed. */
  readonly bytes: number;
  timer?: NodeJS.Timeout;
}

/** What adding an ask needs besides the ask. */
export interface NewAsk {
  ask: PageAsk;
  sessionKey: string;
  sessionText: string;
  always: AlwaysChoice[];
  deadlineMs: number;
  deliver: (answer: PageAnswer) => boolean;
  bytes: number;
}

export class AskStore {
  readonly #held = new Map<string, HeldAsk>();
  readonly #listeners = new Set<(record: PageRecord) => void>();
  /** Session keys approved for their session, with the ask that approved them. */
  readonly #sessions = new Map<string, { number: number; by: string }>();
  #next = 1;
  #bytes = 0;

  /** Whether an ask of `bytes` more may be listed. */
  hasRoom(bytes: number): boolean {
    return this.pendingCount() < MAX_PENDING && this.#bytes + bytes <= MAX_HELD_BYTES;
  }

  /** Adds an ask; one its session approved already is answered at once. */
  add(added: NewAsk): HeldAsk {
    const now = Date.now();
    const record: PageRecord = {
      id: randomUUID(),
      number: this.#next++,
      received: new Date(now).toISOString(),
      deadline: new Date(now + added.deadlineMs).toISOString(),
      state: "pending",
      ask: withoutCall(added.ask),
      sessionText: added.sessionText,
      always: added.always,
    };
    const held: HeldAsk = { record, ask: added.ask, sessionKey: added.sessionKey, deliver: added.deliver, bytes: added.bytes };
    this.#held.set(record.id, held);
    this.#bytes += added.bytes;
    this.#trim();
    const approvedBefore = this.#sessions.get(added.sessionKey);
    if (approvedBefore !== undefined) {
      this.settle(held, { outcome: "approved", approved: true, scope: "session", by: `approved for this session with ask ${approvedBefore.number} (${approvedBefore.by})` });
      return held;
    }
    held.timer = setTimeout(() => this.settle(held, { outcome: "timed out", approved: false, reason: "no one answered in time" }), added.deadlineMs);
    held.timer.unref();
    this.#tell(record);
    return held;
  }

  /** How many asks wait for an answer. */
  pendingCount(): number {
    let count = 0;
    for (const held of this.#held.values()) if (held.record.state !== "answered") count += 1;
    return count;
  }

  get(id: string): HeldAsk | undefined {
    return this.#held.get(id);
  }

  /** Takes a pending ask for answering (synchronously: a second answer finds it taken), or says why not. */
  take(id: string): HeldAsk | string {
    const held = this.#held.get(id);
    if (held === undefined) return "there is no such ask (it may have been answered long ago)";
    if (held.record.state !== "pending") return held.record.answer ? `it was answered already (${held.record.answer.outcome}${held.record.answer.by ? `, ${held.record.answer.by}` : ""})` : "it is being answered";
    held.record.state = "answering";
    clearTimeout(held.timer);
    this.#tell(held.record);
    return held;
  }

  /** Ends an ask with its answer, hands it to the asker, and lists it answered. */
  settle(held: HeldAsk, answer: Omit<PageAnswer, "id" | "digest" | "at">): void {
    if (held.record.state === "answered") return;
    clearTimeout(held.timer);
    const full: PageAnswer = { id: held.record.id, digest: held.ask.digest, at: new Date().toISOString(), ...answer };
    held.record.state = "answered";
    held.record.answer = full;
    if (full.approved && full.scope === "session" && !this.#sessions.has(held.sessionKey) && this.#sessions.size < MAX_SESSIONS) {
      this.#sessions.set(held.sessionKey, { number: held.record.number, by: full.by ?? "on the page" });
    }
    if (!held.deliver(full) && full.outcome !== "withdrawn") held.record.undelivered = true;
    this.#tell(held.record);
  }

  /** Every ask listed, oldest first. */
  list(): PageRecord[] {
    return [...this.#held.values()].map((held) => held.record);
  }

  /** Calls `listener` with each changed record; returns the unsubscribe. */
  subscribe(listener: (record: PageRecord) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Ends every pending ask (the page is stopping). */
  close(): void {
    for (const held of this.#held.values()) {
      if (held.record.state !== "answered") this.settle(held, { outcome: "withdrawn", approved: false, reason: "the approvals page stopped" });
    }
  }

  #tell(record: PageRecord): void {
    for (const listener of this.#listeners) listener(record);
  }

  #trim(): void {
    const answered = [...this.#held.values()].filter((held) => held.record.state === "answered");
    for (const held of answered.slice(0, Math.max(0, answered.length - KEEP_ANSWERED))) {
      this.#held.delete(held.record.id);
      this.#bytes -= held.bytes;
    }
  }
}

function withoutCall(ask: PageAsk): Omit<PageAsk, "call"> {
  const { call: _call, ...shown } = ask;
  return shown;
}
