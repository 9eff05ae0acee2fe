import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { AgentHarness, definePlugin, type PolicyService, type ToolAccess } from "@toolhost/core";
import { describe, expect, it } from "vitest";
import fsPlugin, { FsErrorCode } from "../src/index.js";
import { tempDir, textOf } from "./_helpers.js";

/** A harness with the file tools, recording what each call declared before anyone was asked. */
async function harnessIn(root: string, options: Record<string, unknown> = {}): Promise<{ harness: AgentHarness; asked: { tool: string; access?: ToolAccess }[] }> {
  const harness = new AgentHarness({ cwd: root });
  await harness.use(fsPlugin, options);
  const asked: { tool: string; access?: ToolAccess }[] = [];
  harness.hooks.beforeToolCall.tap("test:recorder", (ctx) => {
    asked.push({ tool: ctx.tool.name, ...(ctx.access ? { access: ctx.access } : {}) });
    return undefined;
  });
  return { harness, asked };
}

async function call(harness: AgentHarness, name: string, args: Record<string, unknown>) {
  const [result] = await harness.executeToolCalls([{ id: "1", name, arguments: args }]);
  if (!result) throw new Error("no result");
  return result as unknown as { content: { type: string; text?: string }[]; details: Record<string, unknown>; isError?: boolean };
}

/** A policy plugin of the test's own: denies reading the given paths, by the typed "policy" service. */
function policyDenying(paths: string[] | (() => never)) {
  const service: PolicyService = {
    explain: async () => ({ decision: "allow", reason: "test", tool: "", rules: [], parts: [] }),
    protectedPaths: async () => {
      if (typeof paths === "function") paths();
      return { denyRead: paths as string[], denyWrite: [] };
    },
  };
  return definePlugin({ name: "test-policy", apply: (harness) => harness.provideService("policy", service) });
}

describe("what each tool declares it touches, before the policy is asked", () => {
  it("read declares reads, write and edit writes, ls/find/grep readTrees (grep of a file: reads)", async () => {
    const root = await tempDir();
    await mkdir(join(root, "src"));
    await writeFile(join(root, "src", "a.ts"), "alpha\n");
    const { harness, asked } = await harnessIn(root);
    await call(harness, "read", { path: "src/a.ts" });
    await call(harness, "write", { path: "src/b.ts", content: "x" });
    await call(harness, "edit", { path: "src/a.ts", oldText: "alpha", newText: "beta" });
    await call(harness, "ls", { path: "src" });
    await call(harness, "find", { pattern: "*.ts", path: "src" });
    await call(harness, "grep", { pattern: "x" });
    await call(harness, "grep", { pattern: "x", path: "src/b.ts" });
    expect(asked).toEqual([
      { tool: "read", access: { reads: [join(root, "src/a.ts")] } },
      // A write also says what the file will hold (for an approver's diff); the policy judges `writes`.
      { tool: "write", access: { writes: [join(root, "src/b.ts")], contents: [{ path: join(root, "src/b.ts"), content: "x" }] } },
      // An edit says what the file will hold too, worked out before anyone is asked.
      { tool: "edit", access: { writes: [join(root, "src/a.ts")], contents: [{ path: join(root, "src/a.ts"), content: "beta\n" }] } },
      { tool: "ls", access: { readTrees: [join(root, "src")] } },
      { tool: "find", access: { readTrees: [join(root, "src")] } },
      { tool: "grep", access: { readTrees: [root] } },
      { tool: "grep", access: { reads: [join(root, "src/b.ts")] } },
    ]);
  });

  it("a path outside the roots, a missing file or a bad pattern is refused before anyone is asked", async () => {
    const root = await tempDir();
    const { harness, asked } = await harnessIn(root);
    const outside = await call(harness, "read", { path: "/etc/passwd" });
    expect(outside.details.code).toBe(FsErrorCode.OUTSIDE_ROOTS);
    expect(textOf(outside)).toContain("outside the root");
    expect((await call(harness, "write", { path: "../x.txt", content: "" })).details.code).toBe(FsErrorCode.OUTSIDE_ROOTS);
    expect((await call(harness, "edit", { path: "missing.txt", oldText: "a", newText: "b" })).details.code).toBe(FsErrorCode.NOT_FOUND);
    expect((await call(harness, "find", { pattern: "../*" })).details.code).toBe(FsErrorCode.BAD_PATTERN);
    expect((await call(harness, "grep", { pattern: "a".repeat(20_000) })).details.code).toBe(FsErrorCode.BAD_PATTERN);
    expect(asked).toEqual([]);
  });

  it("annotates the tools: reads are read-only and idempotent, write destructive and idempotent, edit destructive", async () => {
    const root = await tempDir();
    const { harness } = await harnessIn(root);
    const annotations = Object.fromEntries(harness.tools.map((tool) => [tool.name, tool.annotations]));
    for (const name of ["read", "ls", "find", "grep"]) expect(annotations[name]).toEqual({ readOnly: true, idempotent: true });
    expect(annotations.write).toEqual({ readOnly: false, destructive: true, idempotent: true });
    expect(annotations.edit).toEqual({ readOnly: false, destructive: true, idempotent: false });
  });
});

