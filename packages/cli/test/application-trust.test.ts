// An application that imports toolhost is as trusted as its own code: its folder's config, plugins
// by path and packages load for its createHost(), with no `toolhost trust`; a project the CLI (or
// a library) runs in is not trusted by that.
import { spawn } from "node:child_process";
import { mkdirSync, realpathSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI_DIR, removeDir, tempDir, toolhost, writeConfig, writeFile } from "./_helpers.js";

const CORE = realpathSync(join(CLI_DIR, "node_modules", "@toolhost", "core"));
const TOOL_FS = realpathSync(join(CLI_DIR, "..", "tool-fs"));

/** Runs `node script args` in `cwd`; resolves to its exit code and output. */
function node(script: string, args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** What the application prints: the codes of what was refused, and the text of one call of each tool. */
const APP = `import { createHost } from "@toolhost/core/config";
const host = await createHost({ cwd: process.argv[2] ?? process.cwd() });
const results = await host.harness.executeToolCalls([
  { id: "1", name: "read", arguments: { path: "hello.txt" } },
  { id: "2", name: "greet", arguments: {} },
]);
console.log(JSON.stringify({ refused: host.refused.map((refusal) => refusal.code), texts: results.map((result) => result.content[0]?.text) }));
await host.harness.dispose();
`;

const GREET_PLUGIN = `import { definePlugin, Type } from "@toolhost/core";
export default definePlugin({ name: "greet", apply(harness) {
  harness.registerTool({ name: "greet", label: "Greet", description: "says hello", parameters: Type.Object({}),
    async execute() { return { content: [{ type: "text", text: "hello from the app's own plugin" }], details: {} }; } });
} });
`;

let app: string;
beforeEach(() => {
  // An ordinary project the user never ran `toolhost trust` on: its packages in its own node_modules.
  app = tempDir("toolhost-app-");
  writeFile(join(app, "package.json"), JSON.stringify({ name: "my-agent", private: true, type: "module" }));
  mkdirSync(join(app, "node_modules", "@toolhost"), { recursive: true });
  symlinkSync(CORE, join(app, "node_modules", "@toolhost", "core"), "dir");
  symlinkSync(TOOL_FS, join(app, "node_modules", "@toolhost", "tool-fs"), "dir");
  writeFile(join(app, "greet-plugin.mjs"), GREET_PLUGIN);
  writeConfig(app, { plugins: ["@toolhost/tool-fs", "./greet-plugin.mjs"] });
  writeFile(join(app, "hello.txt"), "hello\n");
  writeFile(join(app, "agent.mjs"), APP);
});
afterEach(() => removeDir(app));

describe("an application's own createHost", () => {
  it("loads its folder's plugins, by package and by path, with no trust command", async () => {
    const run = await node("agent.mjs", [], app);
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ refused: [], texts: ["hello", "hello from the app's own plugin"] });
  });

  it("does not trust another project the application is pointed at", async () => {
    const other = tempDir("toolhost-other-");
    try {
      writeFile(join(other, "greet-plugin.mjs"), GREET_PLUGIN);
      writeFile(join(other, "hello.txt"), "other\n");
      writeConfig(other, { plugins: ["./greet-plugin.mjs"] });
      const run = await node(join(app, "agent.mjs"), [other], app);
      const printed = JSON.parse(run.stdout) as { refused: string[]; texts: string[] };
      expect(printed.refused).toEqual(["TOOLHOST_UNTRUSTED_CODE"]);
      expect(printed.texts[1]).toContain("every call is refused");
    } finally {
      removeDir(other);
    }
  });

  it("a library in node_modules that calls createHost gets no trust from where it is installed", async () => {
    writeFile(join(app, "node_modules", "some-agent-lib", "package.json"), JSON.stringify({ name: "some-agent-lib", type: "module", main: "index.mjs" }));
    writeFile(join(app, "node_modules", "some-agent-lib", "index.mjs"), APP);
    const run = await node(join(app, "node_modules", "some-agent-lib", "index.mjs"), [], app);
    expect((JSON.parse(run.stdout) as { refused: string[] }).refused).toEqual(["TOOLHOST_UNTRUSTED_CODE", "TOOLHOST_UNTRUSTED_CODE"]);
  });

  it("the CLI in the same folder still runs none of its code until the user trusts it", async () => {
    const result = await toolhost(["call", "greet", "{}"], { cwd: app });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`run "toolhost trust ${app}"`);
    expect(result.stderr).toContain("(TOOLHOST_UNTRUSTED_CODE)");
  });
});
