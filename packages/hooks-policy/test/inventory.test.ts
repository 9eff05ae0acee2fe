// The program inventory: an unknown program asks and says how to teach it; a policy teaches it (the
// config, an inline layer, a policy file); an unknown program is presumed to run its arguments,
// a known one is not; rules match kinds; the workspace's trust and the confinement's declaration
// decide what runs.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentHarness, type ToolConfinement } from "@toolhost/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import policyPlugin, { createPolicy, type PolicyOptions } from "../src/index.js";
import { parseCommand } from "../src/shell/_parse.js";
import { makeWorkspace, recordingTool } from "./_helpers.js";
import { contained } from "./inventory-classes.js";

let ws = "";
let cleanup = () => {};
beforeEach(() => {
  ({ ws, cleanup } = makeWorkspace());
});
afterEach(() => cleanup());

const policyOf = (options: PolicyOptions = { extends: ["recommended"] }, trustedWorkspace = false) => createPolicy(options, { cwd: ws, workspace: ws, trustedWorkspace });
const bash = (command: string, confinement?: ToolConfinement) => ({ tool: "bash", args: { command }, access: { commands: [{ command, cwd: ws }], ...(confinement && { confinement }) } });

describe("a program the inventory does not know", () => {
  it("asks unconfined, naming it and how to teach it", () => {
    const explanation = policyOf().decide(bash("frobnicate --all"));
    expect(explanation.decision).toBe("ask");
    expect(explanation.reason).toContain("frobnicate --all: asked by recommended › programs of kind unknown when not sandboxed (rules[107])");
    expect(explanation.reason).toContain('teach it: a rule { command: "frobnicate *", decision: allow }, or programs: { frobnicate: read-only } in a policy');
  });

  it("runs confined, and the decision says what of the confinement it relied on", () => {
    const explanation = policyOf().decide(bash("frobnicate --all", contained(ws)));
    expect(explanation.decision).toBe("allow");
    expect(explanation.parts[0]?.note).toContain("the call runs confined (it can write only inside the workspace, and every connection goes through the policy's proxy)");
    expect(explanation.parts[0]?.note).toContain("limits: 512 processes, 8192 MiB of memory, files up to 4096 MiB, 600 s of CPU");
  });

  it("is taught by the config's programs, an inline layer's, or a policy file's, which later layers override", () => {
    expect(policyOf({ extends: ["recommended"], programs: { frobnicate: "read-only" } }).decide(bash("frobnicate --all")).decision).toBe("allow");
    expect(policyOf({ extends: [{ name: "team", rules: [], programs: { frobnicate: "read-only" } }, "recommended"] }).decide(bash("frobnicate --all")).decision).toBe("allow");
    mkdirSync(join(ws, "policies"));
    writeFileSync(join(ws, "policies", "team.yaml"), "name: team\nprograms:\n  frobnicate: network:uploader\nrules: []\n");
    const taught = policyOf({ extends: ["recommended", "./policies/team.yaml"] }).decide(bash("frobnicate --all", contained(ws)));
    expect(taught.decision, taught.reason).toBe("ask");
    expect(taught.reason).toContain("inventory row of team: frobnicate reaches the network (it sends data off the machine)");
    const overridden = policyOf({ extends: ["recommended", "./policies/team.yaml"], programs: { frobnicate: "read-only" } });
    expect(overridden.decide(bash("frobnicate --all")).decision).toBe("allow");
  });

  it("teaches a known program another way of being read: subcommands and options", () => {
    const policy = policyOf({ extends: ["recommended"], programs: { deployctl: "system:cloud | sub status,logs=read-only | when --dry-run=read-only" } });
    expect(policy.decide(bash("deployctl status")).decision).toBe("allow");
    expect(policy.decide(bash("deployctl push --dry-run")).decision).toBe("allow");
    expect(policy.decide(bash("deployctl push")).decision).toBe("ask");
    expect(policy.decide(bash("deployctl push", contained(ws))).decision).toBe("ask");
  });

  it("refuses a row that does not follow the grammar, or a rule's kind that is none, at load time", () => {
    expect(() => policyOf({ programs: { x: "harmless" } })).toThrow(/the row of "x" \("harmless"\) in config: "harmless" is not a kind/);
    expect(() => policyOf({ programs: { x: "read-only | subs a=read-only" } })).toThrow(/"subs a=read-only" is not a clause/);
    expect(() => policyOf({ programs: { x: "network:build" } })).toThrow(/is not a kind \(or kind:role\)/);
    expect(() => policyOf({ rules: [{ kind: "harmless", decision: "allow" }] })).toThrow(/"harmless" is not a kind of program. A kind is one of read-only, writes/);
    try {
      policyOf({ programs: { x: "harmless" } });
    } catch (error) {
      expect((error as { code?: string }).code).toBe("TOOLHOST_INVALID_PLUGIN_OPTIONS");
    }
  });
});

