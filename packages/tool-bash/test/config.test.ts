import { rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createHost, trustFolder } from "@toolhost/core/config";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempFolder, textOf } from "./_helpers.js";

// The built package, as a host finds it: by name, from a folder whose node_modules lead to it.
const packageFolder = fileURLToPath(new URL("..", import.meta.url));

let dir: string;
let remove: () => void;
// The test's own user and managed config folders (never the machine's), in which its user trusts
// the project: the config sets `env`, which only a trusted config may (docs/trust.md).
const configHome = tempFolder();
process.env.XDG_CONFIG_HOME = configHome.dir;
process.env.TOOLHOST_MANAGED_CONFIG_DIR = join(configHome.dir, "managed");
afterAll(() => configHome.remove());
beforeEach(() => {
  ({ dir, remove } = tempFolder());
  trustFolder(dir, process.env);
});
const spills: string[] = [];
afterEach(() => {
  remove();
  for (const path of spills.splice(0)) rmSync(dirname(path), { recursive: true, force: true });
});

function writeConfig(plugins: unknown[]): void {
  writeFileSync(join(dir, "toolhost.config.json"), JSON.stringify({ plugins }));
}

describe("the plugin loaded from a config", () => {
  it("registers bash with the config's options", async () => {
    writeConfig([["@toolhost/tool-bash", { env: { FROM_CONFIG: "yes" }, maxStdoutLines: 2 }]]);
    const host = await createHost({ cwd: dir, resolveFrom: [packageFolder] });
    try {
      expect(host.plugins.map((plugin) => [plugin.name, plugin.tools])).toEqual([["@toolhost/tool-bash", ["bash"]]]);
      const [here, lines] = await host.harness.executeToolCalls([
        { id: "1", name: "bash", arguments: { command: 'pwd; echo "$FROM_CONFIG"' } },
        { id: "2", name: "bash", arguments: { command: "seq 1 5" } },
      ]);
      expect(textOf(here as never)).toBe(`${dir}\nyes`);
      const path = (lines?.details as { fullOutputPath: string }).fullOutputPath;
      spills.push(path);
      const until = (lines?.details as { fullOutputExpiresAt: string }).fullOutputExpiresAt;
      expect(textOf(lines as never)).toBe(`1\n… 3 lines left out; full output: ${path} (kept until ${until})\n5`);
    } finally {
      await host.harness.dispose();
    }
  });

  it("reports the settings it runs with: the sandbox as decided at load, with the reason when there is none", async () => {
    writeConfig([
      ["@toolhost/tool-bash", { commandPrefix: "set -o pipefail", env: { HIDDEN_VALUE: "not shown" }, timeout: 30, root: "host" }],
    ]);
    const host = await createHost({ cwd: dir, resolveFrom: [packageFolder] });
    try {
      expect(host.plugins[0]?.settings).toEqual({
        sandbox: expect.stringMatching(/^auto → bwrap \d+(\.\d+)+ \(\/\S+\/bwrap\)$/),
        writable: [dir],
        network: "off",
        commandPrefix: "set -o pipefail",
        cwd: dir,
        timeout: "30 s",
        shell: "bash, else sh",
        env: ["HIDDEN_VALUE"],
        executionMode: "sequential",
        fullOutput: "a private file per truncated call, at most 8 GiB (default), each kept 3600 s",
      });
    } finally {
      await host.harness.dispose();
    }
    // A PATH in the config changes what the commands find, never which bwrap the host runs (the system's).
    writeConfig([["@toolhost/tool-bash", { sandbox: "required", env: { PATH: join(dir, "no-bin") } }]]);
    const elsewhere = await createHost({ cwd: dir, resolveFrom: [packageFolder] });
    try {
      expect(elsewhere.plugins[0]?.settings).toMatchObject({ sandbox: expect.stringMatching(/^required → bwrap \d+(\.\d+)+ \(\/usr\/bin\/bwrap\)$/), writable: [dir] });
    } finally {
      await elsewhere.harness.dispose();
    }
  });

  it("refuses bad options with the option's path, the plugin and the config file", async () => {
    writeConfig([["@toolhost/tool-bash", { timeout: "soon" }]]);
    const error = await createHost({ cwd: dir, resolveFrom: [packageFolder] }).then(
      () => undefined,
      (thrown: unknown) => thrown as Error,
    );
    expect(error?.message).toContain("/timeout");
    expect(error?.message).toContain('plugin "@toolhost/tool-bash"');
    expect(error?.message).toContain(join(dir, "toolhost.config.json"));
  });
});
