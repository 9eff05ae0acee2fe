import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type ModelMessage, type ToolApprovalResponse, generateText, stepCountIs } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolhostCallError, toolhostTools } from "../src/index.js";
import { PNG, workspace } from "./_helpers.js";
import { scriptedModel, toolOutputsIn } from "./_model.js";

let ws: Awaited<ReturnType<typeof workspace>>;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => {
  await ws.remove();
});

/** The answers the application gives to every approval request of a result. */
function answer(content: { type: string }[], approved: boolean, reason?: string): ToolApprovalResponse[] {
  return content
    .filter((part): part is { type: "tool-approval-request"; approvalId: string } & { type: string } => part.type === "tool-approval-request")
    .map((part) => ({ type: "tool-approval-response", approvalId: part.approvalId, approved, ...(reason && { reason }) }));
}

describe("toolhostTools", () => {
  it("hands out the harness's tools with their descriptions and parameters as plain JSON Schema", () => {
    const tools = toolhostTools(ws.harness);
    expect(Object.keys(tools).sort()).toEqual(["bash", "edit", "find", "grep", "ls", "read", "write"]);
    expect(tools.read?.description).toBe(ws.harness.getTool("read")?.description);
    const schema = (tools.read?.inputSchema as { jsonSchema: Record<string, unknown> }).jsonSchema;
    expect(schema).toMatchObject({ type: "object", properties: { path: { type: "string" } } });
    expect(Object.getOwnPropertySymbols(schema)).toEqual([]);
    expect(Object.keys(toolhostTools(ws.harness, { include: ["read", "gr*"] })).sort()).toEqual(["grep", "read"]);
    expect(Object.keys(toolhostTools({ harness: ws.harness }, { exclude: ["bash", "w*", "e*"] })).sort()).toEqual(["find", "grep", "ls", "read"]);
  });

  it("runs a read through the pipeline (the policy allows it) and gives the model its text", async () => {
    const { model, prompts } = scriptedModel([{ calls: [{ id: "r1", name: "read", input: { path: "notes.txt" } }] }, { text: "The notes say two things." }]);
    const result = await generateText({ model, tools: toolhostTools(ws.harness), prompt: "What do my notes say?", stopWhen: stepCountIs(4) });
    expect(result.text).toBe("The notes say two things.");
    const [toolResult] = result.steps[0]?.toolResults ?? [];
    expect(toolResult?.output).toMatchObject({ content: [{ type: "text", text: expect.stringContaining("second note") }] });
    expect(toolOutputsIn(prompts[1]).r1).toEqual({ type: "text", value: expect.stringContaining("first note") });
    // The call went through the kernel: its events were told.
    expect(ws.events.filter((event) => event.type === "tool_execution_end").map((event) => (event as { toolCallId: string }).toolCallId)).toEqual(["r1"]);
  });

  it("gives the model an image a tool returns as an image part", async () => {
    const { model, prompts } = scriptedModel([{ calls: [{ id: "img", name: "read", input: { path: "pic.png" } }] }, { text: "A tiny picture." }]);
    await generateText({ model, tools: toolhostTools(ws.harness), prompt: "Look at pic.png", stopWhen: stepCountIs(4) });
    expect(toolOutputsIn(prompts[1]).img).toEqual({
      type: "content",
      value: expect.arrayContaining([{ type: "image-data", data: PNG.toString("base64"), mediaType: "image/png" }]),
    });
  });

  it("refuses a call the policy denies: the model reads toolhost's reason as the tool's error output", async () => {
    const { model, prompts } = scriptedModel([{ calls: [{ id: "e1", name: "read", input: { path: ".env" } }] }, { text: "I may not read it." }]);
    const result = await generateText({ model, tools: toolhostTools(ws.harness), prompt: "Show .env", stopWhen: stepCountIs(4) });
    const error = result.steps[0]?.content.find((part) => part.type === "tool-error");
    expect(error?.type === "tool-error" && error.error).toBeInstanceOf(ToolhostCallError);
    expect((error as { error: ToolhostCallError }).error.code).toBe("TOOLHOST_BLOCKED");
    const seen = toolOutputsIn(prompts[1]).e1;
    expect(seen?.type).toBe("error-text");
    expect(seen?.value).toContain("Blocked by @toolhost/hooks-policy");
    expect(seen?.value).toContain(".env holds secrets");
    expect(String(seen?.value)).not.toContain("not-for-models");
  });

  it("turns the policy's ask into the SDK's approval request; an approval runs the call, via the application", async () => {
    const { model, prompts } = scriptedModel([
      { calls: [{ id: "t1", name: "bash", input: { command: "touch made.txt" } }] },
      { text: "Made it." },
    ]);
    const tools = toolhostTools(ws.harness);
    const messages: ModelMessage[] = [{ role: "user", content: "Make made.txt" }];
    const first = await generateText({ model, tools, messages, stopWhen: stepCountIs(4) });
    const requests = first.content.filter((part) => part.type === "tool-approval-request");
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ toolCall: { toolCallId: "t1", toolName: "bash", input: { command: "touch made.txt" } } });
    // Asking ran nothing.
    expect(existsSync(join(ws.dir, "made.txt"))).toBe(false);
    expect(ws.events.some((event) => event.type === "tool_execution_start")).toBe(false);

    messages.push(...first.response.messages, { role: "tool", content: answer(first.content, true, "the user clicked yes") });
    const second = await generateText({ model, tools, messages, stopWhen: stepCountIs(4) });
    expect(second.text).toBe("Made it.");
    expect(existsSync(join(ws.dir, "made.txt"))).toBe(true);
    const decision = ws.events.find((event) => event.type === "tool_execution_decision");
    expect(decision).toMatchObject({
      toolCallId: "t1",
      decision: "allow",
      by: "@toolhost/hooks-policy",
      approval: { approved: true, answeredBy: "@toolhost/ai-sdk", answer: { approved: true, via: "application", reason: "the user clicked yes" } },
    });
    expect(toolOutputsIn(prompts[1]).t1?.type).toBe("text");
  });

  it("an application that says no: the call never runs, and the model reads the denial", async () => {
    const { model, prompts } = scriptedModel([{ calls: [{ id: "t2", name: "bash", input: { command: "touch made.txt" } }] }, { text: "Understood." }]);
    const tools = toolhostTools(ws.harness);
    const messages: ModelMessage[] = [{ role: "user", content: "Make made.txt" }];
    const first = await generateText({ model, tools, messages, stopWhen: stepCountIs(4) });
    messages.push(...first.response.messages, { role: "tool", content: answer(first.content, false, "not today") });
    await generateText({ model, tools, messages, stopWhen: stepCountIs(4) });
    expect(existsSync(join(ws.dir, "made.txt"))).toBe(false);
    expect(ws.events.some((event) => event.type === "tool_execution_start")).toBe(false);
    expect(toolOutputsIn(prompts[1]).t2).toMatchObject({ type: "execution-denied", reason: "not today" });
  });

  it("an ask a locked layer holds stays refused when the application approves it", async () => {
    const { model, prompts } = scriptedModel([{ calls: [{ id: "rm1", name: "bash", input: { command: "rm notes.txt" } }] }, { text: "It was refused." }]);
    const tools = toolhostTools(ws.harness);
    const messages: ModelMessage[] = [{ role: "user", content: "Delete my notes" }];
    const first = await generateText({ model, tools, messages, stopWhen: stepCountIs(4) });
    expect(first.content.filter((part) => part.type === "tool-approval-request")).toHaveLength(1);
    messages.push(...first.response.messages, { role: "tool", content: answer(first.content, true) });
    const second = await generateText({ model, tools, messages, stopWhen: stepCountIs(4) });
    expect(readFileSync(join(ws.dir, "notes.txt"), "utf8")).toContain("first note");
    const seen = toolOutputsIn(prompts[1]).rm1;
    expect(seen?.type).toBe("error-text");
    expect(seen?.value).toContain("Not run");
    expect(seen?.value).toContain('locked policy layer "org"');
    const decision = ws.events.find((event) => event.type === "tool_execution_decision");
    expect(decision).toMatchObject({ decision: "ask", approval: { approved: false, answer: { via: "application" } } });
    expect(second.text).toBe("It was refused.");
  });

  it("an invalid call gets the pipeline's own error, with each problem", async () => {
    const { model, prompts } = scriptedModel([{ calls: [{ id: "bad", name: "read", input: { path: 42 } }] }, { text: "oops" }]);
    await generateText({ model, tools: toolhostTools(ws.harness), prompt: "read", stopWhen: stepCountIs(4) });
    const seen = toolOutputsIn(prompts[1]).bad;
    expect(seen?.type).toBe("error-text");
    expect(seen?.value).toContain('Invalid arguments for tool "read"');
  });
});
