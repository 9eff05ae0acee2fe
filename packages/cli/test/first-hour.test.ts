// What a newcomer meets in the first hour, as they see it: the built CLI as a child process in a
// fresh folder, a real pseudo-terminal where a terminal matters.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { inTerminal, project, removeDir, tempDir, toolhost, writeConfig, writeFile } from "./_helpers.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

function fresh(): string {
  const dir = tempDir("toolhost-first-hour-");
  dirs.push(dir);
  return dir;
}

const NO_KEY = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };

describe("a provider without its key", () => {
  function withProvider(dir: string): void {
    writeFile(join(dir, "notes.txt"), "first line\n");
    writeConfig(dir, {
      plugins: ["@toolhost/tool-fs", ["@toolhost/hooks-policy", { extends: ["recommended"] }], ["@toolhost/provider-openai", { model: "gpt-4o-mini" }]],
    });
  }

  it("lets list and call run, with one warning that names the key and the command that needs it", async () => {
    const dir = fresh();
    withProvider(dir);
    const list = await toolhost(["list"], { cwd: dir, env: NO_KEY });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("read");
    expect(list.stderr).toContain("toolhost: warning: @toolhost/provider-openai: no API key for https://api.openai.com/v1");
    expect(list.stderr).toContain("(TOOLHOST_PROVIDER_NO_KEY)");
    expect(list.stderr).toContain('Only "toolhost agent" needs the model');
    expect(list.stderr.match(/warning:/g)).toHaveLength(1);

    const call = await toolhost(["call", "read", '{"path": "notes.txt"}'], { cwd: dir, env: NO_KEY });
    expect(call.code).toBe(0);
    expect(call.stdout).toContain("first line");
    expect(call.stderr).toContain("OPENAI_API_KEY");
  });

  it("stops toolhost agent before anything runs, with the provider's code", async () => {
    const dir = fresh();
    withProvider(dir);
    const agent = await toolhost(["agent", "hi"], { cwd: dir, env: NO_KEY });
    expect(agent.code).toBe(2);
    expect(agent.stdout).toBe("");
    expect(agent.stderr).toContain("OPENAI_API_KEY");
    expect(agent.stderr).toContain("(TOOLHOST_PROVIDER_NO_KEY)");
    expect(agent.stderr).not.toContain("warning");
  });

  it("--quiet leaves the warning out", async () => {
    const dir = fresh();
    withProvider(dir);
    const list = await toolhost(["--quiet", "list"], { cwd: dir, env: NO_KEY });
    expect(list).toMatchObject({ code: 0, stderr: "" });
  });
});

describe("waiting for standard input", () => {
  it("says what it reads and how to end it when stdin is a terminal (run)", async () => {
    const dir = fresh();
    writeConfig(dir, { plugins: ["@toolhost/tool-fs"] });
    const session = await inTerminal(["run"], { cwd: dir, steps: [{ waitFor: "Ctrl-D to end", send: "\u0004" }] });
    expect(session.output).toContain("toolhost: reading calls from standard input (Ctrl-D to end)");
    expect(session.output).toContain("The batch is empty");
    expect(session.code).toBe(2);
  });

  it("says it for the agent's prompt too, and reads what is typed", async () => {
    const dir = fresh();
    writeConfig(dir, { plugins: ["@toolhost/tool-fs"] });
    const session = await inTerminal(["agent"], { cwd: dir, steps: [{ waitFor: "Ctrl-D to end", send: "hello\n\u0004" }] });
    expect(session.output).toContain("toolhost: reading the prompt from standard input (Ctrl-D to end)");
    // The prompt was read: what stops it now is the missing model provider.
    expect(session.output).toContain("No model provider is configured");
    expect(session.code).toBe(2);
  });

  it("says nothing when stdin is not a terminal", async () => {
    const dir = fresh();
    writeConfig(dir, { plugins: ["@toolhost/tool-fs"] });
    const run = await toolhost(["run"], { cwd: dir, input: "" });
    expect(run.code).toBe(2);
    expect(run.stderr).not.toContain("Ctrl-D");
  });
});

