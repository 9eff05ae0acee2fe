// The policy's audit log through the built CLI: each decision with the owner and layer of the rules
// that decided, and beside it what became of the ask (approved by --approve, by TOOLHOST_APPROVE,
// in a terminal, or refused with no one to ask), with the real tool-bash and hooks-policy.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { inTerminal, removeDir, tempDir, toolhost, writeConfig } from "./_helpers.js";

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
    expect(answers.map((line) => [line.outcome, line.answeredBy])).toEqual([
      ["approved once", "@toolhost/cli --approve"],
      ["approved once", "@toolhost/cli --approve"],
      ["refused", "@toolhost/cli --approve (no terminal)"],
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
    expect(answer).toMatchObject({ approved: true, outcome: "approved once", answeredBy: expect.stringContaining("@toolhost/cli") });
    expect(configPath).toBe(join(dir, "toolhost.config.json"));
  });
});
