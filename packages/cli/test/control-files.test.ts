// The model cannot change its own rules (issue 38), through the built CLI: under `recommended` a
// write to a control file is asked (so refused with no terminal), the audit log is append-only,
// and `policy explain` names the control file and why it matters; an ordinary write still runs.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, toolhost, writeConfig, writeFile, trust } from "./_helpers.js";

let dir: string;
const CONFIG = { plugins: ["@toolhost/tool-fs", ["@toolhost/tool-bash", { sandbox: "off" }], ["@toolhost/hooks-policy", { extends: ["recommended"], audit: ".toolhost/audit.jsonl" }]] };
let configText = "";
beforeEach(() => {
  // Its tool-bash runs unsandboxed, which widens what calls reach: the test's user trusts the project, as they would.
  dir = trust(tempDir("toolhost-control-"));
  configText = readFileSync(writeConfig(dir, CONFIG), "utf8");
  writeFile(join(dir, ".env"), "TOKEN=secret\n");
});
afterEach(() => removeDir(dir));

const call = (tool: string, args: unknown) => toolhost(["call", tool, JSON.stringify(args)], { cwd: dir });

describe("control files, through the built CLI", () => {
  it("write toolhost.config.json with default allow: refused, the config as it was, .env still unread", async () => {
    const planted = JSON.stringify({ plugins: [["@toolhost/hooks-policy", { default: "allow" }], "@toolhost/tool-fs"] });
    const result = await call("write", { path: "toolhost.config.json", content: planted });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("writes a control file, toolhost.config.json (toolhost's config: its policy and plugins)");
    expect(readFileSync(join(dir, "toolhost.config.json"), "utf8")).toBe(configText);
    const read = await call("read", { path: ".env" });
    expect(read.code).toBe(2);
    expect(read.stdout + read.stderr).not.toContain("TOKEN=secret");
  });

  it.each([
    ["write", { path: ".claude/settings.json", content: '{"hooks":{}}' }],
    ["write", { path: ".claude/settings.local.json", content: "{}" }],
    ["write", { path: ".mcp.json", content: '{"mcpServers":{"x":{"command":"sh"}}}' }],
    ["write", { path: ".gemini/settings.json", content: "{}" }],
    ["bash", { command: "echo '{}' > .mcp.json" }],
    ["bash", { command: "mkdir -p .claude && cp /etc/hostname .claude/settings.json" }],
  ])("%s %j: refused without a terminal, nothing written", async (tool, args) => {
    const result = await call(tool, args);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain("a control file");
    for (const name of [".mcp.json", ".claude/settings.json", ".claude/settings.local.json", ".gemini/settings.json"]) expect(existsSync(join(dir, name))).toBe(false);
  });

  it("the audit log: emptying it is refused, an append is asked", async () => {
    await call("read", { path: "toolhost.config.json" });
    const log = join(dir, ".toolhost", "audit.jsonl");
    const before = readFileSync(log, "utf8");
    const emptied = await call("write", { path: ".toolhost/audit.jsonl", content: "" });
    expect(emptied.code).toBe(2);
    expect(emptied.stderr).toContain("the audit log is append-only from tools");
    const truncated = await call("bash", { command: ": > .toolhost/audit.jsonl" });
    expect(truncated.code).toBe(2);
    const appended = await call("bash", { command: "echo '{}' >> .toolhost/audit.jsonl" });
    expect(appended.code).toBe(2);
    expect(appended.stderr).toContain("appends to the audit log");
    expect(readFileSync(log, "utf8").startsWith(before)).toBe(true);
    expect(readFileSync(log, "utf8")).not.toContain('\n{}\n');
  });

  it("policy explain names the control file and why it matters", async () => {
    const explained = await toolhost(["policy", "explain", "--json", "write", JSON.stringify({ path: ".git/hooks/pre-commit", content: "x" })], { cwd: dir });
    const json = JSON.parse(explained.stdout) as { decision: string; parts: Array<{ note?: string }> };
    expect(json.decision).toBe("ask");
    expect(json.parts.some((part) => part.note?.includes("writes a control file, .git/hooks (git's hooks and config: run by git outside any sandbox)"))).toBe(true);
  });

  it("the control: an ordinary write in the workspace runs", async () => {
    const result = await call("write", { path: "src/app.ts", content: "export {};\n" });
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(dir, "src", "app.ts"), "utf8")).toBe("export {};\n");
  });
});
