// Calls a sandbox confines: the `sandboxed` rule condition, the `recommended` preset's trust, and
// the checks that give a confinement no trust unless it keeps writes inside the workspace, the
// network off, and hides what the policy denies to read wherever it lies.
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import type { ToolAccess, ToolConfinement } from "@toolhost/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPolicy, type PolicyOptions } from "../src/index.js";
import { makeWorkspace } from "./_helpers.js";
import { HIDEABLE } from "./fixtures/hideable.js";

let ws = "";
let cleanup = () => {};
beforeEach(() => {
  ({ ws, cleanup } = makeWorkspace());
});
afterEach(() => cleanup());

const policyOf = (options: PolicyOptions = HIDEABLE) => createPolicy(options, { cwd: ws, workspace: ws });

/** A bash call as tool-bash declares it, confined as given (or not). */
function bash(command: string, confinement?: unknown) {
  const access = { commands: [{ command, cwd: ws }], ...(confinement !== undefined && { confinement }) } as ToolAccess;
  return { tool: "bash", args: { command }, access };
}

const confined = (): ToolConfinement => ({ writable: [ws], network: false, hidesDeniedReads: true });

describe("a policy whose denied reads a sandbox can hide, for a call the sandbox confines", () => {
  const relaxed = [
    ["sh build.sh", "a script the policy cannot read"],
    ["python3 -c 'import os; os.remove(\"x\")'", "an inline program"],
    ["node -e 'require(\"fs\").writeFileSync(\"x\", \"1\")'", "an inline program"],
    ['echo done > "$OUT"', "a write to a path known only at run time"],
    ["echo x > /etc/motd", "a write outside the workspace (the sandbox makes it fail)"],
  ];
  it.each(relaxed)("allows %s (%s), which it asks for unsandboxed", (command) => {
    const policy = policyOf();
    expect(policy.decide(bash(command)).decision).toBe("ask");
    const explanation = policy.decide(bash(command, confined()));
    expect(explanation.decision).toBe("allow");
    expect(explanation.rules).toContain("boxed");
  });

  const kept: Array<[string, "ask" | "deny"]> = [
    ["rm -rf build", "ask"],
    ["git push --force origin main", "ask"],
    ["git reset --hard HEAD~3", "ask"],
    ["curl https://example.com", "ask"],
    ["cat .env", "deny"],
    ["cat ~/.ssh/id_rsa", "deny"],
    ["grep -r KEY .", "ask"],
    ["cat $(ls)", "ask"],
    ['cat < "$F"', "ask"],
    ["$TOOL --all", "ask"],
    ["rm -rf /", "deny"],
    ["sudo make install", "ask"],
  ];
  it.each(kept)("still decides %s as unsandboxed: %s", (command, decision) => {
    const policy = policyOf();
    expect(policy.decide(bash(command)).decision).toBe(decision);
    expect(policy.decide(bash(command, confined())).decision).toBe(decision);
  });

  it("says in the decision that the sandbox made the difference", () => {
    const explanation = policyOf().decide(bash("sh build.sh", confined()));
    expect(explanation.reason).toBe("sh build.sh: allowed by config › every call of * when sandboxed (boxed) (it runs in the sandbox)");
    expect(explanation.parts[0]?.note).toContain("the call runs confined (it can write only inside the workspace, and the network is off)");
    // Where another rule decides the same, that rule is named, as unsandboxed.
    expect(policyOf().decide(bash("ls", confined())).reason).toBe(policyOf().decide(bash("ls")).reason);
  });
});

