// Approvals given in advance: `--approve` and TOOLHOST_APPROVE on call, run and agent, with the
// real tool-bash and hooks-policy; refusals without a terminal name the flag or config line.
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI, textTurn, toolCallsTurn } from "../../provider-openai/test/_fake-openai.js";
import { inTerminal, jsonLines, project, removeDir, tempDir, toolhost, trust, writeConfig } from "./_helpers.js";
import { withAccessTools } from "./_policy-tools.js";

const BASH = ["@toolhost/tool-bash", { sandbox: "off", timeout: 30 }];

let dir = "";
let configPath = "";
let rmRule = "";
beforeEach(async () => {
  // Its tool-bash runs unsandboxed, which widens what calls reach: the test's user trusts the project, as they would.
  dir = trust(tempDir("toolhost-approve-"));
  for (const folder of ["out", "src", "keep"]) mkdirSync(join(dir, folder));
  configPath = writeConfig(dir, { plugins: [BASH, ["@toolhost/hooks-policy", { extends: ["recommended"], rules: [{ id: "keep-it", tool: "bash", command: "rm -rf keep", decision: "deny" }] }]] });
  // The preset's rule that asks about rm, by the id `toolhost policy rules` lists.
  const rules = JSON.parse((await toolhost(["--json", "policy", "rules"], { cwd: dir })).stdout) as Array<{ id: string; decision: string; matcher: string; layer: string }>;
  rmRule = rules.find((rule) => rule.layer === "recommended" && rule.decision === "ask" && rule.matcher === '"rm"')?.id ?? "";
  expect(rmRule).toMatch(/^recommended:rules\[\d+\]$/);
});
afterEach(() => removeDir(dir));

const rm = (folder: string) => JSON.stringify({ command: `rm -rf ${folder}` });

