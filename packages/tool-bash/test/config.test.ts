import { rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createHost } from "@toolhost/core/config";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempFolder, textOf } from "./_helpers.js";

// The built package, as a host finds it: by name, from a folder whose node_modules lead to it.
const packageFolder = fileURLToPath(new URL("..", import.meta.url));

let dir: string;
let remove: () => void;
beforeEach(() => {
  ({ dir, remove } = tempFolder());
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
