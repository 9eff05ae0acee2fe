import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createPolicy } from "@toolhost/hooks-policy";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const here = dirname(dirname(fileURLToPath(import.meta.url)));
let ws = "";
beforeEach(() => {
  // A project that installed the package: node_modules/@toolhost/example-policy-strict → this folder.
  ws = realpathSync(mkdtempSync(join(tmpdir(), "policy-strict-")));
  mkdirSync(join(ws, "node_modules", "@toolhost"), { recursive: true });
  symlinkSync(here, join(ws, "node_modules", "@toolhost", "example-policy-strict"));
  writeFileSync(join(ws, "package.json"), "{}");
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

const bash = (policy, command) => policy.decide({ tool: "bash", args: { command }, access: { commands: [{ command, cwd: ws }] } });
const load = (rules = []) => createPolicy({ extends: ["@toolhost/example-policy-strict"], rules }, { cwd: ws, workspace: ws });

describe("@toolhost/example-policy-strict", () => {
  it("resolves from the project's folder, with recommended under it, every rule locked", () => {
    const policy = load();
    expect(policy.rules.every((rule) => rule.locked)).toBe(true);
    expect(policy.rules.some((rule) => rule.layer === "recommended")).toBe(true);
    expect(policy.rules.find((rule) => rule.id === "strict-no-force-push")?.source).toBe(join(here, "policy.json"));
  });

  it("a project's allow cannot loosen its deny or its ask", () => {
    const policy = load([
      { tool: "bash", command: "git push --force *", decision: "allow" },
      { tool: "bash", command: "curl *", decision: "allow" },
    ]);
    const pushed = bash(policy, "git push --force origin main");
    expect(pushed.decision).toBe("deny");
    expect(pushed.reason).toContain("history on shared branches is not rewritten");
    expect(bash(policy, "curl https://example.com").decision).toBe("ask");
  });

  it("a project can tighten it", () => {
    const policy = load([{ tool: "bash", command: "curl *", decision: "deny" }]);
    expect(bash(policy, "curl https://example.com").decision).toBe("deny");
  });

  it("teaches the organisation's own tool, and a project cannot say it is something else", () => {
    const policy = load();
    expect(bash(policy, "deployctl status").decision).toBe("allow");
    expect(bash(policy, "deployctl push --dry-run").decision).toBe("allow");
    const pushed = bash(policy, "deployctl push");
    expect(pushed.decision).toBe("ask");
    expect(pushed.reason).toContain("inventory row of example-policy-strict: deployctl changes the system (a cloud)");
    const loosened = createPolicy({ extends: ["@toolhost/example-policy-strict"], programs: { deployctl: "read-only" } }, { cwd: ws, workspace: ws });
    expect(bash(loosened, "deployctl push").decision).toBe("ask");
  });
});
