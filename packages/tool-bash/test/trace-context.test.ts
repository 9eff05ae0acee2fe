import { AgentHarness } from "@toolhost/core";
import { afterEach, describe, expect, it } from "vitest";
import bashPlugin from "../src/index.js";
import { runBash, tempFolder } from "./_helpers.js";

// A call hands its trace context (core's `propagate` hook, read through `execution.carrier()`) to
// the programs it runs, in their environment as OpenTelemetry's environment carrier reads it.

const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
let cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const each of cleanup.splice(0).reverse()) await each();
});

async function harnessWith(sandbox: "auto" | "off"): Promise<AgentHarness> {
  const { dir, remove } = tempFolder();
  const harness = new AgentHarness({ cwd: dir });
  cleanup.push(remove, () => harness.dispose());
  await harness.use(bashPlugin, { sandbox: sandbox === "auto" ? "required" : "off" });
  harness.hooks.propagate.tap("test-trace", (carrier, ctx) => {
    carrier.traceparent = TRACEPARENT;
    carrier.tracestate = `call=${ctx.toolCall.id}`;
  });
  return harness;
}

describe.each(["off", "auto"] as const)("sandbox %s", (sandbox) => {
  it("puts the call's traceparent and tracestate in the command's environment", async () => {
    const harness = await harnessWith(sandbox);
    const { text, isError } = await runBash(harness, 'printf "%s|%s" "$TRACEPARENT" "$TRACESTATE"');
    expect(isError).toBe(false);
    expect(text.trim()).toBe(`${TRACEPARENT}|call=1`);
  });

  it("adds nothing when no one fills the carrier", async () => {
    const { dir, remove } = tempFolder();
    const harness = new AgentHarness({ cwd: dir });
    cleanup.push(remove, () => harness.dispose());
    await harness.use(bashPlugin, { sandbox: sandbox === "auto" ? "required" : "off" });
    const { text } = await runBash(harness, 'printf "[%s]" "${TRACEPARENT-unset}"');
    expect(text.trim()).toBe(process.env.TRACEPARENT === undefined ? "[unset]" : `[${process.env.TRACEPARENT}]`);
  });
});