describe("an unknown program is presumed to run its arguments", () => {
  it("judges an argument that names a program as a command: a rule about it covers it behind a runner nobody listed", () => {
    const policy = policyOf({ extends: ["recommended"], rules: [{ command: "deploy-prod", decision: "deny", reason: "not from here" }] });
    expect(policy.decide(bash("mytool rm -rf /")).decision).toBe("deny");
    expect(policy.decide(bash("mytool --x run deploy-prod --now", contained(ws))).decision).toBe("deny");
    expect(policy.decide(bash("mytool sudo reboot", contained(ws))).decision).toBe("ask");
    const presumed = policy.decide(bash("mytool rm -rf /")).parts.find((part) => part.subject === "rm -rf /");
    expect(presumed?.note).toContain("judged as an argument of mytool, which the inventory does not know: it may run it");
  });

  it("is off for a program the inventory knows is not a runner: grep rm file is grep's", () => {
    expect(parseCommand("grep rm src/a.ts").parts.map((part) => (part.kind === "command" ? part.words[0]?.value : part.kind))).toEqual(["grep"]);
    expect(policyOf().decide(bash("grep rm src/a.ts")).decision).toBe("allow");
    expect(policyOf().decide(bash("echo sudo rm -rf /")).decision).toBe("allow");
    // Taught as what it is (not a runner), the presumption is off for it too.
    expect(policyOf({ extends: ["recommended"], programs: { mytool: "read-only" } }).decide(bash("mytool rm x")).decision).toBe("allow");
  });
});

describe("rules on kinds", () => {
  it("match a kind, a role, or kind:role", () => {
    const policy = policyOf({ default: "allow", rules: [{ kind: "uploader", decision: "deny" }, { kind: "runs-code:interpreter", decision: "ask" }] });
    expect(policy.decide(bash("scp src/a.ts host:/tmp")).decision).toBe("deny");
    expect(policy.decide(bash("scp host:/tmp/x .")).decision).toBe("allow");
    expect(policy.decide(bash("python3 /tmp/x.py")).decision).toBe("ask");
    expect(policy.decide(bash("python3 src/x.py")).decision).toBe("allow");
  });

  it("trust programs run by a path only from the system's folders: ./cat is the repository's, /usr/bin/cat the system's", () => {
    writeFileSync(join(ws, "cat"), "#!/bin/sh\n");
    expect(policyOf().decide(bash("./cat src/a.ts")).decision).toBe("ask");
    expect(policyOf(undefined, true).decide(bash("./cat src/a.ts")).decision).toBe("allow");
    expect(policyOf().decide(bash("/usr/bin/cat src/a.ts")).decision).toBe("allow");
    expect(policyOf().decide(bash("/tmp/x/cat src/a.ts")).decision).toBe("ask");
  });

  it("read python -m MODULE as the module: pytest, pip install, http.server, json.tool", () => {
    const policy = policyOf(undefined, true);
    expect(policy.decide(bash("python3 -m pytest -q")).decision).toBe("allow");
    expect(policy.decide(bash("python3 -m json.tool package.json")).decision).toBe("allow");
    expect(policy.decide(bash("python3 -m pip install x")).decision).toBe("ask");
    expect(policy.decide(bash("python3 -m http.server")).decision).toBe("ask");
  });
});

