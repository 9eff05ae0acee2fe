import { describe, expect, it } from "vitest";
import { CONTROL_FILES, callDigest, controlFileOf, controlFilesNamed } from "../src/index.js";

const place = { home: "/home/ada" };

describe("control files", () => {
  it("finds a project's control files at any depth, with what is below them", () => {
    for (const path of [
      "/work/app/toolhost.config.json",
      "/work/app/sub/toolhost.config.yaml",
      "/work/app/.toolhost/audit.jsonl",
      "/work/app/.claude/settings.local.json",
      "/work/app/.mcp.json",
      "/work/app/.gemini/settings.json",
      "/work/app/.vscode/tasks.json",
      "/work/app/.envrc",
      "/work/app/.git/hooks/pre-commit",
      "/work/app/.git/config",
      "/work/app/vendor/lib/.git/hooks/post-checkout",
      "/work/app/.github/workflows/ci.yml",
    ]) {
      expect(controlFileOf(path, place), path).toBeDefined();
    }
  });

  it("finds the home folder's and the system's", () => {
    expect(controlFileOf("/home/ada/.bashrc", place)?.where).toBe("home");
    expect(controlFileOf("/home/ada/.config/toolhost/trusted-folders.json", place)?.where).toBe("home");
    expect(controlFileOf("/home/ada/.claude/settings.json", place)).toBeDefined();
    expect(controlFileOf("/etc/toolhost/toolhost.config.json", place)?.where).toBe("anywhere");
    expect(controlFileOf("/etc/toolhost/policy.json", place)?.where).toBe("absolute");
    expect(controlFileOf("/etc/profile.d/x.sh", place)?.where).toBe("absolute");
  });

  it("leaves ordinary files alone, and names that only begin like a control file", () => {
    for (const path of [
      "/work/app/src/a.ts",
      "/work/app/.git/objects/ab/cd",
      "/work/app/.gitignore",
      "/work/app/.github/CODEOWNERS",
      "/work/app/toolhost.config.json.bak",
      "/work/app/.claudeignore",
      "/home/ada/.bashrc.d/x",
      "/home/ada/notes/.profile-old",
      "/etc/profiles",
      "/work/app/git/hooks/x",
    ]) {
      expect(controlFileOf(path, place), path).toBeUndefined();
    }
  });

  it("tells a folder walk which names to look for", () => {
    expect(controlFilesNamed(".git").map((file) => file.path).sort()).toEqual([".git/config", ".git/hooks"]);
    expect(controlFilesNamed("/work/app/.claude").map((file) => file.path)).toEqual([".claude"]);
    expect(controlFilesNamed("src")).toEqual([]);
    expect(Object.isFrozen(CONTROL_FILES)).toBe(true);
  });
});

describe("callDigest", () => {
  it("is the same for the same content in any key order, and differs for other content", () => {
    const a = callDigest({ name: "bash", args: { command: "rm -r build", timeout: 5 }, access: { writes: ["/w/build"] } });
    const b = callDigest({ name: "bash", args: { timeout: 5, command: "rm -r build" }, access: { writes: ["/w/build"] } });
    expect(a).toBe(b);
    expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(callDigest({ name: "bash", args: { command: "rm -r src", timeout: 5 }, access: { writes: ["/w/src"] } })).not.toBe(a);
    expect(callDigest({ name: "sh", args: { command: "rm -r build", timeout: 5 }, access: { writes: ["/w/build"] } })).not.toBe(a);
    expect(callDigest({ name: "bash", args: { command: "rm -r build", timeout: 5 } })).not.toBe(a);
  });

  it("refuses content it cannot write canonically", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => callDigest({ name: "x", args: cyclic })).toThrow(/cycle/);
    let deep: unknown = 1;
    for (let i = 0; i < 100; i += 1) deep = [deep];
    expect(() => callDigest({ name: "x", args: deep })).toThrow(/nested/);
  });
});
