// @toolhost/core/config used from code: createHost, findConfig, the errors' fields.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ToolhostError } from "@toolhost/core";
import { ConfigError, configJsonSchema, createHost, findConfig } from "@toolhost/core/config";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MANAGED_CONFIG_DIR, project, removeDir, tempDir, USER_CONFIG_DIR, writeConfig, writeFile } from "./_helpers.js";

/** The places of the other owners a host watches besides its files: the managed and user config folders, the trusted-folders file. */
const OWNER_PLACES = [MANAGED_CONFIG_DIR, USER_CONFIG_DIR, join(USER_CONFIG_DIR, "trusted-folders.json")];

let dir: string;
beforeEach(() => {
  dir = project(tempDir());
});
afterEach(() => removeDir(dir));

describe("createHost", () => {
  it("keeps the settings each plugin's apply reports, checked and passed through the redact hook of every plugin", async () => {
    writeFile(
      join(dir, "plugins", "reporting.mjs"),
      `import { definePlugin } from "@toolhost/core";
export default definePlugin({
  name: "reporting",
  async apply() {
    return { settings: { mode: "auto → fast", token: "key sekrit-42", list: ["a", "sekrit-7"], count: 3, on: true, none: null, nested: { no: 1 }, mixed: ["a", 1], odd: "boom" } };
  },
});
`,
    );
    writeFile(
      join(dir, "plugins", "redacting.mjs"),
      `import { definePlugin } from "@toolhost/core";
export default definePlugin({
  name: "redacting",
  apply(harness) {
    harness.hooks.redact.tap("redacting", (text) => {
      if (text === "boom") throw new Error("cannot redact boom");
      return text.replace(/sekrit-\\d+/g, "[gone]");
    });
  },
});
`,
    );
    writeConfig(dir, { plugins: ["./plugins/reporting.mjs", "./plugins/redacting.mjs"] });
    const host = await createHost({ cwd: dir });
    try {
      expect(host.plugins.map((plugin) => plugin.settings)).toEqual([
        { mode: "auto → fast", token: "key [gone]", list: ["a", "[gone]"], count: 3, on: true, none: null, odd: "[withheld: redaction failed]" },
        {},
      ]);
    } finally {
      await host.harness.dispose();
    }
  });

  it("lists the files it was made from: the config, the plugins' packages and modules, and what each plugin reported", async () => {
    const reported = join(dir, "policy", "org.json");
    writeFile(
      join(dir, "plugins", "sourcing.mjs"),
      `import { definePlugin } from "@toolhost/core";
export default definePlugin({
  name: "sourcing",
  apply() {
    return { sources: [${JSON.stringify(reported)}, "relative/org.json", 42, ${JSON.stringify(`${dir}/policy/../policy/org.json`)}] };
  },
});
`,
    );
    const toy = join(dir, "node_modules", "toy-plugin");
    writeFile(join(toy, "package.json"), JSON.stringify({ name: "toy-plugin", version: "1.0.0", type: "module", main: "index.js" }));
    writeFile(join(toy, "index.js"), `import { definePlugin } from "@toolhost/core";\nexport default definePlugin({ name: "toy", apply() {} });\n`);
    const config = writeConfig(dir, { plugins: ["toy-plugin", "./plugins/sourcing.mjs"] });
    writeFile(join(dir, "sub", ".keep"), "");

    const host = await createHost({ cwd: join(dir, "sub") });
    try {
      expect(host.plugins.map((plugin) => plugin.sources)).toEqual([[], [reported]]);
      // Since owners: then the managed and user config folders and the trusted-folders file (a new config or trust there changes the host).
      expect(host.sources).toEqual([config, join(toy, "package.json"), join(toy, "index.js"), join(dir, "plugins", "sourcing.mjs"), reported, ...OWNER_PLACES]);
    } finally {
      await host.harness.dispose();
    }
    // A package left out by onlyProviding is not imported; its package.json (which says what it provides) is still a source.
    const policyOnly = await createHost({ cwd: dir, onlyProviding: "policy" });
    try {
      expect(policyOnly.plugins.map((plugin) => plugin.name)).toEqual(["sourcing"]);
      expect(policyOnly.sources).toEqual([config, join(toy, "package.json"), join(dir, "plugins", "sourcing.mjs"), reported, ...OWNER_PLACES]);
    } finally {
      await policyOnly.harness.dispose();
    }
    // Given a list, a package that provides any of them is applied (the hook loads the policy and the sandbox).
    writeFile(join(toy, "package.json"), JSON.stringify({ name: "toy-plugin", version: "1.0.0", type: "module", main: "index.js", toolhost: { provides: ["sandbox"] } }));
    const either = await createHost({ cwd: dir, onlyProviding: ["policy", "sandbox"] });
    try {
      expect(either.plugins.map((plugin) => plugin.name)).toEqual(["toy", "sourcing"]);
    } finally {
      await either.harness.dispose();
    }
  });

  it("finds the config file a search would load, by name only, nearest first", async () => {
    const { findConfigFile } = await import("@toolhost/core/config");
    const config = writeConfig(dir, { plugins: [] });
    writeFile(join(dir, "sub", "deeper", ".keep"), "");
    expect(findConfigFile(join(dir, "sub", "deeper"))).toBe(config);
    const yaml = writeFile(join(dir, "sub", "toolhost.config.yaml"), "not: [valid\n");
    expect(findConfigFile(join(dir, "sub", "deeper"))).toBe(yaml);
    const json = writeFile(join(dir, "sub", "toolhost.config.json"), "{}");
    expect(findConfigFile(join(dir, "sub"))).toBe(json);
    // Given the file found before, the search ends there: a nearer one is still found, that one is not checked.
    expect(findConfigFile(join(dir, "sub", "deeper"), yaml)).toBe(json);
    writeFile(join(dir, "sub", "deeper", "toolhost.config.mjs"), "export default {};");
    expect(findConfigFile(join(dir, "sub", "deeper"), config)).toBe(join(dir, "sub", "deeper", "toolhost.config.mjs"));
    expect(findConfigFile(dir, join(dir, "toolhost.config.yaml"))).toBe(config);
    expect(findConfigFile(join(dir, "elsewhere"), join(dir, "elsewhere", "toolhost.config.json"))).toBe(join(dir, "elsewhere", "toolhost.config.json"));
  });

  it("applies the plugins in order and tells what each added", async () => {
    writeConfig(dir, {
      toolExecution: "sequential",
      maxConcurrency: 3,
      toolTimeoutMs: 5000,
      plugins: [["./plugins/echo-plugin.mjs", { prefix: "# " }], "./plugins/guard-plugin.mjs"],
    });
    writeFile(join(dir, "sub", ".keep"), "");
    const host = await createHost({ cwd: join(dir, "sub") });
    try {
      expect(host.configPath).toBe(join(dir, "toolhost.config.json"));
      expect(host.workspace).toBe(dir);
      expect(host.missing).toEqual([]);
      expect(host.plugins).toEqual([
        // Since owners: whose configs name each plugin, and whose options it got.
        { name: "echo-plugin", version: "1.2.3", resolvedFrom: join(dir, "plugins", "echo-plugin.mjs"), tools: ["echo", "fail", "read_file"], settings: {}, sources: [], namedBy: ["project"], optionsFrom: "project" },
        { name: "guard-plugin", version: undefined, resolvedFrom: join(dir, "plugins", "guard-plugin.mjs"), tools: [], settings: {}, sources: [], namedBy: ["project"], optionsFrom: "project" },
      ]);
      const { harness } = host;
      expect([harness.cwd, harness.workspace, harness.toolExecution, harness.maxConcurrency, harness.toolTimeoutMs]).toEqual([
        join(dir, "sub"),
        dir,
        "sequential",
        3,
        5000,
      ]);
      const [result] = await harness.executeToolCalls([{ id: "1", name: "echo", arguments: { text: "hi" } }]);
      expect(result?.content).toEqual([{ type: "text", text: "# hi" }]);
    } finally {
      await host.harness.dispose();
    }
  });

  it("lets harnessOptions win over the config", async () => {
    writeConfig(dir, { toolExecution: "sequential", plugins: [] });
    const host = await createHost({ cwd: dir, harnessOptions: { toolExecution: "parallel", toolContext: { user: "u1" } } });
    expect(host.harness.toolExecution).toBe("parallel");
    expect(host.harness.toolContext).toEqual({ user: "u1" });
  });

  it("without a config resolves the default plugins from resolveFrom only, listing the missing", async () => {
    const host = await createHost({
      cwd: dir,
      resolveFrom: [join(dir, "plugins")],
      defaultPlugins: ["@toolhost/tool-fs", "@toolhost/tool-bash", ["@toolhost/hooks-policy", { extends: ["recommended"] }]],
    });
    expect(host.configPath).toBeUndefined();
    expect(host.workspace).toBe(dir);
    expect(host.plugins).toEqual([]);
    expect(host.missing).toEqual(["@toolhost/tool-fs", "@toolhost/tool-bash", "@toolhost/hooks-policy"]);
  });

  it("imports a package's ESM entry under the import condition, and its subpath exports", async () => {
    const pkg = join(dir, "node_modules", "cond-plugin");
    writeFile(
      join(pkg, "package.json"),
      JSON.stringify({
        name: "cond-plugin",
        version: "4.5.6",
        exports: { ".": { require: "./index.cjs", import: "./index.mjs" }, "./extra": { default: "./extra.mjs" } },
      }),
    );
    const plugin = (name: string) =>
      `import { definePlugin } from "@toolhost/core";\nexport default definePlugin({ name: "${name}", apply() {} });\n`;
    writeFile(join(pkg, "index.cjs"), "module.exports = { wrong: true };\n");
    writeFile(join(pkg, "index.mjs"), plugin("cond-plugin"));
    writeFile(join(pkg, "extra.mjs"), plugin("cond-plugin/extra"));
    writeConfig(dir, { plugins: ["cond-plugin", "cond-plugin/extra"] });
    const host = await createHost({ cwd: dir });
    expect(host.plugins.map((p) => [p.name, p.version, p.resolvedFrom])).toEqual([
      ["cond-plugin", "4.5.6", join(pkg, "index.mjs")],
      ["cond-plugin/extra", "4.5.6", join(pkg, "extra.mjs")],
    ]);
  });

  it("disposes the harness before it throws, so what earlier plugins started ends", async () => {
    const marker = join(dir, "disposed.txt");
    writeFile(
      join(dir, "plugins", "holds.mjs"),
      `import { writeFileSync } from "node:fs";
import { definePlugin } from "@toolhost/core";
export default definePlugin({ name: "holds", apply(h) { h.hooks.dispose.tapPromise("holds", async () => writeFileSync(${JSON.stringify(marker)}, "yes")); } });\n`,
    );
    writeConfig(dir, { plugins: ["./plugins/holds.mjs", "./plugins/absent.mjs"] });
    const failure = await createHost({ cwd: dir }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect(failure).toBeInstanceOf(ToolhostError);
    expect(failure).toMatchObject({
      code: "TOOLHOST_PLUGIN_NOT_FOUND",
      configPath: join(dir, "toolhost.config.json"),
      plugin: "./plugins/absent.mjs",
    });
    expect(existsSync(marker)).toBe(true);
  });
});

describe("findConfig and the schema", () => {
  it("finds nothing without a config, and reports CONFIG_NOT_FOUND for a named file", async () => {
    expect(await findConfig({ cwd: dir })).toBeUndefined();
    await expect(findConfig({ cwd: dir, configPath: "missing.yaml" })).rejects.toMatchObject({
      code: "TOOLHOST_CONFIG_NOT_FOUND",
      configPath: join(dir, "missing.yaml"),
    });
  });

  it("takes the first of the file names in a folder (json before yaml)", async () => {
    writeFile(join(dir, "toolhost.config.yaml"), "plugins: [a]\n");
    writeConfig(dir, { plugins: ["b"] });
    expect(await findConfig({ cwd: dir })).toEqual({
      path: join(dir, "toolhost.config.json"),
      config: { plugins: ["b"] },
      ignored: [join(dir, "toolhost.config.yaml")],
    });
  });

  it("gives a draft-07 JSON Schema without TypeBox's symbols", () => {
    const schema = configJsonSchema();
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    expect(Object.getOwnPropertySymbols(schema)).toEqual([]);
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });
});
