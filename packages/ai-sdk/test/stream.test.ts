import { existsSync } from "node:fs";
import { join } from "node:path";
import { type ModelMessage, stepCountIs, streamText } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toolhostTools } from "../src/index.js";
import { eventually, processesWith, workspace } from "./_helpers.js";
import { scriptedModel, toolOutputsIn } from "./_model.js";

let ws: Awaited<ReturnType<typeof workspace>>;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => {
  await ws.remove();
});

describe("streamText", () => {
  it("runs a read and streams its result", async () => {
    const { model, prompts } = scriptedModel([{ calls: [{ id: "s1", name: "read", input: { path: "notes.txt" } }] }, { text: "Two notes." }]);
    const result = streamText({ model, tools: toolhostTools(ws.harness), prompt: "Read my notes", stopWhen: stepCountIs(4) });
    const results = [];
    for await (const part of result.fullStream) if (part.type === "tool-result" && !part.preliminary) results.push(part);
    expect(await result.text).toBe("Two notes.");
    expect(results).toHaveLength(1);
    expect(results[0]?.output).toMatchObject({ content: [{ type: "text", text: expect.stringContaining("first note") }] });
    expect(toolOutputsIn(prompts[1]).s1?.value).toContain("second note");
  });

  it("asks through the SDK's approval request, and runs the call once the application approves it", async () => {
    const { model } = scriptedModel([{ calls: [{ id: "s2", name: "bash", input: { command: "touch streamed.txt" } }] }, { text: "Done." }]);
    const tools = toolhostTools(ws.harness);
    const messages: ModelMessage[] = [{ role: "user", content: "touch it" }];
    const first = streamText({ model, tools, messages, stopWhen: stepCountIs(4) });
    const requests = [];
    for await (const part of first.fullStream) if (part.type === "tool-approval-request") requests.push(part);
    expect(requests.map((part) => part.toolCall.toolCallId)).toEqual(["s2"]);
    expect(existsSync(join(ws.dir, "streamed.txt"))).toBe(false);
    messages.push(...(await first.response).messages, {
      role: "tool",
      content: requests.map((part) => ({ type: "tool-approval-response" as const, approvalId: part.approvalId, approved: true })),
    });
    const second = streamText({ model, tools, messages, stopWhen: stepCountIs(4) });
    expect(await second.text).toBe("Done.");
    expect(existsSync(join(ws.dir, "streamed.txt"))).toBe(true);
  });

  it("streams a command's output as preliminary results; aborting the SDK's call ends the command's whole process tree", async () => {
    // A marker no other process has: the tree's processes are found by it in /proc.
    const marker = `301.${process.pid}${Date.now() % 100_000}`;
    const command = `echo started; sleep ${marker} & (sleep ${marker}; echo never) & sleep ${marker}`;
    const { model } = scriptedModel([{ calls: [{ id: "s3", name: "bash", input: { command } }] }, { text: "unreachable" }]);
    const controller = new AbortController();
    const result = streamText({ model, tools: toolhostTools(ws.harness), prompt: "sleep", abortSignal: controller.signal, stopWhen: stepCountIs(4) });
    let preliminary: unknown;
    let running: number[] = [];
    let failure: unknown;
    try {
      for await (const part of result.fullStream) {
        if (part.type === "tool-result" && part.preliminary && preliminary === undefined) {
          preliminary = part.output;
          await eventually(() => processesWith(marker).length >= 3, "the command's three sleeps to start");
          running = processesWith(marker);
          controller.abort();
        }
      }
    } catch (error) {
      failure = error;
    }
    expect(preliminary).toMatchObject({ content: [{ type: "text", text: expect.stringContaining("started") }] });
    expect(running.length).toBeGreaterThanOrEqual(3);
    // The SDK reports the abort its own way (an abort part, or the stream ends with an AbortError).
    expect(failure === undefined || (failure as Error).name === "AbortError").toBe(true);
    await eventually(() => processesWith(marker).length === 0, `the processes ${running.join(", ")} to end`);
    const end = ws.events.find((event) => event.type === "tool_execution_end");
    expect(end).toMatchObject({ toolCallId: "s3", isError: true, result: { details: { code: "TOOLHOST_ABORTED" } } });
  });
});
