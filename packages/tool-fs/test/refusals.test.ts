import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { AgentHarness, definePlugin, type PolicyService, ToolhostError } from "@toolhost/core";
import { describe, expect, it } from "vitest";
import fsPlugin, { createFsTools, FsErrorCode } from "../src/index.js";
import { byName, run, tempDir, textOf } from "./_helpers.js";

const env = (cwd: string) => ({ cwd, workspace: cwd });

describe("refusals are ToolhostErrors from access, or results marked refused", () => {
  it("each tool's access throws a ToolhostError with the tool's code for a path outside the roots", async () => {
    const root = await tempDir();
    const tools = byName(createFsTools({ cwd: root }));
    const calls: [keyof typeof tools, Record<string, unknown>][] = [
      ["read", { path: "/etc/hostname" }],
      ["write", { path: "../x.txt", content: "" }],
      ["edit", { path: "/etc/hostname", oldText: "a", newText: "b" }],
      ["ls", { path: ".." }],
      ["find", { pattern: "*", path: ".." }],
      ["grep", { pattern: "a", path: ".." }],
    ];
    for (const [name, args] of calls) {
      const thrown = await Promise.resolve(tools[name].access?.(args as never, env(root))).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(thrown, name).toBeInstanceOf(ToolhostError);
      expect((thrown as ToolhostError).code, name).toBe(FsErrorCode.OUTSIDE_ROOTS);
    }
  });

  it("a refusal found while running (outside the roots, a read-only file, a policy that cannot answer) says refused: true", async () => {
    const root = await tempDir();
    await writeFile(join(root, "locked.txt"), "old\n");
    await chmod(join(root, "locked.txt"), 0o444);
    const { read, write, edit } = byName(createFsTools({ cwd: root }));
    const outside = await run(read, { path: "/etc/hostname" });
    expect(outside.details).toMatchObject({ code: FsErrorCode.OUTSIDE_ROOTS, refused: true });
    const locked = await run(write, { path: "locked.txt", content: "new\n" });
    expect(locked.details).toMatchObject({ code: FsErrorCode.READ_ONLY, refused: true });
    expect((await run(edit, { path: "locked.txt", oldText: "old", newText: "new" })).details).toMatchObject({ code: FsErrorCode.READ_ONLY, refused: true });

    const failing: PolicyService = {
      explain: async () => ({ decision: "allow", reason: "test", tool: "", rules: [], parts: [] }),
      protectedPaths: async () => {
        throw new Error("rules file unreadable");
      },
    };
    const harness = new AgentHarness({ cwd: root });
    await harness.use(fsPlugin, {});
    await harness.use(definePlugin({ name: "test-policy", apply: (h) => h.provideService("policy", failing) }));
    const [grep] = await harness.executeToolCalls([{ id: "1", name: "grep", arguments: { pattern: "old" } }]);
    expect(grep?.details).toMatchObject({ code: FsErrorCode.POLICY_FAILED, refused: true });
    expect(textOf(grep as never)).toContain("Refused: the policy could not say");
  });

  it("an error of the call itself is not a refusal", async () => {
    const root = await tempDir();
    await writeFile(join(root, "a.txt"), "one\n");
    const { read, edit, grep } = byName(createFsTools({ cwd: root }));
    for (const result of [
      await run(edit, { path: "a.txt", oldText: "absent", newText: "x" }),
      await run(read, { path: "a.txt", startLine: 5 }),
      await run(grep, { pattern: "(" }),
      await run(read, { path: "missing.txt" }),
    ]) {
      expect(result.isError).toBe(true);
      expect(result.details.refused).toBeUndefined();
    }
  });
});
