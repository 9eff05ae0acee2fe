// The policy's audit log through the built CLI: each decision with the owner and layer of the rules
// that decided, and beside it what became of the ask (approved by --approve, by TOOLHOST_APPROVE,
// in a terminal, or refused with no one to ask), with the real tool-bash and hooks-policy.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { inTerminal, removeDir, tempDir, toolhost, USER_CONFIG_DIR, writeConfig, trust } from "./_helpers.js";

let dir = "";
let configPath = "";
beforeEach(() => {
  dir = tempDir("toolhost-audit-");
  for (const folder of ["a", "b", "c", "d"]) mkdirSync(join(dir, folder));
  configPath = writeConfig(dir, { plugins: [["@toolhost/tool-bash", { sandbox: "off", timeout: 30 }], ["@toolhost/hooks-policy", { extends: ["recommended"], audit: "logs/audit.jsonl" }]] });
});
afterEach(() => removeDir(dir));

const rm = (folder: string) => JSON.stringify({ command: `rm -rf ${folder}` });
const log = () =>
  readFileSync(join(dir, "logs", "audit.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("the audit log of toolhost call", { timeout: 120_000 }, () => {
  // Its tool-bash runs unsandboxed, which widens what calls reach: the test's user trusts the project, as they would.
  beforeEach(() => trust(dir));
  afterEach(() => removeDir(USER_CONFIG_DIR));
  it("records each ask's decision, by the project's layer, and its answer: --approve, TOOLHOST_APPROVE, no one to ask", async () => {
    expect((await toolhost(["call", "bash", rm("a"), "--approve", "bash:rm -rf a"], { cwd: dir })).code).toBe(0);
    expect((await toolhost(["call", "bash", rm("b")], { cwd: dir, env: { TOOLHOST_APPROVE: "bash:ls\nbash:rm -rf b" } })).code).toBe(0);
    expect((await toolhost(["call", "bash", rm("c")], { cwd: dir })).code).toBe(2);
    expect(existsSync(join(dir, "c"))).toBe(true);
    const lines = log();
    const decisions = lines.filter((line) => line.event === "decision");
    expect(decisions.map((line) => line.decision)).toEqual(["ask", "ask", "ask"]);
    expect(decisions[0]?.deciding).toEqual([expect.objectContaining({ layer: "recommended", owner: "project", locked: false })]);
    const answers = lines.filter((line) => line.event === "approval");
    expect(answers.map((line) => [line.outcome, line.via, line.answeredBy])).toEqual([
      ["approved once", "--approve 'bash:rm -rf a'", "@toolhost/cli --approve"],
      ["approved once", "TOOLHOST_APPROVE line 2", "@toolhost/cli --approve"],
      ["refused", "no one to ask (no terminal)", "@toolhost/cli --approve (no terminal)"],
    ]);
    expect(answers[0]?.reason).toBe("approved by --approve 'bash:rm -rf a'");
    expect(answers[1]?.reason).toBe("approved by --approve 'bash:rm -rf b'");
    // Each answer follows its call's decision, paired by the call's id.
    for (const answer of answers) {
      const at = lines.indexOf(answer);
      expect(lines[at - 1]).toMatchObject({ event: "decision", toolCallId: answer.toolCallId });
    }
  });

  it("records an answer given in the terminal", async () => {
    const session = await inTerminal(["call", "bash", rm("d")], { cwd: dir, steps: [
        { waitFor: "Run it?", send: "\u001B[B", delayMs: 300 },
        // The choice under the cursor is drawn again once it moved.
        { waitFor: /Yes/, send: "\r", delayMs: 300 },
      ],
    });
    expect(session.code).toBe(0);
    expect(existsSync(join(dir, "d"))).toBe(false);
    const answer = log().find((line) => line.event === "approval");
    expect(answer).toMatchObject({ approved: true, outcome: "approved once", scope: "once", via: "terminal", answeredBy: expect.stringContaining("@toolhost/cli") });
    expect(configPath).toBe(join(dir, "toolhost.config.json"));
  });

  it("records an answer for good with the rule it wrote", async () => {
    const DOWN = "\u001B[B";
    const session = await inTerminal(["call", "bash", rm("c")], {
      cwd: dir,
      steps: [
        { waitFor: "Run it?", send: DOWN, delayMs: 300 },
        { waitFor: /Yes/, send: DOWN, delayMs: 300 },
        { waitFor: /session/, send: DOWN, delayMs: 300 },
        { waitFor: /don't ask again/, send: "\r", delayMs: 300 },
      ],
    });
    expect(session.code).toBe(0);
    const answer = log().find((line) => line.event === "approval");
    expect(answer).toMatchObject({ outcome: "approved always", scope: "always", via: "terminal", rule: expect.stringContaining("rm -rf c") });
    expect(answer?.rule).toContain(configPath.split("/").at(-1));
  });
});

describe("the audit log of a host that left code out", { timeout: 120_000 }, () => {
  afterEach(() => removeDir(USER_CONFIG_DIR));

  it("records the host's refusal of an untrusted project's JS config in the user's log: its code and what was not loaded", async () => {
    writeConfig(USER_CONFIG_DIR, { plugins: [["@toolhost/hooks-policy", { extends: ["recommended"], audit: "audit.jsonl" }]] });
    rmSync(join(dir, "toolhost.config.json"));
    const mjs = join(dir, "toolhost.config.mjs");
    writeFileSync(mjs, 'export default { plugins: ["@toolhost/tool-bash"] };\n');
    const result = await toolhost(["call", "bash", JSON.stringify({ command: "ls" })], { cwd: dir });
    expect(result.code).toBe(2);
    const lines = readFileSync(join(USER_CONFIG_DIR, "audit.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({
        event: "decision",
        tool: "bash",
        decision: "deny",
        by: "toolhost config",
        notLoaded: [expect.objectContaining({ code: "TOOLHOST_UNTRUSTED_CODE", owner: "project", kind: "config", file: mjs })],
        reason: expect.stringContaining(`toolhost trust ${dir}`),
      }),
    ]);
  });
});
