import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jsonLines, project, removeDir, tempDir, toolhost, writeConfig, writeFile } from "./_helpers.js";

let dir: string;
beforeEach(() => {
  dir = project(tempDir());
  // Real tools (bash, read, …), so what is explained is a call the config could make.
  writeConfig(dir, { plugins: ["@toolhost/tool-bash", "@toolhost/tool-fs", "./plugins/fake-policy-plugin.mjs"] });
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
    writeFile(join(dir, "a"), "a\n");
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

  it("exits 2 for a tool the config lacks, with the closest name", async () => {
    const result = await toolhost(["policy", "explain", "bsh", '{"command":"ls"}'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain('The config has no tool "bsh", so there is no call to explain. Did you mean "bash"?');
    expect(result.stderr).toContain("(TOOLHOST_TOOL_NOT_FOUND)");
    const json = await toolhost(["--json", "policy", "explain", "bsh", "{}"], { cwd: dir });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: "TOOLHOST_TOOL_NOT_FOUND" } });
  });

  it("exits 2 for arguments the tool's schema refuses, saying where", async () => {
    const result = await toolhost(["policy", "explain", "read", '{"path": 3}'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Invalid arguments for tool "read"');
    expect(result.stderr).toContain("/path");
    expect(result.stderr).toContain('See "toolhost schema read".');
    expect(result.stderr).toContain("(TOOLHOST_INVALID_ARGUMENTS)");
  });

  it("judges the arguments the pipeline would: a tool's other spellings are prepared first", async () => {
    // tool-fs takes Claude Code's `file_path` for `path`; the policy must see the path it names.
    writeConfig(dir, { plugins: ["@toolhost/tool-fs", ["@toolhost/hooks-policy", { extends: ["recommended"] }]] });
    writeFile(join(dir, ".env"), "TOKEN=x\n");
    writeFile(join(dir, "src", "a.ts"), "export {};\n");
    const result = await toolhost(["--json", "policy", "explain", "read", '{"file_path": ".env"}'], { cwd: dir });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const explanation = JSON.parse(result.stdout) as { decision: string; parts: Array<{ kind: string; subject: string }> };
    expect(explanation.decision).toBe("deny");
    expect(explanation.parts).toContainEqual(expect.objectContaining({ subject: join(dir, ".env") }));
    const lines = await toolhost(["policy", "explain", "-"], { cwd: dir, input: JSON.stringify({ tool: "read", args: { file_path: "src/a.ts" } }) });
    expect(lines.code).toBe(0);
    expect(jsonLines(lines.stdout)).toEqual([expect.objectContaining({ decision: "allow", tool: "read" })]);
  });

  it("judges a path that does not exist yet, saying so and what the tool would make of the call (issue 29; it exited 2 before)", async () => {
    // With any policy: the explanation, then how the call would end as it is.
    const result = await toolhost(["policy", "explain", "read", '{"path": "missing.txt"}'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^refused {2}read: .*TOOLHOST_FS_NOT_FOUND.*"missing\.txt" does not exist/);
    const json = JSON.parse((await toolhost(["--json", "policy", "explain", "read", '{"path": "missing.txt"}'], { cwd: dir })).stdout) as { wouldEnd?: { code: string } };
    expect(json.wouldEnd?.code).toBe("TOOLHOST_FS_NOT_FOUND");
    // With hooks-policy, the path itself is judged (and said not to exist); a denied one is denied whether or not it exists yet.
    writeConfig(dir, { plugins: ["@toolhost/tool-fs", ["@toolhost/hooks-policy", { extends: ["recommended"] }]] });
    const judged = await toolhost(["policy", "explain", "read", '{"path": "missing.txt"}'], { cwd: dir });
    expect(judged.stdout).toContain(`${join(dir, "missing.txt")} does not exist yet: read would refuse the call as it is`);
    const secret = JSON.parse((await toolhost(["--json", "policy", "explain", "read", '{"path": "sub/.env"}'], { cwd: dir })).stdout) as { decision: string };
    expect(secret.decision).toBe("deny");
  });

  it('with "-", a line of an unknown tool without "access", or with invalid arguments, is an error line; exit 2', async () => {
    const input = [
      JSON.stringify({ tool: "bash", args: { command: "ls" } }),
      JSON.stringify({ tool: "bsh", args: { command: "ls" } }),
      JSON.stringify({ tool: "read", args: {} }),
      JSON.stringify({ tool: "Bash", args: { command: "ls" }, access: { commands: [{ command: "ls", cwd: dir }] } }),
    ].join("\n");
    const result = await toolhost(["policy", "explain", "-"], { cwd: dir, input });
    expect(result.code).toBe(2);
    const lines = jsonLines(result.stdout) as Array<Record<string, unknown>>;
    expect(lines[0]).toMatchObject({ decision: "allow", tool: "bash" });
    expect(lines[1]).toMatchObject({ line: 2, error: { code: "TOOLHOST_TOOL_NOT_FOUND", message: expect.stringContaining('Did you mean "bash"?') } });
    expect(lines[2]).toMatchObject({ line: 3, error: { code: "TOOLHOST_INVALID_ARGUMENTS" } });
    // Another host's tool, judged by the access the line gives.
    expect(lines[3]).toMatchObject({ decision: "allow", tool: "Bash" });
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

describe("toolhost policy explain, for a person", () => {
  it("marks the rule that decided and the ones it overruled, with their layers, and says a note the parts share once", async () => {
    const result = await toolhost(["policy", "explain", "bash", '{"command":"deploy web && deploy api"}'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        "ask  bash: deploys need a look",
        "  note: the call runs unconfined",
        "  ask  command deploy web  (web is a target)",
        "      overruled allow base:all (base, user)",
        "      decided   ask   team:deploy (team, project)  deploys need a look",
        "  ask  command deploy api  (api is a target)",
        "      overruled allow base:all (base, user)",
        "      decided   ask   team:deploy (team, project)  deploys need a look",
        "  approve in advance: --approve 'bash:deploy web' --approve 'bash:deploy api' (or --approve 'team:deploy')",
        "",
      ].join("\n"),
    );
  });

  it("gives an ask of the default the same --approve hint as a rule's ask", async () => {
    writeConfig(dir, { plugins: ["./plugins/echo-plugin.mjs", ["@toolhost/tool-bash", { sandbox: "off" }], ["@toolhost/hooks-policy", { extends: ["recommended"], default: "ask" }]] });
    const byDefault = await toolhost(["policy", "explain", "echo", '{"text":"hi"}'], { cwd: dir });
    expect(byDefault.stdout).toContain("no rule matched: the default decides");
    expect(byDefault.stdout).toContain("approve in advance: --approve 'echo'\n");
    const byRule = await toolhost(["policy", "explain", "bash", '{"command":"rm -r build"}'], { cwd: dir });
    expect(byRule.stdout).toMatch(/approve in advance: --approve 'bash:rm -r build' \(or --approve 'recommended:rules\[\d+\]'\)\n/);
    // And the value the hint gives does pass the ask.
    const approved = await toolhost(["call", "echo", '{"text":"hi"}', "--approve", "echo"], { cwd: dir });
    expect(approved.code).toBe(0);
    expect(approved.stdout).toBe("hi\n");
  });
});
