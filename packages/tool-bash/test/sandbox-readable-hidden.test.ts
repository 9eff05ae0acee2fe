// The policy's secret names (`.env` and the like) are hidden in every folder a confined call can
// read under the minimal root: the workspace, the writable folders, a `readable` folder, /etc.
// Real bubblewrap, the real hooks-policy (`recommended`), real files.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentHarness } from "@toolhost/core";
import policyPlugin from "@toolhost/hooks-policy";
import { beforeEach, describe, expect, it } from "vitest";
import bashPlugin, { type BashToolDetails } from "../src/index.js";
import { cleanupsAfterEach, tempFolder, textOf } from "./_helpers.js";

const SECRET = "SECRET_IN_READABLE_5150";
let ws: string;
let shared: string;
const cleanups = cleanupsAfterEach();
beforeEach(() => {
  ws = realpathSync(tempFolder().dir);
  shared = realpathSync(mkdtempSync(join("/var/tmp", "tool-bash-readable-")));
  cleanups.push(() => rmSync(ws, { recursive: true, force: true }), () => rmSync(shared, { recursive: true, force: true }));
});

/** The bash tool's own execute (the sandbox asks the policy service what to hide; the policy's decision is not what is tested). */
async function run(options: Record<string, unknown>, command: string): Promise<{ text: string; details: BashToolDetails }> {
  const harness = new AgentHarness({ cwd: ws, workspace: ws });
  await harness.use(policyPlugin, { extends: ["recommended"] });
  await harness.use(bashPlugin, { sandbox: "required", ...options });
  cleanups.push(() => harness.dispose());
  const tool = harness.getTool("bash");
  if (!tool) throw new Error("no bash tool");
  const result = await tool.execute("1", { command }, new AbortController().signal, () => {}, undefined);
  return { text: textOf(result), details: result.details as BashToolDetails };
}

describe("hidden names in every folder a confined call reads", { timeout: 90_000 }, () => {
  it("a readable folder's .env reads as empty, its other files as they are", async () => {
    writeFileSync(join(shared, ".env"), `TOKEN=${SECRET}\n`);
    mkdirSync(join(shared, "sub"));
    writeFileSync(join(shared, "sub", ".env"), `NESTED=${SECRET}\n`);
    writeFileSync(join(shared, "notes.txt"), "shared notes\n");
    const result = await run({ readable: [shared] }, `cat ${shared}/.env ${shared}/sub/.env; grep -r TOKEN ${shared}; find ${shared} -name '.e*' -exec cat {} +; cat ${shared}/notes.txt`);
    expect(result.text).not.toContain(SECRET);
    expect(result.text).toContain("shared notes");
    expect(result.details.sandbox.hidden).toEqual(expect.arrayContaining([join(shared, ".env"), join(shared, "sub", ".env")]));
    expect(result.text).toContain("the policy denies reading");
  });

  it("a .env under /etc (the minimal root's own folder) reads as empty too", async () => {
    const folder = realpathSync(mkdtempSync(join("/etc", "toolhost-test-")));
    cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
    writeFileSync(join(folder, ".env"), `ETC=${SECRET}\n`, { mode: 0o644 });
    const result = await run({}, `cat ${folder}/.env; echo end`);
    expect(result.text).not.toContain(SECRET);
    expect(result.details.sandbox.hidden).toContain(join(folder, ".env"));
  });

  it("control: a readable folder without secrets is read whole, and a workspace .env is hidden as before", async () => {
    writeFileSync(join(shared, "data.txt"), "plain data\n");
    writeFileSync(join(ws, ".env"), `WS=${SECRET}\n`);
    const result = await run({ readable: [shared] }, `cat ${shared}/data.txt; cat .env; echo end`);
    expect(result.text).toContain("plain data");
    expect(result.text).not.toContain(SECRET);
  });
});
