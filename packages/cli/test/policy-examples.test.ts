// A rule's examples through the built CLI: checked when the config loads (a failing one stops
// every command before anything runs, exit 2, naming the rule, its file and what decided instead).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, toolhost, writeConfig, trust } from "./_helpers.js";

let dir = "";
beforeEach(() => {
  // Its tool-bash runs unsandboxed, which widens what calls reach: the test's user trusts the project, as they would.
  dir = trust(tempDir("toolhost-examples-"));
});
afterEach(() => removeDir(dir));

const policyWith = (examples: Record<string, unknown>) => ({
  plugins: [
    ["@toolhost/tool-bash", { sandbox: "off" }],
    ["@toolhost/hooks-policy", { extends: ["recommended"], rules: [{ id: "no-force-push", tool: "bash", command: "git push --force *", decision: "deny", examples }] }],
  ],
});

describe("a rule's examples", { timeout: 120_000 }, () => {
  it("that hold let the config load", async () => {
    writeConfig(dir, policyWith({ match: [{ tool: "bash", args: { command: "git push -f origin main" } }], notMatch: [{ tool: "bash", args: { command: "git push origin main" } }] }));
    const result = await toolhost(["--json", "policy", "explain", "bash", '{"command":"git push --force origin dev"}'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ decision: "deny", rules: ["no-force-push"] });
  });

  it("that fail stop every command, naming the rule, its file and what decided instead", async () => {
    const configPath = writeConfig(dir, policyWith({ match: [{ tool: "bash", args: { command: "git push origin main" } }] }));
    const result = await toolhost(["call", "bash", '{"command":"ls"}'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(`match[0] of rule no-force-push (config, project, ${configPath})`);
    expect(result.stderr).toContain("should be decided deny by this rule, but is decided ask: git push origin main: asked by recommended");
    expect(result.stderr).toContain("(TOOLHOST_POLICY_EXAMPLE_FAILED)");
  });
});