describe("the workspace's trust, from the plugin's context", () => {
  it("a trusted project layer allows the project's build; none, or an untrusted one, asks", async () => {
    // Each layer holds the options as its config wrote them (the policy is composed from the layers).
    const recommended = { extends: ["recommended"] };
    for (const [layers, expected] of [
      [[{ owner: "project", trusted: true, options: recommended }], false],
      [[{ owner: "project", trusted: false, options: recommended }], true],
      [[], true],
      [[{ owner: "user", trusted: true, options: recommended }], true],
    ] as const) {
      const runs: string[] = [];
      const harness = new AgentHarness({ cwd: ws, workspace: ws, tools: [recordingTool("bash", runs)] });
      await harness.use(policyPlugin, { extends: ["recommended"] }, { layers: layers as never });
      const [result] = await harness.executeToolCalls([{ id: "1", name: "bash", arguments: { command: "npm test" } }]);
      expect(result?.isError, JSON.stringify(layers)).toBe(expected);
    }
  });
});

describe("a confinement by what it declares", () => {
  const recommended = () => policyOf();
  const unknownProgram = (confinement: unknown) => recommended().decide({ tool: "bash", args: {}, access: { commands: [{ command: "frobnicate", cwd: ws }], confinement } as never }).decision;

  it("trusts the minimal root with the network off or through the proxy and limits on processes and memory", () => {
    expect(unknownProgram(contained(ws))).toBe("allow");
    expect(unknownProgram({ ...contained(ws), network: "off" })).toBe("allow");
    expect(unknownProgram({ ...contained(ws), destinations: ["registry.npmjs.org:443"] })).toBe("allow");
  });

  it("gives no more trust than the declaration supports: the host's root, no limits, no readable, the host's network, a wildcard destination, a field it does not know", () => {
    for (const confinement of [
      { ...contained(ws), root: "host", readable: ["/"] },
      { ...contained(ws), root: undefined },
      { ...contained(ws), limits: undefined },
      { ...contained(ws), limits: { processes: 512 } },
      { ...contained(ws), readable: undefined },
      { ...contained(ws), network: "host" },
      { ...contained(ws), network: true },
      { ...contained(ws), destinations: ["*:443"] },
      { ...contained(ws), destinations: ["*"] },
      { ...contained(ws), writable: [ws, "/tmp"] },
      { ...contained(ws), hidesDeniedReads: false },
      { ...contained(ws), mounts: ["/var/run/docker.sock"] },
    ]) {
      expect(unknownProgram(confinement), JSON.stringify(confinement)).toBe("ask");
    }
  });

  it("denies a call whose confinement has a known field of the wrong shape", () => {
    for (const confinement of [{ ...contained(ws), root: "tiny" }, { ...contained(ws), network: "proxied" }, { ...contained(ws), readable: "/usr" }, { ...contained(ws), limits: { processes: -1 } }, { ...contained(ws), destinations: [443] }]) {
      const explanation = recommended().decide({ tool: "bash", args: {}, access: { commands: [{ command: "ls", cwd: ws }], confinement } as never });
      expect(explanation.decision, JSON.stringify(confinement)).toBe("deny");
      expect(explanation.reason).toContain('"confinement" that is not');
    }
  });
});

describe("code planted to run later, by any tool", () => {
  it("asks for a write or an edit of a git hook, a start-up file, a task file or a scheduled job, unconfined and confined", async () => {
    const runs: string[] = [];
    const harness = new AgentHarness({ cwd: ws, workspace: ws, tools: ["write", "edit"].map((name) => recordingTool(name, runs)) });
    await harness.use(policyPlugin, { extends: ["recommended"] });
    const paths = [".git/hooks/pre-commit", "~/.bashrc", ".vscode/tasks.json", ".github/workflows/ci.yml", ".husky/pre-push", "/etc/cron.d/x"];
    const calls = paths.flatMap((path, index) => ["write", "edit"].map((tool) => ({ id: `${tool}${index}`, name: tool, arguments: { path, content: "x" } })));
    const results = await harness.executeToolCalls(calls, { toolExecution: "sequential" });
    expect(results.map((result) => (result.details as { code?: string }).code)).toEqual(calls.map(() => "TOOLHOST_NOT_APPROVED"));
    expect(runs).toEqual([]);
    const policy = policyOf();
    const confinedWrite = policy.decide({ tool: "write", args: {}, access: { writes: [join(ws, ".git", "hooks", "post-checkout")], confinement: contained(ws) } });
    expect(confinedWrite.decision).toBe("ask");
    expect(confinedWrite.reason).toContain("it plants code that runs later");
    expect(policy.decide({ tool: "write", args: {}, access: { writes: [join(ws, "src", "b.ts")] } }).decision).toBe("allow");
  });
});
