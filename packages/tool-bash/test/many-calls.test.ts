// 500 short calls back to back: each result whole (its output, both streams, in order), and no
// process of any of them left once they are done, each leaving a background process behind.
// Sandboxed ("required": without bwrap it fails) and not.
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBashTool } from "../src/index.js";
import { processesWith, tempFolder, textOf } from "./_helpers.js";

let dir: string;
let remove: () => void;
beforeEach(() => {
  ({ dir, remove } = tempFolder());
});
afterEach(() => remove());

const CALLS = 500;


describe("500 short calls back to back", { timeout: 600_000 }, () => {
  it.each(["off", "required"] as const)("sandbox %s: every result whole, no process left", async (sandbox) => {
    const token = `many${Math.floor(Math.random() * 1e9)}`;
    const tool = createBashTool({ cwd: dir, sandbox, killGraceMs: 200 });
    const never = new AbortController().signal;
    const wrong: string[] = [];
    for (let i = 0; i < CALLS; i++) {
      // A background process that outlives the shell, and output on both streams at the end.
      const command = `(sleep 60 # ${token}\n) & echo out-${i}; echo err-${i} >&2; printf end-${i}`;
      const result = await tool.execute(`call-${i}`, { command }, never, () => {}, undefined);
      const text = textOf(result);
      if (text !== `out-${i}\nend-${i}\n[stderr]\nerr-${i}` || result.isError) wrong.push(`${i}: ${JSON.stringify(text)}`);
      if (result.details.sandbox.enforced !== (sandbox === "required")) wrong.push(`${i}: sandboxed ${result.details.sandbox.enforced}`);
    }
    expect(wrong).toEqual([]);
    // The kernel reaps what was killed a moment later: a bounded wait, not a threshold.
    for (let i = 0; i < 100 && processesWith(token).length > 0; i++) await delay(100);
    expect(processesWith(token)).toEqual([]);
  });
});
