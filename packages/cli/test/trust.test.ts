// Code only from trusted folders, and configs of three owners (issue 27): an untrusted project's
// code (a JS config, a plugin by path, a package installed only there, an MCP server's command) is
// refused with the command that trusts it, and loads once the user runs it; managed, user and
// project configs combine into one host, as `toolhost config` shows. Through the built CLI.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { jsonLines, MANAGED_CONFIG_DIR, project, removeDir, tempDir, toolhost, USER_CONFIG_DIR, writeConfig, writeFile } from "./_helpers.js";

vi.setConfig({ testTimeout: 120_000 });

/** tool-mcp's own test server (the official SDK over stdio): it writes its pid to $PROBE_PID when it starts. */
const PROBE_SERVER = fileURLToPath(new URL("../../tool-mcp/test/fixtures/probe-server.mjs", import.meta.url));

let dir: string;
let marks: string;
beforeEach(() => {
  dir = project(tempDir("toolhost-trust-"), { trusted: false });
  marks = tempDir("toolhost-trust-marks-");
});
afterEach(() => {
  removeDir(dir);
  removeDir(marks);
  for (const owner of [USER_CONFIG_DIR, MANAGED_CONFIG_DIR]) removeDir(owner);
});

/** A plugin that writes `marker` when its module is imported, and registers the tool `tool`. */
const markingPlugin = (name: string, tool: string, marker: string): string => `import { writeFileSync } from "node:fs";
import { definePlugin, Type } from "@toolhost/core";
writeFileSync(${JSON.stringify(marker)}, "imported");
export default definePlugin({
  name: ${JSON.stringify(name)},
  apply(harness) {
    harness.registerTool({ name: ${JSON.stringify(tool)}, label: "${tool}", description: "says hi", parameters: Type.Object({}), async execute() { return { content: [{ type: "text", text: "hi from ${tool}" }], details: {} }; } });
  },
});
`;

const toolsOf = async (cwd: string): Promise<string[]> => {
  const listed = await toolhost(["--json", "list"], { cwd });
  return (JSON.parse(listed.stdout) as Array<{ name: string }>).map((tool) => tool.name);
};

