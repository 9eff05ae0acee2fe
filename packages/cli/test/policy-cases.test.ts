// Every case of hooks-policy's policy-cases.json, through `toolhost policy explain - --json`.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonLines, removeDir, tempDir, toolhost, writeConfig } from "./_helpers.js";

interface PolicyCase {
  id: string;
  ruleset: string;
  tool: string;
  args: unknown;
  expect: "allow" | "ask" | "deny" | "not-allow";
  note?: string;
}

const CASES_FILE = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "hooks-policy", "test", "policy-cases.json");
const { rulesets, cases } = JSON.parse(readFileSync(CASES_FILE, "utf8")) as {
  rulesets: Record<string, unknown>;
  cases: PolicyCase[];
};

/** The workspace the cases' "about" describes. */
function workspace(): string {
  const dir = tempDir("toolhost-policy-cases-");
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "a.ts"), "export const a = 1;\n");
  writeFileSync(join(dir, ".env"), "SECRET=1\n");
  writeFileSync(join(dir, "out.txt"), "out\n");
  mkdirSync(join(dir, "sub"));
  symlinkSync("/etc/passwd", join(dir, "link-to-passwd"));
  symlinkSync(".env", join(dir, "env-link"));
  return dir;
}

const substitute = (value: unknown, dir: string): unknown =>
  JSON.parse(JSON.stringify(value).replaceAll("${workspace}", dir.replaceAll("\\", "\\\\").replaceAll('"', '\\"')));

for (const [name, ruleset] of Object.entries(rulesets)) {
  const ofSet = cases.filter((each) => each.ruleset === name);
  if (ofSet.length === 0) continue;
  describe(`policy cases of ruleset ${name}`, () => {
    let dir: string;
    let decisions: Array<{ decision?: string; error?: unknown }> = [];
    beforeAll(async () => {
      dir = workspace();
      writeConfig(dir, { plugins: [["@toolhost/hooks-policy", ruleset]] });
      const input = ofSet.map((each) => JSON.stringify({ tool: each.tool, args: substitute(each.args, dir) })).join("\n");
      const result = await toolhost(["--cwd", dir, "policy", "explain", "-", "--json"], { cwd: dir, input });
      expect(result.stderr).toBe("");
      decisions = jsonLines(result.stdout) as typeof decisions;
      expect(decisions).toHaveLength(ofSet.length);
    });
    afterAll(() => removeDir(dir));

    for (const [index, each] of ofSet.entries()) {
      it(`${each.id}: ${each.tool} ${JSON.stringify(each.args)} is ${each.expect}${each.note ? ` (${each.note})` : ""}`, () => {
        const got = decisions[index]?.decision;
        if (each.expect === "not-allow") expect(["ask", "deny"]).toContain(got);
        else expect(got).toBe(each.expect);
      });
    }
  });
}
