// Every command class of hooks-policy's issue-12 table (test/classes.ts), through
// `toolhost policy explain - --json`: the built CLI, a config with tools that declare access.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLASSES } from "../../hooks-policy/test/classes.js";
import { inWorkspace, makeWorkspace } from "../../hooks-policy/test/_helpers.js";
import { jsonLines, toolhost, writeConfig } from "./_helpers.js";
import { withAccessTools } from "./_policy-tools.js";

let dir = "";
let cleanup = () => {};
beforeAll(() => {
  ({ ws: dir, cleanup } = makeWorkspace());
  withAccessTools(dir);
});
afterAll(() => cleanup());

for (const each of CLASSES) {
  describe(`toolhost policy explain: ${each.name}`, () => {
    let decisions: Array<{ decision?: string; reason?: string }> = [];
    beforeAll(async () => {
      writeConfig(dir, { plugins: ["./plugins/access-tools.mjs", ["@toolhost/hooks-policy", inWorkspace(each.options, dir)]] });
      const input = each.cases.map((one) => JSON.stringify({ tool: "bash", args: { command: one.command } })).join("\n");
      const result = await toolhost(["--cwd", dir, "policy", "explain", "-", "--json"], { cwd: dir, input });
      expect(result.stderr).toBe("");
      decisions = jsonLines(result.stdout) as typeof decisions;
      expect(decisions).toHaveLength(each.cases.length);
    });

    it.each(each.cases.map((one, index) => ({ ...one, index })))("$command → $expect", ({ index, expect: expected }) => {
      expect(decisions[index]?.decision, decisions[index]?.reason).toBe(expected);
    });
  });
}
