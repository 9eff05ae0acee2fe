// tool-bash's sandbox and hooks-policy together, as a user runs them: the built CLI, real
// bubblewrap (without it the sandboxed decisions are the unsandboxed ones, and these tests fail),
// and a temp HOME outside /tmp (the sandbox's own /tmp would hide a home there anyway) holding a key.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HIDEABLE } from "../../hooks-policy/test/fixtures/hideable.js";
import { removeDir, tempDir, toolhost, writeConfig, trust } from "./_helpers.js";

const KEY = "PRIVATE_KEY_MATERIAL_5150";

let dir: string;
let home: string;
beforeEach(() => {
  // root "host" (and sandbox "off") widen what calls reach: the test's user trusts the project, as they would.
  dir = trust(tempDir());
  home = realpathSync(mkdtempSync(join("/var/tmp", "toolhost-home-")));
  mkdirSync(join(home, ".ssh"));
  writeFileSync(join(home, ".ssh", "id_rsa"), `${KEY}\n`);
  writeFileSync(join(home, "notes.txt"), "readable notes\n");
});
afterEach(() => {
  removeDir(dir);
  removeDir(home);
});

const run = (args: string[]) => toolhost(args, { cwd: dir, env: { HOME: home } });

const configWith = (sandbox: "auto" | "off", policy: Record<string, unknown> = { extends: ["recommended"] }) =>
  writeConfig(dir, { plugins: [["@toolhost/tool-bash", { sandbox, root: "host" }], ["@toolhost/hooks-policy", policy]] });

const explain = async (command: string) => JSON.parse((await run(["--json", "policy", "explain", "bash", JSON.stringify({ command })])).stdout) as { decision: string; reason: string; rules: string[] };

const readKey = `python3 -c "import os; print(open(os.path.expanduser('~/.ssh/id_rsa')).read())"`;

describe("a policy whose denied reads the sandbox hides", () => {
  it("policy explain shows that the sandbox made the difference for a script it cannot read", async () => {
    configWith("auto", HIDEABLE);
    const result = await run(["policy", "explain", "bash", '{"command":"sh build.sh"}']);
    expect(result.code).toBe(0);
    expect(result.stdout.split("\n")[0]).toBe("allow  bash: sh build.sh: allowed by config › every call of * when sandboxed (boxed) (it runs in the sandbox)");
    expect(result.stdout).toContain("the call runs confined (it can write only inside the workspace, and the network is off)");
  });

  it("runs an inline program that reads ~/.ssh/id_rsa without asking, and it reads nothing; other home files stay readable", async () => {
    configWith("auto", HIDEABLE);
    const stolen = await run(["call", "bash", JSON.stringify({ command: readKey })]);
    // It ran (no approver is attached: an ask would have refused it) and found the folder empty.
    expect(stolen.stdout).toContain(`FileNotFoundError: [Errno 2] No such file or directory: '${join(home, ".ssh", "id_rsa")}'`);
    expect(stolen.stdout).not.toContain(KEY);
    // A file that merely mentions .ssh is not taken for a network command.
    expect(stolen.stdout).not.toContain("the network is off");
    expect(stolen.stdout).toContain(`[sandbox: the policy denies reading ${join(home, ".ssh")}; here they read as empty.`);
    const script = await run(["call", "bash", JSON.stringify({ command: "echo 'cat ~/.ssh/id_rsa; cat ~/notes.txt' > s.sh && bash s.sh" })]);
    expect(script.stdout).not.toContain(KEY);
    expect(script.stdout).toContain("readable notes");
    // Named in the command, the key is denied before anything runs, as unsandboxed.
    expect((await explain("cat ~/.ssh/id_rsa")).decision).toBe("deny");
  });

  it("shows a folder denied by an absolute pattern as empty, through a symlink in the workspace too; the system stays readable", async () => {
    const vault = join(home, "vault");
    mkdirSync(vault);
    writeFileSync(join(vault, "token"), `${KEY}\n`);
    configWith("auto", { ...HIDEABLE, rules: [...HIDEABLE.rules, { tool: "*", path: `${vault}/**`, decision: "deny" }] });
    // What the policy cannot read: a script, and a symlink made before the call.
    symlinkSync(vault, join(dir, "v"));
    writeFileSync(join(dir, "peek.sh"), `ls -A ${vault} | wc -l; cat v/token; grep -rh ${KEY} ${home}; head -c 4 /usr/bin/env | tail -c 3\n`);
    const result = await run(["call", "bash", JSON.stringify({ command: "bash peek.sh" })]);
    expect(result.stdout).not.toContain(KEY);
    expect(result.stdout.split("\n")[0], result.stdout + result.stderr).toBe("0");
    expect(result.stdout).toContain("ELF");
  });

  it("still stops a write outside the workspace", async () => {
    configWith("auto", HIDEABLE);
    const target = `/var/tmp/toolhost-outside-${process.pid}`;
    const command = `python3 -c "open('inside.txt', 'w').write('ok'); open('${target}', 'w')"`;
    const result = await run(["call", "bash", JSON.stringify({ command })]);
    expect(result.stdout).toContain(`OSError: [Errno 30] Read-only file system: '${target}'`);
    expect(result.stdout).toContain('[sandbox: a write outside the writable folders was refused ("Read-only file system").');
    expect(readFileSync(join(dir, "inside.txt"), "utf8")).toBe("ok");
    expect(existsSync(target)).toBe(false);
  });

  it("asks (refuses without an approver) when a deny-read pattern cannot be hidden, though the key stays hidden", async () => {
    configWith("auto", { ...HIDEABLE, rules: [{ tool: "*", path: "/*/secrets/**", decision: "deny" }, ...HIDEABLE.rules] });
    const explanation = await explain("sh build.sh");
    expect(explanation.decision).toBe("ask");
    expect(explanation.reason).toContain("the call runs in a sandbox, but no sandbox can hide what /*/secrets/** names outside the workspace, so sandboxed rules do not apply");
    const result = await run(["call", "bash", JSON.stringify({ command: readKey })]);
    expect(result.code).toBe(2);
    expect(result.stdout).not.toContain(KEY);
  });
});

