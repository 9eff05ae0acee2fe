import { AgentHarness } from "@toolhost/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import bashPlugin from "../src/index.js";
import { tempFolder, textOf } from "./_helpers.js";

let dir: string;
let remove: () => void;
beforeEach(() => {
  ({ dir, remove } = tempFolder());
});
afterEach(() => remove());

/**
 * Busy-waits on the event loop now and then, as a loaded machine does: timers then come due
 * together with the pipes' data, the order in which a call that stops reading too early loses its
 * output. No duration is asserted.
 */
function hogEventLoop(): () => void {
  const timer = setInterval(() => {
    const until = Date.now() + 120;
    while (Date.now() < until) {
      // Nothing: the loop is held.
    }
  }, 30);
  return () => clearInterval(timer);
}

describe("many calls at once", { timeout: 240_000 }, () => {
  // "required": without a working bwrap every call is refused, and the test fails.
  it.each(["required", "off"] as const)("sandbox %s: each returns its own whole output, also when the event loop is held while they end", async (sandbox) => {
    const harness = new AgentHarness({ cwd: dir });
    await harness.use(bashPlugin, { executionMode: "parallel", sandbox });
    const calls = Array.from({ length: 24 }, (_, index) => ({
      id: `call-${index}`,
      name: "bash",
      // Quiet for a while, then output on both streams just before the end.
      arguments: { command: `sleep 0.${3 + (index % 5)}; echo out-${index}; echo err-${index} >&2; printf 'tail-${index}'` },
    }));
    const release = hogEventLoop();
    let results: Awaited<ReturnType<typeof harness.executeToolCalls>>;
    try {
      results = await harness.executeToolCalls(calls);
    } finally {
      release();
    }
    expect(results.map((result) => [result.toolCallId, textOf(result as never), result.isError ?? false])).toEqual(
      calls.map((call, index) => [call.id, `out-${index}\ntail-${index}\n[stderr]\nerr-${index}`, false]),
    );
    for (const result of results) expect(result.details).toMatchObject({ sandbox: { mode: sandbox, enforced: sandbox === "required" } });
    await harness.dispose();
  });
});
