// tool-bash's sandbox and hooks-policy's recommended preset together, as a user runs them: the
// built CLI, real bubblewrap (without it the sandboxed decisions are the unsandboxed ones, and
// these tests fail).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, toolhost, writeConfig } from "./_helpers.js";

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => removeDir(dir));

const configWith = (sandbox: "auto" | "off") =>
  writeConfig(dir, { plugins: [["@toolhost/tool-bash", { sandbox }], ["@toolhost/hooks-policy", { extends: ["recommended"] }]] });

describe("recommended with tool-bash's sandbox", { timeout: 60_000 }, () => {
  it("policy explain shows that the sandbox made the difference for a script it cannot read", async () => {
    configWith("auto");
    const result = await toolhost(["policy", "explain", "bash", '{"command":"sh build.sh"}'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout.split("\n")[0]).toBe(
      "allow  bash: sh build.sh: allowed by recommended › every call of * when sandboxed (rules[99]) (it runs in the sandbox: it can write only inside the workspace, and the network is off)",
    );
    expect(result.stdout).toContain("the call runs confined (it can write only inside the workspace, and the network is off)");
  });

  it("asks for the same script unsandboxed, as before", async () => {
    configWith("off");
    const result = await toolhost(["--json", "policy", "explain", "bash", '{"command":"sh build.sh"}'], { cwd: dir });
    const explanation = JSON.parse(result.stdout) as { decision: string; rules: string[] };
    expect(explanation.decision).toBe("ask");
    expect(explanation.rules).not.toContain("recommended:rules[99]");
  });

  it("keeps asking for destructive commands and denying secrets when sandboxed", async () => {
    configWith("auto");
    const decisions: string[] = [];
    for (const command of ["rm -rf build", "git push --force origin main", "cat .env"]) {
      const result = await toolhost(["--json", "policy", "explain", "bash", JSON.stringify({ command })], { cwd: dir });
      decisions.push((JSON.parse(result.stdout) as { decision: string }).decision);
    }
    expect(decisions).toEqual(["ask", "ask", "deny"]);
  });

  it("runs an inline program sandboxed without asking, and the sandbox still stops a write outside", async () => {
    configWith("auto");
    const command = `python3 -c "open('inside.txt', 'w').write('ok'); open('/var/tmp/toolhost-outside-${process.pid}', 'w')"`;
    const result = await toolhost(["call", "bash", JSON.stringify({ command })], { cwd: dir });
    // It ran (no approver is attached: an ask would have refused it), wrote inside, was stopped outside.
    expect(result.stdout).toContain(`OSError: [Errno 30] Read-only file system: '/var/tmp/toolhost-outside-${process.pid}'`);
    expect(result.stdout).toContain('[sandbox: a write outside the writable folders was refused ("Read-only file system").');
    expect(readFileSync(join(dir, "inside.txt"), "utf8")).toBe("ok");
    expect(existsSync(`/var/tmp/toolhost-outside-${process.pid}`)).toBe(false);
  });

  it("refuses the same inline program unsandboxed without an approver: recommended asks for it", async () => {
    configWith("off");
    const result = await toolhost(["call", "bash", JSON.stringify({ command: 'python3 -c "print(1)"' })], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("asked by recommended › inline programs when not sandboxed (rules[93])");
  });
});
