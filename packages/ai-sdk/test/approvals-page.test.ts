import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import approvalsPlugin from "@toolhost/approvals";
import { type ApprovalsPageServer, type PageRecord, pageFilePath, serveApprovals } from "@toolhost/approvals/page";
import { generateText, stepCountIs } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AiSdkErrorCode, toolhostTools } from "../src/index.js";
import { workspace } from "./_helpers.js";
import { scriptedModel, toolOutputsIn } from "./_model.js";

// An application on a server asks through the user's approvals page: the page of
// @toolhost/approvals, served here, answered through its own answer endpoint as the page's script does.

let ws: Awaited<ReturnType<typeof workspace>>;
let page: ApprovalsPageServer;
let home: string;
beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "toolhost-ai-sdk-page-"));
  process.env.XDG_CONFIG_HOME = home;
  ws = await workspace();
  await ws.harness.use(approvalsPlugin, { timeout: 60 });
  page = await serveApprovals({ host: "127.0.0.1", port: 0, token: "t0ken-for-this-test", askerToken: "askers-t0ken", file: pageFilePath() });
});
afterEach(async () => {
  await page.close();
  await ws.remove();
  rmSync(home, { recursive: true, force: true });
  delete process.env.XDG_CONFIG_HOME;
});

function call(method: string, path: string, body?: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, page.url), { method, headers: { authorization: "Bearer t0ken-for-this-test", "content-type": "application/json" } }, (response) => {
      let text = "";
      response.setEncoding("utf8").on("data", (chunk: string) => {
        text += chunk;
        // The event stream's first event is the whole list.
        if (path === "events" && text.includes("\n\n")) {
          req.destroy();
          resolve(text);
        }
      });
      response.on("end", () => resolve(text));
    });
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function pendingAsk(): Promise<PageRecord> {
  for (;;) {
    const text = await call("GET", "events");
    const records = JSON.parse(/^event: snapshot\ndata: (.*)$/m.exec(text)?.[1] ?? "[]") as PageRecord[];
    const pending = records.find((record) => record.state === "pending");
    if (pending) return pending;
    await delay(25);
  }
}

describe('toolhostTools(…, { approvals: "page" })', () => {
  it("asks no approval of the application: the call waits on the page, runs once approved, and the model reads its output", async () => {
    const { model, prompts } = scriptedModel([{ calls: [{ id: "t1", name: "bash", input: { command: "touch made.txt && echo made" } }] }, { text: "Made it." }]);
    const running = generateText({ model, tools: toolhostTools(ws.harness, { approvals: "page" }), prompt: "make it", stopWhen: stepCountIs(4) });
    const ask = await pendingAsk();
    expect(ask.ask.preview.commands.map((each) => each.command)).toEqual(["touch made.txt && echo made"]);
    expect(ask.ask.parts.flatMap((part) => part.rules.map((rule) => rule.id))).toContain("ask-touch");
    expect(existsSync(join(ws.dir, "made.txt"))).toBe(false);
    await call("POST", `asks/${ask.id}/answer`, { digest: ask.ask.digest, choice: "once" });
    const result = await running;
    expect(result.steps[0]?.content.some((part) => part.type === "tool-approval-request")).toBe(false);
    expect(existsSync(join(ws.dir, "made.txt"))).toBe(true);
    expect(toolOutputsIn(prompts[1]).t1).toEqual({ type: "text", value: expect.stringContaining("made") });
  });

  it("gives the model the person's reason when they refuse", async () => {
    const { model, prompts } = scriptedModel([{ calls: [{ id: "t2", name: "bash", input: { command: "touch other.txt" } }] }, { text: "I will not." }]);
    const running = generateText({ model, tools: toolhostTools(ws.harness, { approvals: "page" }), prompt: "touch it", stopWhen: stepCountIs(4) });
    const ask = await pendingAsk();
    await call("POST", `asks/${ask.id}/answer`, { digest: ask.ask.digest, choice: "deny", reason: "not on a Friday" });
    await running;
    expect(existsSync(join(ws.dir, "other.txt"))).toBe(false);
    expect(JSON.stringify(toolOutputsIn(prompts[1]).t2)).toContain("it was refused on the approvals page: not on a Friday");
  });

  it("is refused, with the fix, on a harness without the approvals plugin", async () => {
    const other = await workspace();
    try {
      expect(() => toolhostTools(other.harness, { approvals: "page" })).toThrow(expect.objectContaining({ code: AiSdkErrorCode.NO_APPROVALS_PAGE, message: expect.stringContaining('add "@toolhost/approvals"') }));
    } finally {
      await other.remove();
    }
  });
});
