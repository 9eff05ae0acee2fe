// Every case of hooks-policy's policy-cases.json, through `toolhost policy explain - --json`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The cases and the workspace they describe are hooks-policy's; this runs them through the CLI.
import { inWorkspace, makeWorkspace, policyCases } from "../../hooks-policy/test/_helpers.js";
import { jsonLines, toolhost, writeConfig } from "./_helpers.js";
import { withAccessTools } from "./_policy-tools.js";

const { rulesets, cases } = policyCases;

for (const [name, ruleset] of Object.entries(rulesets)) {
  const ofSet = cases.filter((each) => each.ruleset === name);
  if (ofSet.length === 0) continue;
  describe(`policy cases of ruleset ${name}`, () => {
    let dir: string;
    let cleanup: () => void;
    let decisions: Array<{ decision?: string; error?: unknown }> = [];
    beforeAll(async () => {
      ({ ws: dir, cleanup } = makeWorkspace());
      writeConfig(dir, { plugins: [withAccessTools(dir), ["@toolhost/hooks-policy", ruleset]] });
      const input = ofSet.map((each) => JSON.stringify({ tool: each.tool, args: inWorkspace(each.args, dir) })).join("\n");
      const result = await toolhost(["--cwd", dir, "policy", "explain", "-", "--json"], { cwd: dir, input });
      expect(result.stderr).toBe("");
      decisions = jsonLines(result.stdout) as typeof decisions;
      expect(decisions).toHaveLength(ofSet.length);
    });
    afterAll(() => cleanup());

    for (const [index, each] of ofSet.entries()) {
      it(`${each.id}: ${each.tool} ${JSON.stringify(each.args)} is ${each.expect}${each.note ? ` (${each.note})` : ""}`, () => {
        const got = decisions[index]?.decision;
        if (each.expect === "not-allow") expect(["ask", "deny"]).toContain(got);
        else expect(got).toBe(each.expect);
      });
    }
  });
}
