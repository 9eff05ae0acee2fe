// The policy composed from the owners' configs, through the built CLI and the real host: rules
// and explanations name each rule's owner and file; an untrusted project's policy that is code is
// refused with the command that trusts the folder, and loads once trusted; the administrator's
// audit log gets every call whatever the project says. (owners-policy.test.ts has the locked
// floor through every front end.)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MANAGED_CONFIG_DIR, removeDir, tempDir, toolhost, USER_CONFIG_DIR, writeConfig } from "./_helpers.js";

const BASH = ["@toolhost/tool-bash", { sandbox: "off" }];
let dir = "";
beforeEach(() => {
  dir = tempDir("toolhost-policy-owners-");
});
afterEach(() => {
  removeDir(dir);
  removeDir(USER_CONFIG_DIR);
  removeDir(MANAGED_CONFIG_DIR);
});

describe("the owners' policy through the CLI", { timeout: 120_000 }, () => {
  it("policy rules and explain name each rule's owner and file, and which rule decided", async () => {
    // The user runs bash unsandboxed (a widening only their own config, or a trusted project, may choose); the project's same value is no wider.
    const userConfig = writeConfig(USER_CONFIG_DIR, { plugins: [BASH, ["@toolhost/hooks-policy", { locked: true, rules: [{ id: "no-curl", tool: "bash", command: "curl *", decision: "deny" }] }]] });
    const projectConfig = writeConfig(dir, { plugins: [BASH, ["@toolhost/hooks-policy", { rules: [{ tool: "bash", command: "*", decision: "allow" }] }]] });
    const rules = JSON.parse((await toolhost(["--json", "policy", "rules"], { cwd: dir })).stdout) as Array<Record<string, unknown>>;
    expect(rules.map((rule) => [rule.id, rule.owner, rule.locked, rule.source])).toEqual([
      ["no-curl", "user", true, userConfig],
      ["rules[0]", "project", false, projectConfig],
    ]);
    const explained = await toolhost(["--json", "policy", "explain", "bash", '{"command":"curl https://example.com"}'], { cwd: dir });
    expect(explained.code).toBe(0);
    const explanation = JSON.parse(explained.stdout) as { decision: string; reason: string; parts: Array<{ matched: Array<Record<string, unknown>> }> };
    expect(explanation.decision).toBe("deny");
    expect(explanation.reason).toContain("denied by config (user, locked)");
    expect(explanation.parts[0]?.matched).toEqual([
      expect.objectContaining({ id: "no-curl", owner: "user", role: "decided" }),
      expect.objectContaining({ id: "rules[0]", owner: "project", role: "overruled" }),
    ]);
  });

  it("an untrusted project's policy package that is code is refused with the command that trusts it; trusted, it loads", async () => {
    const marker = join(dir, "ran.txt");
    mkdirSync(join(dir, "node_modules", "team-policy"), { recursive: true });
    writeFileSync(join(dir, "node_modules", "team-policy", "package.json"), JSON.stringify({ name: "team-policy", main: "index.js" }));
    writeFileSync(join(dir, "node_modules", "team-policy", "index.js"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\nmodule.exports = { rules: [] };\n`);
    writeConfig(dir, { plugins: [BASH, ["@toolhost/hooks-policy", { extends: ["team-policy"] }]] });
    const refused = await toolhost(["call", "bash", '{"command":"echo hi"}'], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('The policy "team-policy" in extends of @toolhost/hooks-policy');
    expect(refused.stderr).toContain(`run "toolhost trust ${dir}"`);
    expect(refused.stderr).toContain("(TOOLHOST_UNTRUSTED_CODE)");
    expect(existsSync(marker)).toBe(false);
    expect((await toolhost(["trust", dir], { cwd: dir })).code).toBe(0);
    const loaded = await toolhost(["call", "bash", '{"command":"echo hi"}'], { cwd: dir });
    expect(existsSync(marker)).toBe(true);
    expect(loaded.stderr).not.toContain("TOOLHOST_UNTRUSTED_CODE");
  });

  it("the administrator's audit log gets every call, whatever the project's config says", async () => {
    writeConfig(MANAGED_CONFIG_DIR, { plugins: [["@toolhost/hooks-policy", { audit: "audit.jsonl" }]] });
    // Unsandboxed by the user's choice: the project (not trusted: its log may not be written outside it) says the same.
    writeConfig(USER_CONFIG_DIR, { plugins: [BASH] });
    writeConfig(dir, { plugins: [BASH, ["@toolhost/hooks-policy", { default: "allow", rules: [{ tool: "bash", command: "*", decision: "allow" }] }]] });
    expect((await toolhost(["call", "bash", '{"command":"echo one"}'], { cwd: dir })).code).toBe(0);
    const lines = readFileSync(join(MANAGED_CONFIG_DIR, "audit.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([expect.objectContaining({ event: "decision", tool: "bash", decision: "allow", deciding: [expect.objectContaining({ owner: "project" })] })]);
    // An untrusted project may not have a log of its own written outside its folder.
    writeConfig(dir, { plugins: [BASH, ["@toolhost/hooks-policy", { audit: join(USER_CONFIG_DIR, "..", "elsewhere.jsonl") }]] });
    const outside = await toolhost(["call", "bash", '{"command":"echo two"}'], { cwd: dir });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain("is outside the workspace");
  });
});