describe("recommended with tool-bash's sandbox", () => {
  it("asks for a script it cannot read, sandboxed too: its secret names (.env, *.pem, …) cannot be hidden outside the workspace", async () => {
    configWith("auto");
    const explanation = await explain("sh build.sh");
    expect(explanation.decision).toBe("ask");
    expect(explanation.rules).not.toContain("recommended:rules[99]");
    // 20 more since issue 33 added secret stores at any depth (.env.*, *.env, .envrc, *.p12, …).
    expect(explanation.reason).toContain("no sandbox can hide what .env, .env.local, .env.production, *.pem, and 27 more name outside the workspace");
    // What it can hide, it hides, for a call the user lets run.
    const result = await run(["call", "bash", JSON.stringify({ command: "cat ~/.ssh/id_rsa | wc -c" }), "--approve", "bash:cat ~/.ssh/id_rsa"]);
    expect(result.stdout).not.toContain(KEY);
  });

  it("asks for the same script unsandboxed, as before", async () => {
    configWith("off");
    const explanation = await explain("sh build.sh");
    expect(explanation.decision).toBe("ask");
    expect(explanation.rules).not.toContain("recommended:rules[99]");
  });

  it("keeps asking for destructive commands and denying secrets when sandboxed", async () => {
    configWith("auto");
    const decisions: string[] = [];
    for (const command of ["rm -rf build", "git push --force origin main", "cat .env"]) decisions.push((await explain(command)).decision);
    expect(decisions).toEqual(["ask", "ask", "deny"]);
  });

  it("refuses an inline program unsandboxed without an approver: recommended asks for it", async () => {
    configWith("off");
    // Code the policy cannot read (a print of a constant it can read: that only reads).
    const result = await run(["call", "bash", JSON.stringify({ command: 'python3 -c "import os; print(os.getcwd())"' })]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("asked by recommended › inline programs when not sandboxed (rules[93])");
  });
});
