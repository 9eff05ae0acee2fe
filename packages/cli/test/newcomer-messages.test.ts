import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { inTerminal, project, removeDir, tempDir, toolhost, writeConfig, writeFile } from "./_helpers.js";

// A newcomer's messages: each says what happened once, and leads to the fix.

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => removeDir(dir));

/** Select Graphic Rendition sequences: colors and styles. */
const STYLES = /\u001B\[[0-9;:]*m/;

describe("messages that lead to the fix", () => {
  it("a top-level config typo gets Did you mean, each key once", async () => {
    writeFile(join(dir, "toolhost.config.json"), JSON.stringify({ maxConcurency: 3, toolExecution: "paralel" }));
    const result = await toolhost(["list"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('  - /maxConcurency: unknown key "maxConcurency". Did you mean "maxConcurrency"?');
    expect(result.stderr).toContain('  - /toolExecution: "paralel" is not one of "parallel", "sequential". Did you mean "parallel"?');
    expect(result.stderr).toContain("  - /plugins: missing; it is required.");
    expect(result.stderr.match(/\/plugins:/g)).toHaveLength(1);
    expect(result.stderr).toContain("(TOOLHOST_CONFIG_INVALID)");
  });

  it("mcp serve --print-config without a host lists the hosts it takes", async () => {
    const result = await toolhost(["mcp", "serve", "--print-config"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--print-config takes one of: claude, codex, gemini, opencode. For example: toolhost mcp serve --print-config claude");
  });

  it("a missing argument is one problem, not also a wrong type", async () => {
    writeConfig(dir, { plugins: ["@toolhost/tool-fs"] });
    const result = await toolhost(["call", "read", "{}"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("  - /path: Expected required property\nArguments received: {}");
    expect(result.stderr.match(/\/path/g)).toHaveLength(1);
  });

  it("a refused .mjs config is explained once, and the refused call names it", async () => {
    writeFile(join(dir, "toolhost.config.mjs"), "export default { plugins: ['@toolhost/tool-fs'] };\n");
    writeFile(join(dir, "a.txt"), "a\n");
    const result = await toolhost(["call", "read", '{"path":"a.txt"}'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr.match(/a \.mjs config runs code/g)).toHaveLength(1);
    expect(result.stderr).toContain(`run "toolhost trust ${dir}"`);
    expect(result.stderr).toContain(`Refused: ${join(dir, "toolhost.config.mjs")} was not loaded (why and the fix are above)`);
    // --json keeps the whole reason in the result, for a program that reads only stdout.
    const json = await toolhost(["--json", "call", "read", '{"path":"a.txt"}'], { cwd: dir });
    expect(json.stdout).toContain("a .mjs config runs code");
  });

  it("a file given as tool-fs's root is refused at start-up, naming its folder", async () => {
    writeFile(join(dir, "notes.txt"), "notes\n");
    writeConfig(dir, { plugins: [["@toolhost/tool-fs", { roots: ["notes.txt"] }]] });
    const result = await toolhost(["list"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`The root ${join(dir, "notes.txt")} of the file tools is a file, not a folder`);
    expect(result.stderr).toContain(`Give its folder (${dir})`);
    expect(result.stderr).toContain("(TOOLHOST_FS_ROOT_NOT_FOLDER)");
  });

  it("an agent whose provider was refused says so, not that none is configured", async () => {
    writeConfig(dir, { plugins: [["@toolhost/provider-openai", { model: "m", baseURL: "http://127.0.0.1:9/v1" }]] });
    const result = await toolhost(["agent", "hello"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("its option baseURL");
    expect(result.stderr).toContain(`run "toolhost trust ${dir}"`);
    expect(result.stderr).toContain('No model provider is loaded: "@toolhost/provider-openai" was not loaded (why and the fix are above)');
    expect(result.stderr).not.toContain("No model provider is configured");
  });

  it("toolhost schema marks the options only a trusted config may set, and says why", async () => {
    const result = await toolhost(["schema", "@toolhost/provider-openai"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ {2}baseURL\?: string \[trusted configs only\] /m);
    expect(result.stdout).toMatch(/^ {2}model: string {2}/m);
    expect(result.stdout).toContain('[trusted configs only]: the option runs code, or sends what it is given where it says.');
  });

  it("the cancelled prompt writes no colors or styles under NO_COLOR", async () => {
    project(dir);
    writeConfig(dir, { plugins: ["./plugins/echo-plugin.mjs", "./plugins/guard-plugin.mjs"] });
    const run = await inTerminal(["call", "echo", '{"text":"ask and cancel"}'], {
      cwd: dir,
      steps: [{ waitFor: "Run it?", send: "\u0003" }],
      env: { NO_COLOR: "1" },
    });
    expect(run.code).toBe(130);
    expect(run.output).toContain("Run it?");
    expect(run.output).toContain("Interrupted (Ctrl-C).");
    expect(run.output).not.toMatch(STYLES);
  });
});