describe("messages", () => {
  it("plugin options: allowed values listed, the likely value suggested, each problem once", async () => {
    const dir = fresh();
    writeConfig(dir, { plugins: [["@toolhost/hooks-policy", { extends: ["recomended"] }]] });
    const result = await toolhost(["list"], { cwd: dir });
    expect(result.code).toBe(2);
    // extends also takes npm packages and files, so the policy itself says what the name is not.
    expect(result.stderr).toContain('The policy "recomended" in extends of @toolhost/hooks-policy is neither a preset (readonly, workspace, recommended)');
    expect(result.stderr).toContain('Did you mean "recommended"?');
    expect(result.stderr.indexOf("Did you mean")).toBeLessThan(result.stderr.indexOf("npm i -D"));
    expect(result.stderr).not.toContain("Expected union value");
    expect(result.stderr).toContain("(TOOLHOST_INVALID_PLUGIN_OPTIONS)");
  });

  it("plugin options: a misspelled key is one line that names the likely key", async () => {
    const dir = fresh();
    writeConfig(dir, { plugins: [["@toolhost/hooks-policy", { rules: [{ tool: "bash", decison: "allow" }] }]] });
    const result = await toolhost(["list"], { cwd: dir });
    expect(result.code).toBe(2);
    const problems = result.stderr.split("\n").filter((line) => line.startsWith("  - "));
    expect(problems).toEqual(['  - /rules/0/decison: unknown key "decison". Did you mean "decision"?']);
  });

  it("toolhost schema <plugin> lists a plugin's options, even while the config names them wrongly", async () => {
    const dir = fresh();
    writeConfig(dir, { plugins: [["@toolhost/hooks-policy", { extends: ["recomended"] }]] });
    const shown = await toolhost(["schema", "@toolhost/hooks-policy"], { cwd: dir });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("extends?: (string | object)[]  Layers whose rules come before yours, in order: a preset name, an npm package");
    expect(shown.stdout).toMatch(/^ {4}decision: "allow" \| "ask" \| "deny"/m);
    const json = await toolhost(["--json", "schema", "@toolhost/tool-bash"], { cwd: dir });
    const parsed = JSON.parse(json.stdout) as { plugin: string; options: { properties: Record<string, unknown> } };
    expect(parsed.plugin).toBe("@toolhost/tool-bash");
    expect(Object.keys(parsed.options.properties)).toContain("timeout");
    const typo = await toolhost(["schema", "@toolhost/tool-bsh"], { cwd: dir });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Did you mean "@toolhost/tool-bash"?');
  });

  it("Did you mean for an unknown tool", async () => {
    const dir = fresh();
    writeConfig(dir, { plugins: ["@toolhost/tool-fs"] });
    const result = await toolhost(["call", "raed", '{"path": "x"}'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Tool "raed" not found.');
    expect(result.stderr).toContain('Did you mean "read"?');
  });

  it("the arguments are not valid JSON (plural)", async () => {
    const dir = fresh();
    writeConfig(dir, { plugins: ["@toolhost/tool-fs"] });
    const result = await toolhost(["call", "read", "{path: x}"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('The arguments of "read" are not valid JSON:');
  });

  it("find quotes the folder it searched", async () => {
    const dir = fresh();
    writeConfig(dir, { plugins: ["@toolhost/tool-fs", ["@toolhost/hooks-policy", { extends: ["recommended"] }]] });
    const result = await toolhost(["call", "find", '{"pattern": "**/nothing-here"}'], { cwd: dir });
    expect(result.stdout).toBe('No files match "**/nothing-here" in ".".\n');
  });

  it("a tool that throws shows the error's causes: code, host and port, not only \"fetch failed\"", async () => {
    const dir = project(fresh());
    writeFile(
      join(dir, "plugins", "fetcher.mjs"),
      `import { definePlugin, Type } from "@toolhost/core";
export default definePlugin({ name: "fetcher", apply(harness) {
  harness.registerTool({ name: "fetch_url", label: "Fetch", description: "fetches a URL", parameters: Type.Object({ url: Type.String() }),
    async execute(_id, { url }, signal) { const response = await fetch(url, { signal }); return { content: [{ type: "text", text: await response.text() }], details: {} }; } });
} });
`,
    );
    writeConfig(dir, { plugins: ["./plugins/fetcher.mjs"] });
    const { createServer } = await import("node:net");
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const result = await toolhost(["call", "fetch_url", JSON.stringify({ url: `http://127.0.0.1:${port}/` })], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`Tool "fetch_url" failed: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('gives "Did you mean" for a misspelled plugin, and no install command for the misspelling', async () => {
    const dir = fresh();
    writeConfig(dir, { plugins: ["@toolhost/tool-bsh"] });
    const result = await toolhost(["list"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr.indexOf('Did you mean "@toolhost/tool-bash"?')).toBeGreaterThan(0);
    expect(result.stderr).not.toContain("npm i -D @toolhost/tool-bsh");
  });

  it("two config files side by side: says which is used and that the other is ignored", async () => {
    const dir = fresh();
    writeConfig(dir, { plugins: ["@toolhost/tool-fs"] });
    writeFile(join(dir, "toolhost.config.yaml"), "plugins:\n  - '@toolhost/tool-bash'\n");
    const result = await toolhost(["list"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("read");
    expect(result.stdout).not.toContain("bash");
    expect(result.stderr).toContain(
      `toolhost: using ${join(dir, "toolhost.config.json")}; ignoring ${join(dir, "toolhost.config.yaml")} beside it`,
    );
    const named = await toolhost(["--config", "toolhost.config.yaml", "list"], { cwd: dir });
    expect(named.stderr).not.toContain("ignoring");
  });

  it("core names no plugin: a host without defaults and without a config applies none", async () => {
    const { createHost } = await import("@toolhost/core/config");
    const dir = fresh();
    const host = await createHost({ cwd: dir });
    expect({ plugins: host.plugins, missing: host.missing, tools: host.harness.tools }).toEqual({ plugins: [], missing: [], tools: [] });
    await host.harness.dispose();
  });
});

describe("toolhost init", () => {
  it("points $schema at the copy of @toolhost/core installed in the project", async () => {
    const dir = project(fresh());
    const result = await toolhost(["init"], { cwd: dir });
    expect(result.code).toBe(0);
    const config = JSON.parse(readFileSync(join(dir, "toolhost.config.json"), "utf8")) as { $schema: string };
    expect(config.$schema).toBe("./node_modules/@toolhost/core/dist/config/schema.json");
    expect(JSON.parse(readFileSync(join(dir, config.$schema), "utf8"))).toMatchObject({ title: "toolhost config" });
  });

  it("falls back to the published copy when core is not installed in the project (a stray install above it does not count)", async () => {
    const outer = project(fresh());
    const dir = join(outer, "app");
    writeFile(join(dir, "package.json"), "{}");
    const result = await toolhost(["init"], { cwd: dir });
    expect(result.code).toBe(0);
    const config = JSON.parse(readFileSync(join(dir, "toolhost.config.json"), "utf8")) as { $schema: string };
    expect(config.$schema).toMatch(/^https:\/\/unpkg\.com\/@toolhost\/core@\d+\.\d+\.\d+\/dist\/config\/schema\.json$/);
  });

  it("says the plugins it names are installed when they are (here, beside the CLI)", async () => {
    const dir = project(fresh());
    const result = await toolhost(["init"], { cwd: dir });
    expect(result.stdout).toContain("The plugins it names are installed: @toolhost/tool-fs, @toolhost/tool-bash, @toolhost/hooks-policy");
    expect(result.stdout).not.toContain("npm i");
  });

  it("--cases writes starter cases that the starter config's policy passes, and alone beside an existing config", async () => {
    const dir = project(fresh());
    expect((await toolhost(["init"], { cwd: dir })).code).toBe(0);
    const cases = await toolhost(["init", "--cases"], { cwd: dir });
    expect(cases.code).toBe(0);
    expect(cases.stdout).toContain(`Wrote ${join(dir, "policy-cases.jsonl")}`);
    const tested = await toolhost(["policy", "test", "policy-cases.jsonl"], { cwd: dir });
    expect(tested.stdout).toMatch(/^ok {2}policy-cases\.jsonl: \d+ cases, all as expected\n$/);
    expect(tested.code).toBe(0);
    const again = await toolhost(["init", "--cases"], { cwd: dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("already exists; toolhost init never overwrites a cases file");
  });

});