describe("recommended, whose secret names cannot be hidden outside the workspace", () => {
  const recommended = () => policyOf({ extends: ["recommended"] });

  it("lists the names at any depth (.env, *.pem, id_rsa) as unbounded, and the home folders as paths to hide", async () => {
    const denied = await recommended().deniedReads({ roots: [ws], tool: "bash" });
    expect(denied.unbounded).toEqual(expect.arrayContaining([".env", "*.pem", "*.key", "id_rsa", ".netrc"]));
    expect(denied.unbounded).not.toContain("~/.ssh/**");
  });

  it.each(["sh build.sh", "python3 -c 'print(open(\"x\").read())'", 'echo done > "$OUT"', "ls", "cat .env", "rm -rf build"])(
    "decides %s confined exactly as unconfined: a script could read a .env anywhere else",
    (command) => {
      const policy = recommended();
      const open = policy.decide(bash(command));
      const boxed = policy.decide(bash(command, confined()));
      expect({ decision: boxed.decision, rules: boxed.rules }).toEqual({ decision: open.decision, rules: open.rules });
      // An ask says why the sandbox made no difference.
      if (boxed.decision === "ask") {
        // 20 more since issue 33 added secret stores at any depth (.env.*, *.env, .envrc, *.p12, …), 7 more of issue 39 (*.tfstate, credentials.json, …).
        expect(boxed.reason).toContain("the call runs in a sandbox, but no sandbox can hide what .env, .env.local, .env.production, *.pem, and 27 more name outside the workspace, so sandboxed rules do not apply");
      } else {
        expect(boxed).toEqual(open);
      }
    },
  );
});

describe("what a sandbox must hide for the trust to hold", () => {
  it("gives no trust to a confinement that does not say it hides the denied reads", () => {
    const policy = policyOf();
    for (const confinement of [{ writable: [ws], network: false }, { writable: [ws], network: false, hidesDeniedReads: false }]) {
      const explanation = policy.decide(bash("sh build.sh", confinement));
      expect(explanation.decision).toBe("ask");
      expect(explanation.reason).toContain("the call runs in a sandbox that does not say it hides what the policy denies to read, so sandboxed rules do not apply");
    }
    expect(policy.decide(bash("sh build.sh", confined())).decision).toBe("allow");
  });

  it("needs no such promise when nothing is denied to read", () => {
    const policy = policyOf({ rules: [{ command: "sh *", sandboxed: true, decision: "allow" }] });
    expect(policy.decide(bash("sh build.sh", { writable: [ws], network: false })).decision).toBe("allow");
  });

  const untrusting: Array<[string, PolicyOptions["rules"]]> = [
    ["a wildcard in an absolute path's first folder", [{ path: "/*/secrets/**", decision: "deny" }]],
    ["a name at any depth", [{ path: "credentials.json", decision: "deny" }]],
    ["a rule that denies every read", [{ tool: "read", decision: "deny" }]],
  ];
  it.each(untrusting)("gives no trust with %s, though the sandbox says it hides what it can", async (_what, rules) => {
    const policy = policyOf({ rules: [...(rules ?? []), { tool: "*", sandboxed: true, decision: "allow" }] });
    expect(policy.decide(bash("sh build.sh", confined())).decision).toBe("ask");
    expect((await policy.deniedReads({ roots: [ws] })).unbounded).toHaveLength(1);
  });

  it("does not count a deny rule that applies only unsandboxed, nor one of another tool", async () => {
    const policy = policyOf({
      rules: [
        { path: "keys.txt", sandboxed: false, decision: "deny" },
        { tool: "edit", path: "/etc/*", decision: "deny" },
        { tool: "*", sandboxed: true, decision: "allow" },
      ],
    });
    expect(policy.decide(bash("sh build.sh", confined())).decision).toBe("allow");
    expect(await policy.deniedReads({ roots: [ws] })).toEqual({ paths: [], unbounded: [] });
  });
});