describe("unknown arguments are refused, never ignored", () => {
  it("names the allowed arguments and the likely one meant", async () => {
    const root = await tempDir();
    await writeFile(join(root, "f.txt"), "one\ntwo\n");
    const { harness, asked } = await harnessIn(root);
    const read = await call(harness, "read", { path: "f.txt", tails: 2 });
    expect(read.isError).toBe(true);
    expect(read.details).toMatchObject({ code: "TOOLHOST_INVALID_ARGUMENTS" });
    expect(textOf(read)).toContain('Invalid arguments for tool "read": unknown argument "tails" (did you mean "tail"?)');
    expect(textOf(read)).toContain("It takes: path, startLine, endLine, tail, byteOffset.");
    const edit = await call(harness, "edit", { path: "f.txt", oldText: "one", newText: "1", dry_run: true });
    expect(textOf(edit)).toContain('"dry_run" (did you mean "dryRun"?)');
    expect(await readFile(join(root, "f.txt"), "utf8")).toBe("one\ntwo\n");
    const find = await call(harness, "find", { pattern: "*", excludes: ["a"] });
    expect(textOf(find)).toContain('(did you mean "exclude"?)');
    expect(asked).toEqual([]);
  });

  it("every tool's schema refuses unknown properties too (additionalProperties: false)", async () => {
    const root = await tempDir();
    const { harness } = await harnessIn(root);
    for (const tool of harness.tools) expect((tool.parameters as { additionalProperties?: boolean }).additionalProperties).toBe(false);
  });
});

describe("ls, find and grep leave out what the policy denies to read", () => {
  async function project(): Promise<string> {
    const root = await tempDir();
    await mkdir(join(root, "secrets"));
    await writeFile(join(root, ".env"), "TOKEN=alpha\n");
    await writeFile(join(root, "secrets", "key.txt"), "alpha key\n");
    await writeFile(join(root, "app.ts"), "const alpha = 1;\n");
    return root;
  }

  for (const ripgrep of [true, false]) {
    it(`says how many paths were left out (grep with ${ripgrep ? "ripgrep" : "the Node search"})`, async () => {
      const root = await project();
      const { harness } = await harnessIn(root, { ripgrep });
      await harness.use(policyDenying([join(root, ".env"), join(root, "secrets")]));
      const grep = await call(harness, "grep", { pattern: "alpha" });
      expect(textOf(grep)).toBe("app.ts:1:const alpha = 1;\n\n[2 paths were left out by the policy (they may not be read).]");
      expect(grep.details).toMatchObject({ leftOutByPolicy: 2, matches: 1 });
      const find = await call(harness, "find", { pattern: "**/*" });
      expect(textOf(find)).toBe("app.ts\n\n[2 paths were left out by the policy (they may not be read).]");
      expect(find.details).toMatchObject({ leftOutByPolicy: 2, total: 1 });
      const ls = await call(harness, "ls", {});
      expect(textOf(ls)).toBe("app.ts\n\n[2 paths were left out by the policy (they may not be read).]");
      expect(ls.details).toMatchObject({ leftOutByPolicy: 2, total: 1 });
    });
  }

  it("says nothing when nothing was left out, and works without a policy", async () => {
    const root = await project();
    const { harness } = await harnessIn(root);
    expect(textOf(await call(harness, "find", { pattern: "*.ts" }))).toBe("app.ts");
    await harness.use(policyDenying([join(root, ".env")]));
    const find = await call(harness, "find", { pattern: "*.ts" });
    expect(textOf(find)).toBe("app.ts");
    expect(find.details.leftOutByPolicy).toBeUndefined();
  });

  it("refuses when the policy cannot answer (fail closed)", async () => {
    const root = await project();
    const { harness } = await harnessIn(root);
    await harness.use(
      policyDenying(() => {
        throw new Error("rules file unreadable");
      }),
    );
    const grep = await call(harness, "grep", { pattern: "alpha" });
    expect(grep.details.code).toBe(FsErrorCode.POLICY_FAILED);
    expect(textOf(grep)).toContain("rules file unreadable");
  });
});
