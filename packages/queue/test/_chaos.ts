import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentHarness, ToolCall, ToolResultMessage } from "@toolhost/core";
import { Redis } from "ioredis";
import { expect } from "vitest";
import { codeOf, textOf } from "./_helpers.js";

/**
 * The chaos tests' tools, for workers: `chaos_write` says nothing of itself (at most once),
 * `chaos_read` says it only reads (it may run again). Each run appends "<call id> <pid>" to
 * runs.log in the worker's folder, sleeps `ms`, and answers "done <call id>".
 */
export function writeChaosPlugin(dir: string): string {
  const file = join(dir, "chaos-plugin.mjs");
  writeFileSync(
    file,
    `import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { definePlugin, Type } from "@toolhost/core";
export default definePlugin({
  name: "chaos",
  apply(harness) {
    const log = join(harness.cwd, "runs.log");
    const run = async (id, ms, signal) => {
      appendFileSync(log, id + " " + process.pid + "\\n");
      if (ms > 0) await new Promise((resolve) => { const t = setTimeout(resolve, ms); signal?.addEventListener("abort", () => { clearTimeout(t); resolve(); }); });
      return { content: [{ type: "text", text: "done " + id }], details: {} };
    };
    const parameters = Type.Object({ ms: Type.Number(), tag: Type.Optional(Type.String()) });
    harness.registerTool({ name: "chaos_write", label: "Write", description: "Writes (at most once).", parameters, async execute(id, { ms }, signal) { return run(id, ms, signal); } });
    harness.registerTool({ name: "chaos_read", label: "Read", description: "Reads (may run again).", parameters, annotations: { readOnly: true }, async execute(id, { ms }, signal) { return run(id, ms, signal); } });
  },
});
`,
  );
  return file;
}

/** How many times each call id ran, from the workers' runs.log. */
export function runsOf(workerDir: string): Map<string, number> {
  const file = join(workerDir, "runs.log");
  const runs = new Map<string, number>();
  if (!existsSync(file)) return runs;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line === "") continue;
    const id = line.slice(0, line.lastIndexOf(" "));
    runs.set(id, (runs.get(id) ?? 0) + 1);
  }
  return runs;
}

/** The calls of a mix: `count` calls, every third a write (at most once), the rest reads, each `ms` long. */
export function mix(prefix: string, count: number, ms: number): ToolCall[] {
  return Array.from({ length: count }, (_, i) => ({ id: `${prefix}-${i}`, name: i % 3 === 0 ? "chaos_write" : "chaos_read", arguments: { ms } }));
}

/** Counts the answers the harness gave each call id (`tool_execution_end` events). */
export function countAnswers(harness: AgentHarness): Map<string, number> {
  const answers = new Map<string, number>();
  harness.subscribe((event) => {
    if (event.type === "tool_execution_end") answers.set(event.toolCallId, (answers.get(event.toolCallId) ?? 0) + 1);
  });
  return answers;
}

/** What may answer a call of each delivery when things fail: "may or may not have run" codes. */
const MAYBE_RAN = ["TOOLHOST_QUEUE_WORKER_LOST", "TOOLHOST_QUEUE_CONNECTION_LOST"];

/**
 * The promise, checked: every call has exactly one answer (one result, one end event per call);
 * an answer that says done is the call's own; a call that may not run twice ran at most once (and
 * once when its answer says done); a retryable call that says done ran; any other answer is one
 * that says the call may or may not have run, or a refusal of a call that did not run.
 */
export function expectEveryPromiseKept(calls: ToolCall[], results: ToolResultMessage[], runs: Map<string, number>, answers: Map<string, number>, extra: string[] = []): void {
  expect(results).toHaveLength(calls.length);
  const perId = new Map<string, number>();
  for (const call of calls) perId.set(call.id, (perId.get(call.id) ?? 0) + 1);
  for (const [id, count] of perId) expect(answers.get(id) ?? 0, `answers of ${id}`).toBe(count);
  for (const [i, call] of calls.entries()) {
    const result = results[i]!;
    expect(result.toolCallId).toBe(call.id);
    const ran = runs.get(call.id) ?? 0;
    if (!result.isError) expect(textOf(result), call.id).toBe(`done ${call.id}`);
    if (call.name === "chaos_write") {
      expect(ran, `runs of ${call.id}`).toBeLessThanOrEqual(1);
      if (!result.isError) expect(ran, `runs of ${call.id}`).toBe(1);
    } else if (!result.isError) {
      expect(ran, `runs of ${call.id}`).toBeGreaterThanOrEqual(1);
    }
    if (result.isError) expect([...MAYBE_RAN, ...extra], `${call.id}: ${textOf(result)}`).toContain(codeOf(result));
  }
}

/** How many calls ended how (a code, or "done"), and how many ran twice: what the chaos did. */
export function outcomes(results: ToolResultMessage[], runs: Map<string, number>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const result of results) {
    const key = result.isError ? String(codeOf(result)) : "done";
    counts[key] = (counts[key] ?? 0) + 1;
  }
  counts["ran twice"] = [...runs.values()].filter((count) => count > 1).length;
  return counts;
}

/** Waits until no job of the queue is pending in its consumer group nor left in its stream (workers finish what they hold). */
export async function untilNothingPending(port: number, queues: string[], prefix = "toolhost"): Promise<void> {
  const redis = new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: 1 });
  try {
    for (const queue of queues) {
      const jobs = `{${prefix}:${queue}}:jobs`;
      for (;;) {
        const [pending] = (await redis.xpending(jobs, "workers").catch(() => [0])) as [number];
        const length = await redis.xlen(jobs);
        if (pending === 0 && length === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    redis.disconnect();
  }
}
