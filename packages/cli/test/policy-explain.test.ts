import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jsonLines, project, removeDir, tempDir, toolhost, writeConfig } from "./_helpers.js";

let dir: string;
beforeEach(() => {
  dir = project(tempDir());
  writeConfig(dir, { plugins: ["./plugins/fake-policy-plugin.mjs"] });
});
afterEach(() => removeDir(dir));

describe("toolhost policy explain", () => {
  it("shows the decision, then every part with the rules that matched", async () => {
    const result = await toolhost(["policy", "explain", "bash", '{"command":"ls && rm -rf build"}'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        "deny  bash: rm is denied",
        "  allow  command ls",
        "      no rule matched: the default decides",
        "  deny  command rm -rf build",
        "      deny  no-rm  rm is denied",
        "",
      ].join("\n"),
    );
  });

  it("--json prints the explanation as one object, with the working directory passed on", async () => {
    const result = await toolhost(["--json", "policy", "explain", "read", '{"path":"a"}'], { cwd: dir });
    expect(JSON.parse(result.stdout)).toMatchObject({ decision: "allow", tool: "read", reason: `allowed in ${dir}` });
  });

  it('reads JSON lines with "-" and prints one object a line; a bad line is reported and exits 2', async () => {
    const input = [
      JSON.stringify({ tool: "bash", args: { command: "rm x" } }),
      "",
      JSON.stringify({ tool: "bash", args: { command: "ls" }, cwd: "/somewhere" }),
      "not json",
    ].join("\n");
    const result = await toolhost(["policy", "explain", "-", "--json"], { cwd: dir, input });
    expect(result.code).toBe(2);
    const lines = jsonLines(result.stdout) as Array<Record<string, unknown>>;
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ decision: "deny" });
    expect(lines[1]).toMatchObject({ decision: "allow", reason: "allowed in /somewhere" });
    expect(lines[2]).toMatchObject({ line: 4, error: { code: "TOOLHOST_USAGE" } });
  });

  it("exits 2 and says to add @toolhost/hooks-policy when no policy is configured", async () => {
    writeConfig(dir, { plugins: ["./plugins/echo-plugin.mjs"] });
    const result = await toolhost(["policy", "explain", "bash", '{"command":"ls"}'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("No policy plugin is configured");
    expect(result.stderr).toContain('Add "@toolhost/hooks-policy" to "plugins" in');
    expect(result.stderr).toContain("npm i -D @toolhost/hooks-policy");
    expect(result.stderr).toContain("(TOOLHOST_NO_POLICY)");
  });
});
