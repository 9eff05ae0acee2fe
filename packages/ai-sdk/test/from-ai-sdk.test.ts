import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type ModelMessage, generateText, jsonSchema, stepCountIs, tool } from "ai";
import { z } from "zod";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fromAiSdkTools, toolhostTools } from "../src/index.js";
import { workspace } from "./_helpers.js";
import { scriptedModel, toolOutputsIn } from "./_model.js";

let ws: Awaited<ReturnType<typeof workspace>>;
let ran: string[];
beforeEach(async () => {
  ws = await workspace();
  ran = [];
});
afterEach(async () => {
  await ws.remove();
});

/** AI SDK tools as an application writes them: zod schemas, a write to a path, one that needs approval. */
function appTools(dir: string) {
  return {
    saveNote: tool({
      description: "Saves a note to a file.",
      inputSchema: z.object({ path: z.string(), text: z.string().max(200) }),
      execute: async ({ path, text }) => {
        ran.push(`saveNote ${path}`);
        const file = join(dir, path);
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, text);
        return `saved ${text.length} characters to ${path}`;
      },
    }),
    weather: tool({
      description: "The weather in a city.",
      inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
      execute: async ({ city }) => {
        ran.push(`weather ${city}`);
        return { city, forecast: "sunny", celsius: 21 };
      },
    }),
    sendMail: tool({
      description: "Sends an e-mail.",
      inputSchema: z.object({ to: z.string() }),
      needsApproval: true,
      execute: async ({ to }) => {
        ran.push(`sendMail ${to}`);
        return `sent to ${to}`;
      },
    }),
  };
}

describe("fromAiSdkTools", () => {
  it("registers AI SDK tools judged by the policy's path rules on the access the user maps", async () => {
    await ws.harness.use(fromAiSdkTools(appTools(ws.dir), { access: { saveNote: { writes: ["path"] }, weather: { annotations: { readOnly: true } } } }));
    const [denied, allowed, forecast] = await ws.harness.executeToolCalls([
      { id: "n1", name: "saveNote", arguments: { path: "secret/plan.txt", text: "the plan" } },
      { id: "n2", name: "saveNote", arguments: { path: "notes/today.txt", text: "buy milk" } },
      { id: "w1", name: "weather", arguments: { city: "Lisbon" } },
    ]);
    expect(denied?.isError).toBe(true);
    expect(denied?.details).toMatchObject({ code: "TOOLHOST_BLOCKED", blockedBy: "@toolhost/hooks-policy" });
    expect(denied?.content[0]).toMatchObject({ text: expect.stringContaining("secret/ is not for notes") });
    expect(existsSync(join(ws.dir, "secret", "plan.txt"))).toBe(false);
    expect(allowed?.content).toEqual([{ type: "text", text: "saved 8 characters to notes/today.txt" }]);
    expect(readFileSync(join(ws.dir, "notes", "today.txt"), "utf8")).toBe("buy milk");
    expect(forecast?.content).toEqual([{ type: "text", text: '{"city":"Lisbon","forecast":"sunny","celsius":21}' }]);
    expect(ran).toEqual(["saveNote notes/today.txt", "weather Lisbon"]);
    // Scheduling follows the hints: a tool that may write runs alone; a read-only one beside others.
    expect(ws.harness.getTool("saveNote")?.executionMode).toBe("sequential");
    expect(ws.harness.getTool("weather")?.executionMode).toBe("parallel");
  });

  it("validates with the tool's own schema before the policy is asked", async () => {
    await ws.harness.use(fromAiSdkTools(appTools(ws.dir), { access: { saveNote: { writes: ["path"] } } }));
    const [result] = await ws.harness.executeToolCalls([{ id: "v1", name: "saveNote", arguments: { path: "a.txt", text: "x".repeat(300) } }]);
    expect(result?.details).toMatchObject({ code: "TOOLHOST_INVALID_ARGUMENTS" });
    expect(result?.content[0]).toMatchObject({ text: expect.stringContaining('the input does not match the schema of "saveNote"') });
    expect(ran).toEqual([]);
    expect(ws.events.some((event) => event.type === "tool_execution_decision")).toBe(false);
  });

  it("a tool's own needsApproval is an ask toolhost's approvers answer; through toolhostTools it is the SDK's approval again", async () => {
    await ws.harness.use(fromAiSdkTools(appTools(ws.dir)));
    const [unasked] = await ws.harness.executeToolCalls([{ id: "m1", name: "sendMail", arguments: { to: "ada@example.com" } }]);
    expect(unasked?.details).toMatchObject({ code: "TOOLHOST_NOT_APPROVED", blockedBy: "@toolhost/ai-sdk" });
    expect(ran).toEqual([]);

    const { model, prompts } = scriptedModel([{ calls: [{ id: "m2", name: "sendMail", input: { to: "ada@example.com" } }] }, { text: "Sent." }]);
    const tools = toolhostTools(ws.harness, { include: ["sendMail"] });
    const messages: ModelMessage[] = [{ role: "user", content: "mail Ada" }];
    const first = await generateText({ model, tools, messages, stopWhen: stepCountIs(4) });
    const request = first.content.find((part) => part.type === "tool-approval-request");
    expect(request).toBeDefined();
    messages.push(...first.response.messages, {
      role: "tool",
      content: [{ type: "tool-approval-response", approvalId: (request as { approvalId: string }).approvalId, approved: true }],
    });
    await generateText({ model, tools, messages, stopWhen: stepCountIs(4) });
    expect(ran).toEqual(["sendMail ada@example.com"]);
    expect(toolOutputsIn(prompts[1]).m2).toEqual({ type: "text", value: "sent to ada@example.com" });
  });

  it("refuses at load what it cannot run or what the mapping gets wrong, naming the fix", async () => {
    const clientSide = { confirm: tool({ description: "Asks the user.", inputSchema: z.object({ question: z.string() }) }) };
    await expect(ws.harness.use(fromAiSdkTools(clientSide))).rejects.toMatchObject({ code: "TOOLHOST_AI_SDK_NOT_RUNNABLE", message: expect.stringContaining('exclude: ["confirm"]') });
    await expect(ws.harness.use(fromAiSdkTools(appTools(ws.dir), { access: { saveNot: { writes: ["path"] } } }))).rejects.toMatchObject({
      code: "TOOLHOST_AI_SDK_INVALID_ACCESS",
      message: expect.stringContaining('did you mean "saveNote"'),
    });
    await expect(ws.harness.use(fromAiSdkTools(appTools(ws.dir), { access: { saveNote: { writes: "path" as never } } }))).rejects.toMatchObject({
      code: "TOOLHOST_AI_SDK_INVALID_ACCESS",
      message: expect.stringContaining("writes must be a list"),
    });
  });
});