describe("an untrusted project's code", () => {
  const cases = {
    "a toolhost.config.mjs": (marker: string) => {
      writeFile(join(dir, "plugins", "hello.mjs"), markingPlugin("hello", "hello", join(marks, "plugin")));
      writeFile(join(dir, "toolhost.config.mjs"), `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\nexport default { plugins: ["./plugins/hello.mjs"] };\n`);
      return "hello";
    },
    "a plugin by path": (marker: string) => {
      writeFile(join(dir, "plugins", "hello.mjs"), markingPlugin("hello", "hello", marker));
      writeConfig(dir, { plugins: ["./plugins/hello.mjs"] });
      return "hello";
    },
    "a package installed only in the project": (marker: string) => {
      writeFile(join(dir, "node_modules", "hello-plugin", "package.json"), JSON.stringify({ name: "hello-plugin", version: "1.0.0", type: "module", main: "index.js" }));
      writeFile(join(dir, "node_modules", "hello-plugin", "index.js"), markingPlugin("hello-plugin", "hello", marker));
      writeConfig(dir, { plugins: ["hello-plugin"] });
      return "hello";
    },
    "an MCP server's command": (marker: string) => {
      writeConfig(dir, { plugins: [["@toolhost/tool-mcp", { servers: { probe: { command: process.execPath, args: [PROBE_SERVER], env: { PROBE_PID: marker } } } }]] });
      return "probe__echo";
    },
  } as const;

  for (const [what, write] of Object.entries(cases)) {
    it(`${what}: refused with the command that trusts the folder, then loaded once trusted`, async () => {
      const marker = join(marks, "ran");
      const tool = write(marker);
      const args = tool === "probe__echo" ? '{"text":"hi"}' : "{}";
      const refused = await toolhost(["call", tool, args], { cwd: dir });
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain(`run "toolhost trust ${dir}"`);
      expect(refused.stderr).toContain("TOOLHOST_UNTRUSTED_CODE");
      expect(existsSync(marker), "nothing of it ran").toBe(false);
      expect(existsSync(join(marks, "plugin"))).toBe(false);

      // The command the refusal names, as the user runs it in the project.
      const trusted = await toolhost(["trust", dir], { cwd: dir });
      expect(trusted.code, trusted.stderr).toBe(0);
      expect(trusted.stderr).toContain(`You now trust ${dir}`);
      const ran = await toolhost(["call", tool, args], { cwd: dir });
      expect(ran.stderr).not.toContain("TOOLHOST_UNTRUSTED_CODE");
      expect(existsSync(marker)).toBe(true);
      expect(await toolsOf(dir)).toContain(tool);
    });
  }

  it("every call of a host with a refusal is refused with it, a tool the left-out code would have given too, and its decision event says what was refused", async () => {
    writeFile(join(dir, "plugins", "hello.mjs"), markingPlugin("hello", "hello", join(marks, "plugin")));
    writeFile(join(dir, "toolhost.config.mjs"), 'export default { plugins: ["./plugins/hello.mjs"] };\n');
    const run = await toolhost(["run", "--events", "-"], { cwd: dir, input: JSON.stringify([{ id: "c1", name: "hello", arguments: {} }]) });
    // run exits 1 when a result is an error.
    expect(run.code).toBe(1);
    const events = jsonLines(run.stdout) as Array<Record<string, unknown>>;
    expect(events.find((event) => event.type === "tool_execution_decision")).toEqual({
      type: "tool_execution_decision",
      toolCallId: "c1",
      toolName: "hello",
      decision: "deny",
      by: "toolhost config",
      reason: expect.stringContaining(`run "toolhost trust ${dir}"`),
      details: {
        notLoaded: [{ code: "TOOLHOST_UNTRUSTED_CODE", owner: "project", kind: "config", file: join(dir, "toolhost.config.mjs"), configPath: join(dir, "toolhost.config.mjs"), folder: dir }],
      },
    });
    const end = events.find((event) => event.type === "tool_execution_end") as { result: { content: Array<{ text: string }> } };
    expect(end.result.content[0]?.text).toContain("the config in force is not whole, so every call is refused");
    expect(existsSync(join(marks, "plugin"))).toBe(false);
  });

  it("toolhost schema imports no plugin of an untrusted project to show its options", async () => {
    const marker = join(marks, "ran");
    writeFile(join(dir, "plugins", "hello.mjs"), markingPlugin("hello", "hello", marker));
    writeFile(join(dir, "node_modules", "hello-plugin", "package.json"), JSON.stringify({ name: "hello-plugin", version: "1.0.0", type: "module", main: "index.js" }));
    writeFile(join(dir, "node_modules", "hello-plugin", "index.js"), markingPlugin("hello-plugin", "hello", marker));
    writeConfig(dir, { plugins: [] });
    const byPath = await toolhost(["schema", "./plugins/hello.mjs"], { cwd: dir });
    expect(byPath.code).toBe(2);
    expect(byPath.stderr).toContain(`run "toolhost trust ${dir}"`);
    const byName = await toolhost(["schema", "hello-plugin"], { cwd: dir });
    expect(byName.code).toBe(2);
    expect(byName.stderr).toContain(`it is installed only in ${dir}`);
    expect(byName.stderr).toContain("TOOLHOST_UNTRUSTED_CODE");
    expect(existsSync(marker)).toBe(false);
    await toolhost(["trust", dir], { cwd: dir });
    expect((await toolhost(["schema", "hello-plugin"], { cwd: dir })).code).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });

  it("reads an untrusted project's JSON config, and names only packages installed with toolhost itself", async () => {
    writeConfig(dir, { toolExecution: "sequential", plugins: ["@toolhost/tool-fs"] });
    const shown = await toolhost(["--json", "config"], { cwd: dir });
    expect(shown.code, shown.stderr).toBe(0);
    const config = JSON.parse(shown.stdout) as { layers: Array<{ owner: string; trusted: boolean }>; plugins: Array<{ name: string; resolvedFrom: string }>; refused: unknown[] };
    expect(config.layers.find((layer) => layer.owner === "project")?.trusted).toBe(false);
    expect(config.refused).toEqual([]);
    expect(config.plugins.map((plugin) => plugin.name)).toEqual(["@toolhost/tool-fs"]);
    expect(config.plugins[0]?.resolvedFrom.startsWith(dir)).toBe(false);
  });

  it("trust --list and --remove: trust is kept in the user's config folder, and removing it refuses again", async () => {
    writeFile(join(dir, "plugins", "hello.mjs"), markingPlugin("hello", "hello", join(marks, "ran")));
    writeConfig(dir, { plugins: ["./plugins/hello.mjs"] });
    writeFile(join(dir, "sub", ".keep"), "");
    // From a subfolder, the folder trusted is the project's: the config's.
    expect((await toolhost(["trust"], { cwd: join(dir, "sub") })).code).toBe(0);
    expect((await toolhost(["trust", "--list"], { cwd: dir })).stdout).toBe(`${dir}\n`);
    expect(JSON.parse(readFileSync(join(USER_CONFIG_DIR, "trusted-folders.json"), "utf8"))).toEqual({ folders: [dir] });
    expect(await toolsOf(join(dir, "sub"))).toContain("hello");
    const again = await toolhost(["trust", join(dir, "sub")], { cwd: dir });
    expect(again.stderr).toContain(`is trusted already (through ${dir})`);
    const removed = await toolhost(["trust", "--remove"], { cwd: dir });
    expect(removed.stderr).toContain(`You no longer trust ${dir}`);
    expect((await toolhost(["--json", "list"], { cwd: dir })).stderr).toContain("TOOLHOST_UNTRUSTED_CODE");
    const missing = await toolhost(["trust", join(dir, "nowhere")], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("TOOLHOST_TRUST_FOLDER");
  });

  it("loads a plugin given as a folder with a package.json, as npm's file: would", async () => {
    const folder = join(dir, "plugins", "folder-plugin");
    writeFile(join(folder, "package.json"), JSON.stringify({ name: "folder-plugin", version: "2.0.0", type: "module", exports: { ".": "./dist/main.js" } }));
    writeFile(join(folder, "dist", "main.js"), markingPlugin("folder-plugin", "folded", join(marks, "folder")));
    writeFile(join(dir, "plugins", "bare", "notes.txt"), "no package.json here");
    writeConfig(dir, { plugins: ["./plugins/folder-plugin"] });
    await toolhost(["trust"], { cwd: dir });
    const shown = JSON.parse((await toolhost(["--json", "config"], { cwd: dir })).stdout) as { plugins: Array<{ name: string; version: string; resolvedFrom: string; tools: string[] }> };
    expect(shown.plugins).toEqual([expect.objectContaining({ name: "folder-plugin", version: "2.0.0", resolvedFrom: join(folder, "dist", "main.js"), tools: ["folded"] })]);
    writeConfig(dir, { plugins: ["./plugins/bare"] });
    const bare = await toolhost(["list"], { cwd: dir });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain(`${join(dir, "plugins", "bare")} (a folder: it needs a package.json`);
    expect(bare.stderr).toContain("TOOLHOST_PLUGIN_NOT_FOUND");
  });
});

describe("options only a trusted config may set (trustedOnly in the plugin's schema)", () => {
  /** A plugin whose `shell` and servers' `command` name programs to run: only a trusted config may set them. */
  const runner = `import { definePlugin, Type } from "@toolhost/core";
export default definePlugin({
  name: "runner",
  options: Type.Object({
    label: Type.String({ default: "plain" }),
    shell: Type.Optional(Type.String({ trustedOnly: true })),
    servers: Type.Record(Type.String(), Type.Union([Type.Object({ command: Type.String({ trustedOnly: true }) }), Type.Object({ url: Type.String() })]), { default: {} }),
  }),
  apply(harness, options) {
    harness.registerTool({ name: "run_it", label: "run", description: "says how it would run", parameters: Type.Object({}), async execute() {
      return { content: [{ type: "text", text: options.label + " " + (options.shell ?? "no shell") + " " + Object.keys(options.servers).join(",") }], details: {} };
    } });
  },
});
`;
  beforeEach(() => {
    // Installed beside the user's config, which names it: a trusted place; the project only sets its options.
    project(USER_CONFIG_DIR, { trusted: false });
    writeFile(join(USER_CONFIG_DIR, "node_modules", "runner", "package.json"), JSON.stringify({ name: "runner", version: "1.0.0", type: "module", main: "index.js" }));
    writeFile(join(USER_CONFIG_DIR, "node_modules", "runner", "index.js"), runner);
    writeConfig(USER_CONFIG_DIR, { plugins: ["runner"] });
  });

  it("an untrusted project's config may set the plugin's other options, not those; once trusted it may", async () => {
    writeConfig(dir, { plugins: [["runner", { label: "project", servers: { docs: { url: "https://example.com/mcp" } } }]] });
    expect(JSON.parse((await toolhost(["--json", "call", "run_it", "{}"], { cwd: dir })).stdout)).toMatchObject({ content: [{ text: "project no shell docs" }] });

    writeConfig(dir, { plugins: [["runner", { label: "project", shell: "./evil.sh", servers: { docs: { url: "https://example.com/mcp" }, probe: { command: "./server.sh" } } }]] });
    const refused = await toolhost(["call", "run_it", "{}"], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`Plugin "runner" was not applied: its options shell, servers.probe.command (set in ${join(dir, "toolhost.config.json")}) can run code`);
    expect(refused.stderr).toContain(`run "toolhost trust ${dir}"`);
    expect(refused.stderr).toContain("TOOLHOST_UNTRUSTED_CODE");

    await toolhost(["trust", dir], { cwd: dir });
    expect(JSON.parse((await toolhost(["--json", "call", "run_it", "{}"], { cwd: dir })).stdout)).toMatchObject({ content: [{ text: "project ./evil.sh docs,probe" }] });
  });

  it("the user's own config may set them wherever the user works", async () => {
    writeConfig(USER_CONFIG_DIR, { plugins: [["runner", { shell: "/bin/bash" }]] });
    writeConfig(dir, { plugins: [] });
    expect(JSON.parse((await toolhost(["--json", "call", "run_it", "{}"], { cwd: dir })).stdout)).toMatchObject({ content: [{ text: "plain /bin/bash " }] });
  });
});

describe("configs of three owners", () => {
  /** A plugin that records the layers it was given (its third argument) and its options, and registers `tool`. */
  const recordingPlugin = (name: string, tool: string): string => `import { writeFileSync } from "node:fs";
import { definePlugin, Type } from "@toolhost/core";
export default definePlugin({
  name: ${JSON.stringify(name)},
  options: Type.Object({ says: Type.String({ default: "nothing" }) }),
  apply(harness, options, context) {
    writeFileSync(${JSON.stringify(join(marks, `${name}.json`))}, JSON.stringify({ options, layers: context.layers }));
    harness.registerTool({ name: ${JSON.stringify(tool)}, label: "${tool}", description: "says", parameters: Type.Object({}), async execute() { return { content: [{ type: "text", text: options.says }], details: {} }; } });
  },
});
`;
  const installed = (folder: string, name: string, tool: string): void => {
    writeFile(join(folder, "node_modules", name, "package.json"), JSON.stringify({ name, version: "1.0.0", type: "module", main: "index.js" }));
    writeFile(join(folder, "node_modules", name, "index.js"), recordingPlugin(name, tool));
  };
  const recorded = (name: string) => JSON.parse(readFileSync(join(marks, `${name}.json`), "utf8")) as { options: { says: string }; layers: Array<Record<string, unknown>> };

  beforeEach(() => {
    // The user's and the administrator's plugins are installed beside their configs, which are trusted by where they are.
    for (const owner of [USER_CONFIG_DIR, MANAGED_CONFIG_DIR]) project(owner, { trusted: false });
    installed(USER_CONFIG_DIR, "says-plugin", "says");
    installed(USER_CONFIG_DIR, "user-only", "mine");
    installed(MANAGED_CONFIG_DIR, "says-plugin", "says");
    installed(dir, "says-plugin", "says");
  });

  it("applies the union of the plugins once each; options from the nearest owner, every layer in the plugin's context", async () => {
    const userFile = writeConfig(USER_CONFIG_DIR, { toolExecution: "sequential", plugins: [["says-plugin", { says: "the user's" }], "user-only"] });
    const projectFile = writeConfig(dir, { toolExecution: "parallel", plugins: [["says-plugin", { says: "the project's" }]] });
    await toolhost(["trust"], { cwd: dir });
    expect(JSON.parse((await toolhost(["--json", "call", "says", "{}"], { cwd: dir })).stdout)).toMatchObject({ content: [{ text: "the project's" }] });
    expect(recorded("says-plugin")).toEqual({
      options: { says: "the project's" },
      layers: [
        { owner: "user", file: userFile, trusted: true, options: { says: "the user's" } },
        { owner: "project", file: projectFile, trusted: true, options: { says: "the project's" } },
      ],
    });
    expect(await toolsOf(dir)).toEqual(["says", "mine"]);
    const shown = await toolhost(["config"], { cwd: dir });
    expect(shown.stdout).toContain(`  managed  ${MANAGED_CONFIG_DIR} (no config)\n`);
    expect(shown.stdout).toContain(`  user     ${userFile}\n`);
    expect(shown.stdout).toContain(`  project  ${projectFile} (trusted: ${dir})\n`);
    expect(shown.stdout).toMatch(/config settings\n {2}toolExecution {2}parallel {2}\(project\)\n/);
    expect(shown.stdout).toContain("    named  by user, project; options from project\n");
    expect(shown.stdout).toContain("    named  by user; options from user\n");
  });

  it("a managed config's options hold against the user's and the project's, and its plugins cannot be left out", async () => {
    const managedFile = writeConfig(MANAGED_CONFIG_DIR, { maxConcurrency: 2, plugins: [["says-plugin", { says: "the administrator's" }]] });
    writeConfig(USER_CONFIG_DIR, { maxConcurrency: 8, plugins: [["says-plugin", { says: "the user's" }]] });
    const projectFile = writeConfig(dir, { maxConcurrency: 16, plugins: [["says-plugin", { says: "the project's" }]] });
    expect(JSON.parse((await toolhost(["--json", "call", "says", "{}"], { cwd: dir })).stdout)).toMatchObject({ content: [{ text: "the administrator's" }] });
    const { layers } = recorded("says-plugin");
    expect(layers.map((layer) => [layer.owner, layer.file, layer.trusted])).toEqual([
      ["managed", managedFile, true],
      ["user", join(USER_CONFIG_DIR, "toolhost.config.json"), true],
      // Not trusted: the project's JSON is read, its options are data; it was never asked to run code.
      ["project", projectFile, false],
    ]);
    expect(layers[2]?.trust).toBe(`run "toolhost trust ${dir}"`);
    const shown = JSON.parse((await toolhost(["--json", "config"], { cwd: dir })).stdout) as { settingsFrom: Record<string, string>; plugins: Array<{ name: string; namedBy: string[]; optionsFrom: string }> };
    expect(shown.settingsFrom).toEqual({ maxConcurrency: "managed" });
    expect(shown.plugins).toEqual([expect.objectContaining({ name: "says-plugin", namedBy: ["managed", "user", "project"], optionsFrom: "managed" })]);
    // A project config that names nothing still gets the administrator's plugin.
    writeConfig(dir, { plugins: [] });
    expect(await toolsOf(dir)).toEqual(["says"]);
  });

  it("a user's JS config runs wherever the user works; without a project config the defaults fill in what the user's config does not name", async () => {
    removeDir(join(dir, "toolhost.config.json"));
    writeFile(join(USER_CONFIG_DIR, "toolhost.config.mjs"), `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(join(marks, "user-config"))}, "ran");\nexport default { plugins: [["@toolhost/hooks-policy", { default: "deny" }]] };\n`);
    const shown = JSON.parse((await toolhost(["--json", "config"], { cwd: dir })).stdout) as { plugins: Array<{ name: string; namedBy: string[] }>; refused: unknown[] };
    expect(existsSync(join(marks, "user-config"))).toBe(true);
    expect(shown.refused).toEqual([]);
    expect(shown.plugins.map((plugin) => [plugin.name, plugin.namedBy])).toEqual([
      ["@toolhost/hooks-policy", ["user"]],
      ["@toolhost/tool-fs", ["project"]],
      ["@toolhost/tool-bash", ["project"]],
    ]);
    // The user's policy decides (default deny), not the default preset.
    const read = await toolhost(["call", "ls", "{}"], { cwd: dir });
    expect(read.code).toBe(2);
    expect(read.stderr).toContain("Blocked by @toolhost/hooks-policy");
    expect(read.stderr).toContain("default (no rule matched)");
  });
});