describe("a confinement the policy does not trust", () => {
  const commands = ["sh build.sh", "python3 -c 1", 'echo x > "$OUT"', "rm -rf build", "ls", "cat .env"];
  const untrusted: Array<[string, () => unknown]> = [
    ["the network on", () => ({ writable: [ws], network: true })],
    ["a writable folder outside the workspace", () => ({ writable: [ws, "/tmp"], network: false })],
    ["the workspace's parent", () => ({ writable: [join(ws, "..")], network: false })],
    ["a relative folder", () => ({ writable: ["src"], network: false })],
    ["a folder through a symlink leading out", () => {
      symlinkSync("/var", join(ws, "out-link"));
      return { writable: [join(ws, "out-link")], network: false };
    }],
    ["a folder not yet made under a symlink leading out", () => {
      symlinkSync("/var", join(ws, "out-link"));
      return { writable: [join(ws, "out-link", "new", "deeper")], network: false };
    }],
  ];
  it.each(untrusted)("gets none with %s: every decision is the unsandboxed one", (_what, make) => {
    const policy = policyOf();
    const confinement = make();
    for (const command of commands) {
      const open = policy.decide(bash(command));
      expect(policy.decide(bash(command, confinement)), command).toEqual(open);
    }
  });

  it("trusts writable folders inside the workspace (made or not), and none at all", () => {
    mkdirSync(join(ws, "build"));
    const policy = policyOf();
    for (const writable of [[join(ws, "build"), join(ws, "later", "made")], []]) {
      expect(policy.decide(bash("sh build.sh", { writable, network: false, hidesDeniedReads: true })).decision).toBe("allow");
    }
  });

  it("denies a call whose confinement is malformed", () => {
    for (const confinement of [null, "yes", { writable: ws, network: false }, { writable: [ws] }, { writable: [1], network: false }, { writable: [ws], network: false, hidesDeniedReads: "yes" }]) {
      const explanation = policyOf().decide(bash("ls", confinement));
      expect(explanation.decision, JSON.stringify(confinement)).toBe("deny");
      expect(explanation.reason).toContain('"confinement" that is not { writable: paths, network: boolean, hidesDeniedReads?: boolean }');
    }
  });
});

describe("the sandboxed condition on your own rules", () => {
  it("sandboxed: true applies only to confined calls, sandboxed: false only to the others", () => {
    const policy = policyOf({
      default: "ask",
      rules: [
        { tool: "*", command: "ls", decision: "allow" },
        { id: "plan-when-boxed", tool: "bash", command: "terraform plan *", sandboxed: true, decision: "allow" },
        { id: "ls-when-open", tool: "bash", command: "ls", sandboxed: false, decision: "deny" },
      ],
    });
    expect(policy.decide(bash("terraform plan -out x")).decision).toBe("ask");
    expect(policy.decide(bash("terraform plan -out x", confined()))).toMatchObject({ decision: "allow", rules: ["plan-when-boxed"] });
    expect(policy.decide(bash("ls"))).toMatchObject({ decision: "deny", rules: ["ls-when-open"] });
    expect(policy.decide(bash("ls", confined())).decision).toBe("allow");
    expect(policy.rules.find((rule) => rule.id === "plan-when-boxed")).toMatchObject({ sandboxed: true });
  });

  it("a sandboxed allow lifts the ask of what the policy cannot read only where it matches", () => {
    const policy = policyOf({ default: "ask", rules: [{ tool: "bash", command: "sh *", sandboxed: true, decision: "allow" }] });
    expect(policy.decide(bash("sh build.sh")).decision).toBe("ask");
    expect(policy.decide(bash("sh build.sh", confined())).decision).toBe("allow");
    // Not matched by that rule: still asked.
    expect(policy.decide(bash("bash build.sh", confined())).decision).toBe("ask");
  });

  it("a call that declares nothing but its confinement is decided as without it, unless a sandboxed rule names its tool", () => {
    const call = { tool: "mcp_runner", args: {}, access: { confinement: confined() } };
    expect(policyOf().decide(call).decision).toBe("ask");
    const naming = policyOf({ ...HIDEABLE, rules: [...(HIDEABLE.rules ?? []), { id: "runner", tool: "mcp_runner", sandboxed: true, decision: "allow" }] });
    expect(naming.decide(call)).toMatchObject({ decision: "allow", rules: ["runner"] });
    expect(naming.decide({ tool: "mcp_runner", args: {} }).decision).toBe("ask");
  });

  it("refuses a sandboxed condition that is not a boolean", () => {
    expect(() => policyOf({ rules: [{ command: "ls", sandboxed: "yes" as never, decision: "allow" }] })).toThrow(/sandboxed/);
  });
});
