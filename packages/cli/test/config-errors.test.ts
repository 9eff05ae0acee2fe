import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { project, removeDir, tempDir, toolhost, writeConfig, writeFile } from "./_helpers.js";

let dir: string;
beforeEach(() => {
  dir = project(tempDir());
});
afterEach(() => removeDir(dir));

/** Runs `toolhost list` and expects exit 2 with the error code on stderr, returning stderr. */
async function failing(code: string, args: string[] = ["list"]): Promise<string> {
  const result = await toolhost(args, { cwd: dir });
  expect(result.stdout).toBe("");
  expect(result.stderr).toContain(`(${code})`);
  expect(result.code).toBe(2);
  return result.stderr;
}

describe("config errors: one message, a stable code, exit 2", () => {
  it("CONFIG_NOT_FOUND when --config names a missing file", async () => {
    const stderr = await failing("TOOLHOST_CONFIG_NOT_FOUND", ["--config", "nope.json", "list"]);
    expect(stderr).toContain(`Config file not found: ${join(dir, "nope.json")}`);
    expect(stderr).toContain('run "toolhost init"');
  });

  it("CONFIG_NOT_FOUND when --config names a folder", async () => {
    const stderr = await failing("TOOLHOST_CONFIG_NOT_FOUND", ["--config", "plugins", "list"]);
    expect(stderr).toContain(`--config names the folder ${join(dir, "plugins")}; name the config file in it`);
  });

  it("CONFIG_SYNTAX in JSON, with line and column", async () => {
    writeFile(join(dir, "toolhost.config.json"), '{\n  "plugins": [\n    "a",\n  ]\n}\n');
    const stderr = await failing("TOOLHOST_CONFIG_SYNTAX");
    expect(stderr).toContain(`Config file ${join(dir, "toolhost.config.json")} has a syntax error at line 4, column 3`);
  });

  it("CONFIG_SYNTAX in JSON names the place of a comment, a bad escape, a control character", async () => {
    const file = join(dir, "toolhost.config.json");
    for (const [text, place] of [
      ['{\n  "plugins": [] // no comments in JSON\n}\n', "line 2, column 17"],
      ['{"plugins": ["\\x"]}', "line 1, column 14"],
      ['{"plugins": ["a\tb"]}', "line 1, column 14"],
    ] as const) {
      writeFile(file, text);
      expect(await failing("TOOLHOST_CONFIG_SYNTAX")).toContain(`${file} has a syntax error at ${place}`);
    }
  });

  it("CONFIG_SYNTAX in YAML, with line and column", async () => {
    writeFile(join(dir, "toolhost.config.yaml"), "plugins:\n  - a\n  b: [\n");
    const stderr = await failing("TOOLHOST_CONFIG_SYNTAX");
    expect(stderr).toMatch(/toolhost\.config\.yaml has a syntax error at line \d+, column \d+/);
  });

  it("CONFIG_SYNTAX in an .mjs config, with its line", async () => {
    writeFile(join(dir, "toolhost.config.mjs"), "export default {\n  plugins: [\n    'a' 'b'\n  ],\n};\n");
    const stderr = await failing("TOOLHOST_CONFIG_SYNTAX");
    expect(stderr).toMatch(/toolhost\.config\.mjs has a syntax error at line 3/);
  });

  it("CONFIG_INVALID lists each problem with its path", async () => {
    writeConfig(dir, { plugins: ["./plugins/echo-plugin.mjs", 42], toolExecution: "sideways", colour: "blue" });
    const stderr = await failing("TOOLHOST_CONFIG_INVALID");
    expect(stderr).toContain(`Config file ${join(dir, "toolhost.config.json")} is invalid:`);
    expect(stderr).toContain("/plugins/1");
    expect(stderr).toContain("/toolExecution");
    expect(stderr).toContain("/colour");
    expect(stderr).toContain('"toolhost schema" prints every key');
  });

  it("CONFIG_INVALID for an empty file", async () => {
    writeFile(join(dir, "toolhost.config.json"), "");
    const stderr = await failing("TOOLHOST_CONFIG_INVALID");
    expect(stderr).toContain("is empty");
  });

  it("PLUGIN_NOT_FOUND lists the places tried and a close first-party name, and never the install of a name no one knows", async () => {
    writeConfig(dir, { plugins: ["@toolhost/tool-bsh"] });
    const stderr = await failing("TOOLHOST_PLUGIN_NOT_FOUND");
    expect(stderr).toContain(`Plugin "@toolhost/tool-bsh" was not found (named in ${join(dir, "toolhost.config.json")}).`);
    expect(stderr).toContain(`${join(dir, "node_modules", "@toolhost/tool-bsh")} (the config file's folder)`);
    expect(stderr).toContain("(the toolhost CLI's install location)");
    // Installing a misspelled name is how a typo-squatted package gets in.
    expect(stderr).not.toContain("npm i -D");
    expect(stderr).toContain('Did you mean "@toolhost/tool-bash"?');
  });

  it("PLUGIN_NOT_FOUND suggests a near name installed next to the config, and the install command only for a name the CLI knows", async () => {
    writeFile(join(dir, "node_modules", "toolhost-plugin-weather", "package.json"), '{"name": "toolhost-plugin-weather", "version": "1.0.0"}');
    writeConfig(dir, { plugins: ["toolhost-plugin-wether"] });
    const typo = await failing("TOOLHOST_PLUGIN_NOT_FOUND");
    expect(typo).toContain('Did you mean "toolhost-plugin-weather"?');
    expect(typo).not.toContain("npm i -D");
    writeConfig(dir, { plugins: ["toolhost-plugin-unheard-of"] });
    const unknown = await failing("TOOLHOST_PLUGIN_NOT_FOUND");
    expect(unknown).toContain("check the name in");
    expect(unknown).not.toContain("npm i -D");
    expect(unknown).not.toContain("Did you mean");
  });

  it("PLUGIN_NOT_FOUND for a relative path, relative to the config's folder", async () => {
    writeConfig(dir, { plugins: ["./plugins/nothing.mjs"] });
    const stderr = await failing("TOOLHOST_PLUGIN_NOT_FOUND");
    expect(stderr).toContain(`${join(dir, "plugins", "nothing.mjs")} (relative to the config file's folder)`);
  });

  it("never resolves a plugin from the working directory", async () => {
    const elsewhere = tempDir();
    try {
      writeConfig(elsewhere, { plugins: ["local-only-plugin"] });
      writeFile(join(dir, "node_modules", "local-only-plugin", "package.json"), '{"name":"local-only-plugin","main":"index.mjs"}');
      writeFile(join(dir, "node_modules", "local-only-plugin", "index.mjs"), "export default 1;");
      const result = await toolhost(["--config", join(elsewhere, "toolhost.config.json"), "list"], { cwd: dir });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("(TOOLHOST_PLUGIN_NOT_FOUND)");
    } finally {
      removeDir(elsewhere);
    }
  });

  it("NOT_A_PLUGIN when the default export was not made with definePlugin", async () => {
    writeFile(join(dir, "plugins", "plain.mjs"), "export default { name: 'plain', apply() {} };\n");
    writeFile(join(dir, "plugins", "nothing.mjs"), "export const x = 1;\n");
    writeConfig(dir, { plugins: ["./plugins/plain.mjs"] });
    let stderr = await failing("TOOLHOST_NOT_A_PLUGIN");
    expect(stderr).toContain('"./plugins/plain.mjs"');
    expect(stderr).toContain("was not made with definePlugin (no apiVersion)");
    expect(stderr).toContain(`named in ${join(dir, "toolhost.config.json")}`);
    writeConfig(dir, { plugins: ["./plugins/nothing.mjs"] });
    stderr = await failing("TOOLHOST_NOT_A_PLUGIN");
    expect(stderr).toContain("it has no default export");
  });

  it("INCOMPATIBLE_PLUGIN names both API versions", async () => {
    writeFile(join(dir, "plugins", "future.mjs"), "export default { name: 'future', apiVersion: 2, apply() {} };\n");
    writeConfig(dir, { plugins: ["./plugins/future.mjs"] });
    const stderr = await failing("TOOLHOST_INCOMPATIBLE_PLUGIN");
    expect(stderr).toContain('Plugin "future" was built for plugin API 2, but this @toolhost/core speaks plugin API 1');
    expect(stderr).toContain(`(plugin "./plugins/future.mjs", named in ${join(dir, "toolhost.config.json")})`);
  });

  it("INVALID_PLUGIN_OPTIONS lists each problem with its path", async () => {
    writeConfig(dir, { plugins: [["./plugins/echo-plugin.mjs", { prefix: 3, loud: true }]] });
    const stderr = await failing("TOOLHOST_INVALID_PLUGIN_OPTIONS");
    expect(stderr).toContain('Invalid options for plugin "echo-plugin"');
    expect(stderr).toContain("/prefix");
    expect(stderr).toContain("/loud");
    expect(stderr).toContain(join(dir, "toolhost.config.json"));
  });

  it("PLUGIN_APPLY_FAILED when apply throws", async () => {
    writeFile(
      join(dir, "plugins", "throws.mjs"),
      "import { definePlugin } from '@toolhost/core';\nexport default definePlugin({ name: 'throws', apply() { throw new Error('no database'); } });\n",
    );
    writeConfig(dir, { plugins: ["./plugins/throws.mjs"] });
    const stderr = await failing("TOOLHOST_PLUGIN_APPLY_FAILED");
    expect(stderr).toContain('Plugin "throws" failed to start: no database');
  });

  it("PLUGIN_LOAD_FAILED when the plugin's module throws on import", async () => {
    writeFile(join(dir, "plugins", "bad-import.mjs"), "import 'does-not-exist-anywhere';\nexport default 1;\n");
    writeConfig(dir, { plugins: ["./plugins/bad-import.mjs"] });
    const stderr = await failing("TOOLHOST_PLUGIN_LOAD_FAILED");
    expect(stderr).toContain("does-not-exist-anywhere");
  });

  it("DUPLICATE_TOOL names both plugins", async () => {
    writeFile(
      join(dir, "plugins", "echo-again.mjs"),
      `import { Type } from "@toolhost/core";
import { definePlugin } from "@toolhost/core";
export default definePlugin({ name: "echo-again", apply(h) {
  h.registerTool({ name: "echo", label: "Echo", description: "again", parameters: Type.Object({}), async execute() { return { content: [], details: {} }; } });
} });\n`,
    );
    writeConfig(dir, { plugins: ["./plugins/echo-plugin.mjs", "./plugins/echo-again.mjs"] });
    const stderr = await failing("TOOLHOST_DUPLICATE_TOOL");
    expect(stderr).toContain('Tool "echo" is registered twice: by plugin "echo-plugin" and by plugin "echo-again"');
  });

  it("--json prints the error as JSON on stdout", async () => {
    writeFile(join(dir, "toolhost.config.json"), '{"plugins": [}');
    const result = await toolhost(["--json", "list"], { cwd: dir });
    expect(result.code).toBe(2);
    const { error } = JSON.parse(result.stdout) as { error: Record<string, unknown> };
    expect(error).toMatchObject({ code: "TOOLHOST_CONFIG_SYNTAX", configPath: join(dir, "toolhost.config.json"), line: 1, column: 14 });
  });

  it("a config error stops the command before any tool runs", async () => {
    writeConfig(dir, { plugins: ["./plugins/echo-plugin.mjs", "./plugins/missing.mjs"] });
    const result = await toolhost(["call", "echo", '{"text":"hi"}'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("(TOOLHOST_PLUGIN_NOT_FOUND)");
  });
});

describe("usage errors exit 2", () => {
  it("arguments that are not JSON", async () => {
    writeConfig(dir, { plugins: ["./plugins/echo-plugin.mjs"] });
    const result = await toolhost(["call", "echo", "{text: hi}"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('The arguments of "echo" are not valid JSON');
    expect(result.stderr).toContain("(TOOLHOST_USAGE)");
  });

  it("a --cwd that is not a folder", async () => {
    const result = await toolhost(["--cwd", "no/such/dir", "list"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`The working directory ${join(dir, "no/such/dir")} (--cwd) is not a folder`);
  });

  it("an unknown command", async () => {
    const result = await toolhost(["lst"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'lst'");
    expect(result.stderr).toContain("list");
  });
});