describe("--approve", () => {
  it("passes recommended's ask for the command it names, so it runs; a different command is refused with the flag that would allow it", async () => {
    const approved = await toolhost(["call", "bash", rm("out"), "--approve", "bash:rm -rf out"], { cwd: dir });
    expect(approved.code).toBe(0);
    expect(existsSync(join(dir, "out"))).toBe(false);
    expect(approved.stderr).toContain("bash: approved by --approve 'bash:rm -rf out'");

    const other = await toolhost(["call", "bash", rm("src"), "--approve", "bash:rm -rf out"], { cwd: dir });
    expect(other.code).toBe(2);
    expect(existsSync(join(dir, "src"))).toBe(true);
    expect(other.stderr).toContain("no one could approve it: there is no terminal to ask in, and the --approve values given do not cover it.");
    expect(other.stderr).toContain("run again with --approve 'bash:rm -rf src'");
    expect(other.stderr).toContain(`--approve '${rmRule}' (every call recommended › "rm" asks about)`);
    expect(other.stderr).toContain(`add {"tool": "bash", "command": "rm -rf src", "decision": "allow"} to the "rules" of @toolhost/hooks-policy in ${configPath}`);
  });

  it("the refusal's flag, given, runs the call; a rule id passes every ask of that rule", async () => {
    const refused = await toolhost(["--json", "call", "bash", rm("src")], { cwd: dir });
    expect(refused.code).toBe(2);
    const text = (JSON.parse(refused.stdout) as { content: Array<{ text: string }> }).content[0]?.text ?? "";
    const flag = /--approve '([^']+)'/.exec(text)?.[1] ?? "";
    expect(flag).toBe("bash:rm -rf src");
    expect((await toolhost(["call", "bash", rm("src"), "--approve", flag], { cwd: dir })).code).toBe(0);
    expect(existsSync(join(dir, "src"))).toBe(false);

    mkdirSync(join(dir, "other"));
    const byRule = await toolhost(["call", "bash", JSON.stringify({ command: "rm -rf out && rm -r other" }), "--approve", rmRule], { cwd: dir });
    expect(byRule.code).toBe(0);
    expect(existsSync(join(dir, "out"))).toBe(false);
    expect(existsSync(join(dir, "other"))).toBe(false);
  });

  it("a last * covers further words, a * within a word stays in it", async () => {
    mkdirSync(join(dir, "out", "a"));
    mkdirSync(join(dir, "out", "b"));
    const both = await toolhost(["call", "bash", JSON.stringify({ command: "rm -rf out/a out/b" }), "--approve", "bash:rm -rf out/a *"], { cwd: dir });
    expect(both.code).toBe(0);
    const outside = await toolhost(["call", "bash", rm("src"), "--approve", "bash:rm -rf out/*"], { cwd: dir });
    expect(outside.code).toBe(2);
    expect(existsSync(join(dir, "src"))).toBe(true);
  });

  it("never passes a deny, by a pattern or by the deny rule's id", async () => {
    const byPattern = await toolhost(["call", "bash", rm("keep"), "--approve", "bash:rm -rf keep", "--approve", "bash:rm *"], { cwd: dir });
    expect(byPattern.code).toBe(2);
    expect(byPattern.stderr).toContain('Blocked by @toolhost/hooks-policy: rm -rf keep: denied by config › "rm -rf keep" (keep-it)');
    expect(existsSync(join(dir, "keep"))).toBe(true);
    const byId = await toolhost(["call", "bash", rm("keep"), "--approve", "keep-it"], { cwd: dir });
    expect(byId.code).toBe(2);
    expect(byId.stderr).toContain("--approve 'keep-it' names a rule that denies, not one that asks: --approve passes asks only, never a deny.");
    expect(existsSync(join(dir, "keep"))).toBe(true);
    // A word known only at run time could make it `rm -rf /`: a deny that may apply is never passed either.
    const maybe = await toolhost(["call", "bash", JSON.stringify({ command: 'rm -rf "$TARGET"' }), "--approve", 'bash:rm -rf "$TARGET"', "--approve", rmRule], { cwd: dir, env: { TARGET: "keep" } });
    expect(maybe.code).toBe(2);
    expect(maybe.stderr).toContain("may turn out to be denied (by recommended › ");
    expect(maybe.stderr).toContain("--approve never passes a possible deny");
    expect(existsSync(join(dir, "keep"))).toBe(true);
  });

  it("a call with more asking parts than the policy lists is not passed: the rest could not be checked", async () => {
    const command = Array.from({ length: 101 }, (_, i) => `rm -rf out/n${i}`).join("; ");
    const result = await toolhost(["call", "bash", JSON.stringify({ command }), "--approve", rmRule], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("(1 left out), so --approve cannot check them all: split the call");
    expect(existsSync(join(dir, "out"))).toBe(true);
  });

  it("refuses a value that would approve everything, or approves nothing, as a usage error naming the closest rule", async () => {
    for (const value of ["*", "bash:*", "*:rm -rf out", "bash:**", "bash:/**", "bash:https://**", "bash:https://*.com/x"]) {
      const result = await toolhost(["call", "bash", rm("out"), "--approve", value], { cwd: dir });
      expect(result.code, value).toBe(2);
      expect(result.stderr, value).toContain("(TOOLHOST_USAGE)");
      expect(existsSync(join(dir, "out"))).toBe(true);
    }
    const star = await toolhost(["call", "bash", rm("out"), "--approve", "*"], { cwd: dir });
    expect(star.stderr).toContain("--approve '*' would approve every ask, which --approve never does.");
    const typo = await toolhost(["call", "bash", rm("out"), "--approve", rmRule.replace("recommended", "recomended")], { cwd: dir });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(`Did you mean "${rmRule}"?`);
    const tool = await toolhost(["call", "bash", rm("out"), "--approve", "bsh:rm -rf out"], { cwd: dir });
    expect(tool.stderr).toContain('"bsh" is no tool of the config');
    expect(tool.stderr).toContain('Did you mean "bash"?');
  });

  it("TOOLHOST_APPROVE holds values one a line, for a batch of run", async () => {
    const batch = [
      { id: "a", name: "bash", arguments: { command: "rm -rf out" } },
      { id: "b", name: "bash", arguments: { command: "rm -rf src" } },
      { id: "c", name: "bash", arguments: { command: "rm -rf keep/x" } },
    ];
    const result = await toolhost(["run", "-"], { cwd: dir, input: JSON.stringify(batch), env: { TOOLHOST_APPROVE: "bash:rm -rf out\n\n  bash:rm -rf src  \n" } });
    expect(result.code).toBe(1);
    const results = jsonLines(result.stdout) as Array<{ isError: boolean; content: Array<{ text: string }> }>;
    expect(results.map((each) => each.isError)).toEqual([false, false, true]);
    expect(results[2]?.content[0]?.text).toContain("--approve 'bash:rm -rf keep/x'");
    expect(existsSync(join(dir, "out"))).toBe(false);
    expect(existsSync(join(dir, "src"))).toBe(false);
    const bad = await toolhost(["run", "-"], { cwd: dir, input: JSON.stringify(batch), env: { TOOLHOST_APPROVE: "bash:rm -rf keep\n*" } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("TOOLHOST_APPROVE line 2 '*' would approve every ask");
  });

  it("in a terminal, a matching --approve answers without prompting; another call still asks", async () => {
    const approved = await inTerminal(["call", "bash", rm("out"), "--approve", "bash:rm -rf out"], { cwd: dir });
    expect(approved.code).toBe(0);
    expect(approved.output).not.toContain("Run it?");
    expect(existsSync(join(dir, "out"))).toBe(false);
    const asked = await inTerminal(["call", "bash", rm("src"), "--approve", "bash:rm -rf out"], { cwd: dir, steps: [{ waitFor: "Run it?", send: "\r" }] });
    expect(asked.code).toBe(2);
    expect(asked.output).toContain("it was refused in the terminal");
    expect(existsSync(join(dir, "src"))).toBe(true);
  });
});

describe("the record of an approval given in advance", () => {
  const answerOf = (stdout: string): unknown =>
    (jsonLines(stdout).find((event) => (event as { type: string }).type === "tool_execution_decision") as { approval: { answer: unknown } }).approval.answer;

  it("says which --approve value or TOOLHOST_APPROVE line passed the ask, for this call only", async () => {
    const flag = await toolhost(["run", "-", "--events", "--approve", "bash:rm -rf out"], { cwd: dir, input: JSON.stringify({ name: "bash", arguments: { command: "rm -rf out" } }) });
    expect(answerOf(flag.stdout)).toMatchObject({ approved: true, scope: "once", via: "--approve 'bash:rm -rf out'" });
    mkdirSync(join(dir, "out"));
    const env = await toolhost(["run", "-", "--events"], { cwd: dir, input: JSON.stringify({ name: "bash", arguments: { command: "rm -rf out" } }), env: { TOOLHOST_APPROVE: "\nbash:rm -rf out" } });
    expect(answerOf(env.stdout)).toMatchObject({ approved: true, scope: "once", via: "TOOLHOST_APPROVE line 2" });
    const none = await toolhost(["run", "-", "--events"], { cwd: dir, input: JSON.stringify({ name: "bash", arguments: { command: "rm -rf src" } }) });
    expect(answerOf(none.stdout)).toMatchObject({ approved: false, via: "no one to ask (no terminal)" });
  });
});

describe("--approve for paths and URLs", () => {
  it("tool:path passes writes under that path, relative to the working directory, and no other", async () => {
    const tools = withAccessTools(dir);
    writeConfig(dir, { plugins: [tools, ["@toolhost/hooks-policy", { default: "ask" }]] });
    const inside = await toolhost(["call", "write", '{"path":"dist/app.js"}', "--approve", "write:dist/**"], { cwd: dir });
    expect(inside.code).toBe(0);
    expect(inside.stdout).toBe("ran write\n");
    const outside = await toolhost(["call", "write", '{"path":"src/app.js"}', "--approve", "write:dist/**"], { cwd: dir });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain("run again with --approve 'write:src/app.js' (this path only)");
    // From the workspace: the config is committed, and the path of one machine is no one else's.
    expect(outside.stderr).toContain('add {"tool": "write", "path": "${workspace}/src/app.js", "decision": "allow"}');
  });

  it("tool:url passes requests to that URL pattern (the server sees only those)", async () => {
    project(dir);
    symlinkSync(fileURLToPath(new URL("../../../examples/plugin-http", import.meta.url)), join(dir, "node_modules", "@toolhost", "example-plugin-http"), "dir");
    const seen: string[] = [];
    const server: Server = createServer((request, response) => {
      seen.push(request.url ?? "");
      response.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      writeConfig(dir, { plugins: ["@toolhost/example-plugin-http", ["@toolhost/hooks-policy", { default: "ask", rules: [{ tool: "*", host: "127.0.0.1", decision: "ask" }] }]] });
      const approve = ["--approve", `make_api_call:${base}/v1/**`];
      expect((await toolhost(["call", "make_api_call", JSON.stringify({ url: `${base}/v1/items/1` }), ...approve], { cwd: dir })).code).toBe(0);
      const other = await toolhost(["call", "make_api_call", JSON.stringify({ url: `${base}/admin` }), ...approve], { cwd: dir });
      expect(other.code).toBe(2);
      expect(other.stderr).toContain(`--approve 'make_api_call:${base}/admin' (this destination only)`);
      expect(seen).toEqual(["/v1/items/1"]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("a locked layer", () => {
  beforeEach(() => {
    mkdirSync(join(dir, "policies"));
    writeFileSync(
      join(dir, "policies", "org.yaml"),
      [
        "name: org",
        "locked: true",
        "rules:",
        "  - { id: org-review-rm, tool: bash, command: 'rm -rf *', decision: ask, reason: the organisation reviews deletions }",
        "  - { id: org-keep, tool: bash, command: 'rm -rf keep', decision: deny }",
      ].join("\n"),
    );
    writeFileSync(join(dir, "policies", "loose.yaml"), "name: loose\nrules:\n  - { tool: bash, command: 'rm *', decision: allow }\n");
    // Every route a later layer has to loosen it: extends order (loose after org), an allow rule in the config.
    configPath = writeConfig(dir, {
      plugins: [BASH, ["@toolhost/hooks-policy", { default: "allow", extends: ["./policies/org.yaml", "./policies/loose.yaml"], rules: [{ tool: "bash", command: "rm -rf *", decision: "allow" }] }]],
    });
  });

  it("its ask is not passed by --approve, and the refusal says so and names the file that owns it", async () => {
    const result = await toolhost(["call", "bash", rm("out"), "--approve", "bash:rm -rf out"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(existsSync(join(dir, "out"))).toBe(true);
    expect(result.stderr).toContain("asked by org (locked)");
    expect(result.stderr).toContain(`It is asked by a locked layer (org, ${join(dir, "policies", "org.yaml")}), and a locked layer's ask cannot be approved from the command line`);
    expect(result.stderr).not.toContain("run again with");
  });

  it("its deny holds against a later layer, the config's allow and --approve", async () => {
    const result = await toolhost(["call", "bash", rm("keep"), "--approve", "bash:rm -rf keep"], { cwd: dir, env: { TOOLHOST_APPROVE: "bash:rm *" } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('denied by org (locked) › "rm -rf keep" (org-keep)');
    expect(existsSync(join(dir, "keep"))).toBe(true);
  });

  it("its rule's id is refused as an --approve value, naming the file", async () => {
    const result = await toolhost(["call", "bash", rm("out"), "--approve", "org-review-rm"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--approve 'org-review-rm' names a rule of the locked layer "org" (${join(dir, "policies", "org.yaml")}): a locked layer's asks cannot be approved from the command line.`);
  });
});

describe("toolhost agent without a terminal", () => {
  let server: FakeOpenAI | undefined;
  afterEach(async () => server?.close());

  it("the model reads the flag that would allow a refused call; --approve lets the next run's call through", async () => {
    const script = () => [toolCallsTurn([{ id: "c1", name: "bash", arguments: { command: "rm -rf out" } }]), textTurn("done")];
    server = await startFakeOpenAI([...script(), ...script()]);
    // The config chooses the model's endpoint, which only a folder its user trusts may (docs/trust.md).
    trust(dir);
    writeConfig(dir, { plugins: [["@toolhost/provider-openai", { model: "fake-model", baseURL: server.url, maxRetries: 0 }], BASH, ["@toolhost/hooks-policy", { extends: ["recommended"] }]] });
    const refused = await toolhost(["agent", "clean up"], { cwd: dir });
    expect(refused.code).toBe(0);
    const toolMessage = (server.requests[1]?.body.messages as Array<{ role: string; content: string }>).find((message) => message.role === "tool");
    expect(toolMessage?.content).toContain("run again with --approve 'bash:rm -rf out'");
    expect(existsSync(join(dir, "out"))).toBe(true);
    const approved = await toolhost(["agent", "--approve", "bash:rm -rf out", "clean up"], { cwd: dir });
    expect(approved.code).toBe(0);
    expect(existsSync(join(dir, "out"))).toBe(false);
  });
});
