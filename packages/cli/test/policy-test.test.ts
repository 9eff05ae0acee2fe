// `toolhost policy test CASES.jsonl`: each case decided as `policy explain` would, a table of the
// cases decided otherwise with the rule that decided, exit 1 on any; a malformed file exits 2
// naming its lines. The real tool-fs, tool-bash and hooks-policy's recommended.
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, toolhost, writeConfig, writeFile, trust } from "./_helpers.js";

let dir: string;
beforeEach(() => {
  // Its tool-bash runs unsandboxed, which widens what calls reach: the test's user trusts the project, as they would.
  dir = trust(tempDir("toolhost-policy-test-"));
  writeConfig(dir, { plugins: ["@toolhost/tool-fs", ["@toolhost/tool-bash", { sandbox: "off" }], ["@toolhost/hooks-policy", { extends: ["recommended"] }]] });
});
afterEach(() => removeDir(dir));

const lines = (...cases: object[]): string => `${cases.map((each) => JSON.stringify(each)).join("\n")}\n`;

describe("toolhost policy test", () => {
  it("passes a file whose cases the policy decides as expected (not-allow: ask or deny; another host's tool by its access)", async () => {
    writeFile(
      join(dir, "cases.jsonl"),
      lines(
        { tool: "bash", args: { command: "ls" }, expect: "allow" },
        { tool: "bash", args: { command: "rm -rf /" }, expect: "deny" },
        { tool: "bash", args: { command: "rm -r build" }, expect: "ask" },
        { tool: "bash", args: { command: "rm -r build" }, expect: "not-allow" },
        { tool: "Bash", args: {}, access: { commands: [{ command: "rm -rf /", cwd: dir }] }, expect: "deny" },
        { tool: "read", args: { path: "toolhost.config.json" }, expect: "allow", cwd: dir },
      ),
    );
    const result = await toolhost(["policy", "test", "cases.jsonl"], { cwd: dir });
    expect(result.stdout).toBe("ok  cases.jsonl: 6 cases, all as expected\n");
    expect(result.code).toBe(0);
  });

  it("prints a table of the cases decided otherwise, with the rule that decided, and exits 1", async () => {
    writeFile(
      join(dir, "cases.jsonl"),
      lines({ tool: "bash", args: { command: "ls" }, expect: "allow" }, { tool: "bash", args: { command: "rm -r build" }, expect: "allow" }, { tool: "bash", args: { command: "rm -rf /" }, expect: "not-allow" }, { tool: "bash", args: { command: "git status" }, expect: "deny" }),
    );
    const result = await toolhost(["policy", "test", "cases.jsonl"], { cwd: dir });
    expect(result.code).toBe(1);
    const [title, head, ...rows] = result.stdout.trimEnd().split("\n");
    expect(title).toBe("not as expected  cases.jsonl: 2 of 4 cases");
    expect(head).toMatch(/^line +tool +call +expected +got +decided by$/);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^2 +bash +\{"command":"rm -r build"\} +allow +ask +recommended:rules\[\d+\]/);
    expect(rows[1]).toMatch(/^4 +bash +\{"command":"git status"\} +deny +allow +recommended:rules\[\d+\]/);
    const json = await toolhost(["--json", "policy", "test", "cases.jsonl"], { cwd: dir });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ file: "cases.jsonl", cases: 4, mismatches: [{ line: 2, expect: "allow", decision: "ask" }, { line: 4, expect: "deny", decision: "allow" }] });
  });

  it("exits 2 on a malformed file, naming each bad line, before deciding anything", async () => {
    writeFile(join(dir, "cases.jsonl"), `${JSON.stringify({ tool: "bash", args: { command: "ls" }, expect: "allow" })}\n\n{"tool": "bash", "expect": "maybe"}\nnot json\n{"args": {}}\n`);
    const result = await toolhost(["policy", "test", "cases.jsonl"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("cases.jsonl has lines that are not policy cases:");
    expect(result.stderr).toContain('line 3: "expect" is "maybe", not one of "allow", "ask", "deny", "not-allow"');
    expect(result.stderr).toContain("line 4: not valid JSON");
    expect(result.stderr).toContain('line 5: "tool" is missing or not a string');
    expect(result.stderr).toContain("(TOOLHOST_USAGE)");
  });

  it("exits 2 for a case of a tool the config lacks, naming its line and the likely tool", async () => {
    writeFile(join(dir, "cases.jsonl"), lines({ tool: "bash", args: { command: "ls" }, expect: "allow" }, { tool: "bsh", args: { command: "ls" }, expect: "allow" }));
    const result = await toolhost(["policy", "test", "cases.jsonl"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('line 2 (bsh) cannot be judged: The config has no tool "bsh"');
    expect(result.stderr).toContain('Did you mean "bash"?');
  });

  it("reads the cases from standard input with -", async () => {
    const result = await toolhost(["policy", "test", "-"], { cwd: dir, input: lines({ tool: "bash", args: { command: "ls" }, expect: "allow" }) });
    expect(result.stdout).toBe("ok  standard input: 1 case, all as expected\n");
    expect(result.code).toBe(0);
  });
});
