// `policy explain` says what the call would do end to end: a call its tool refuses whatever the
// policy says is explained as refused (no "ask", no --approve, no "the default decides"); a call
// refused only because its path does not exist yet says so first, then what the policy would say.
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, toolhost, writeConfig, writeFile } from "./_helpers.js";

let root: string;
let dir: string;
beforeEach(() => {
  root = tempDir();
  dir = join(root, "project");
  writeConfig(dir, { plugins: ["@toolhost/tool-fs", ["@toolhost/hooks-policy", { rules: [{ tool: "read", path: "notes/**", decision: "ask" }] }]] });
  writeFile(join(root, "outside.txt"), "outside\n");
});
afterEach(() => removeDir(root));

describe("policy explain, end to end", () => {
  it("a write outside the tool's root is refused, as the real call is, whether the file exists or not", async () => {
    for (const path of [join(root, "outside.txt"), join(root, "new-outside.txt")]) {
      const args = JSON.stringify({ path, content: "x" });
      const explained = await toolhost(["policy", "explain", "write", args], { cwd: dir });
      expect(explained.code).toBe(0);
      expect(explained.stdout).toMatch(/^refused {2}write: the tool refuses the call before the policy is asked, and no approval changes that: Refused: .* is outside the root/);
      expect(explained.stdout).toContain("(TOOLHOST_FS_OUTSIDE_ROOTS)");
      expect(explained.stdout).not.toContain("--approve");
      expect(explained.stdout).not.toContain("the default decides");
      expect(explained.stdout).not.toMatch(/^ask/m);
      const real = await toolhost(["call", "write", args], { cwd: dir });
      expect(real.code).toBe(2);
      expect(real.stderr).toContain("is outside the root");
    }
  });

  it("a path that does not exist yet: the tool's refusal first, then the policy's decision once it exists, each --approve value once", async () => {
    const explained = await toolhost(["policy", "explain", "edit", JSON.stringify({ path: "notes/x.md", oldText: "a", newText: "b" })], { cwd: dir });
    expect(explained.code).toBe(0);
    const lines = explained.stdout.split("\n");
    expect(lines[0]).toMatch(/^refused {2}edit: as it is, the tool refuses the call \(TOOLHOST_FS_NOT_FOUND\): "notes\/x.md" does not exist/);
    expect(lines[1]).toBe("once it exists, the policy would decide:");
    expect(lines[2]).toMatch(/^ask {2}edit: /);
    expect(explained.stdout).toContain("  once it exists, approve in advance: --approve 'edit:notes/x.md'\n");
    // The refusal is said once, not again in every part's note.
    expect(explained.stdout.match(/TOOLHOST_FS_NOT_FOUND/g)).toHaveLength(1);
    const json = JSON.parse((await toolhost(["--json", "policy", "explain", "edit", JSON.stringify({ path: "notes/x.md", oldText: "a", newText: "b" })], { cwd: dir })).stdout) as {
      decision: string;
      wouldEnd: { code: string };
    };
    expect(json).toMatchObject({ decision: "ask", wouldEnd: { code: "TOOLHOST_FS_NOT_FOUND" } });
  });
});
