import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { link, mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { AgentHarness } from "@toolhost/core";
import { describe, expect, it } from "vitest";
import fsPlugin, { createFsTools, FsErrorCode } from "../src/index.js";
import { byName, run, tempDir, textOf } from "./_helpers.js";

/*
 * A hard link is the file under another name: a name in the workspace of a file kept elsewhere
 * would show it (read, edit's diff) or replace one of its names. read, write and edit refuse a
 * file that has a name outside their roots, unless every name is inside.
 */

type Result = { content: { type: string; text?: string }[]; details: Record<string, unknown>; isError?: boolean };

async function twoFolders(): Promise<{ root: string; outside: string }> {
  const root = await tempDir();
  const outside = await tempDir("toolhost-fs-outside-");
  await writeFile(join(outside, "id_ed25519"), "PRIVATE KEY\n");
  await link(join(outside, "id_ed25519"), join(root, "notes.txt"));
  return { root, outside };
}

async function harnessIn(root: string, options: Record<string, unknown> = {}): Promise<{ harness: AgentHarness; judged: string[] }> {
  const harness = new AgentHarness({ cwd: root });
  await harness.use(fsPlugin, options);
  const judged: string[] = [];
  harness.hooks.beforeToolCall.tap("test:recorder", (ctx) => void judged.push(ctx.tool.name));
  return { harness, judged };
}

async function call(harness: AgentHarness, name: string, args: Record<string, unknown>): Promise<Result> {
  const [result] = await harness.executeToolCalls([{ id: "1", name, arguments: args }]);
  if (!result) throw new Error("no result");
  return result as unknown as Result;
}

describe("a hard link to a file outside the roots", () => {
  it("is refused by read, write and edit before anyone is asked, and the outside file is left as it was", async () => {
    const { root, outside } = await twoFolders();
    const { harness, judged } = await harnessIn(root);
    const read = await call(harness, "read", { path: "notes.txt" });
    expect(read.details).toMatchObject({ code: FsErrorCode.HARD_LINK, refused: true, links: 2, linksInsideRoots: 1 });
    expect(textOf(read)).toContain("is a file with 2 names (hard links), and 1 of them lies outside the root");
    expect(textOf(read)).not.toContain("PRIVATE");
    const edit = await call(harness, "edit", { path: "notes.txt", oldText: "PRIVATE", newText: "public" });
    expect(edit.details).toMatchObject({ code: FsErrorCode.HARD_LINK });
    expect(textOf(edit)).not.toContain("PRIVATE");
    const write = await call(harness, "write", { path: "notes.txt", content: "mine\n" });
    expect(write.details).toMatchObject({ code: FsErrorCode.HARD_LINK });
    expect(judged).toEqual([]);
    expect(await readFile(join(outside, "id_ed25519"), "utf8")).toBe("PRIVATE KEY\n");
    expect((await stat(join(root, "notes.txt"))).nlink).toBe(2);
  });

  it("is refused when the tool opens it, too (a link made after the call was judged, or no harness)", async () => {
    const { root } = await twoFolders();
    const tools = byName(createFsTools({ cwd: root }));
    const read = await run(tools.read, { path: "notes.txt" });
    expect(read.details).toMatchObject({ code: FsErrorCode.HARD_LINK, refused: true });
    expect(textOf(read)).not.toContain("PRIVATE");
    expect((await run(tools.write, { path: "notes.txt", content: "x" })).details).toMatchObject({ code: FsErrorCode.HARD_LINK });
    expect((await run(tools.edit, { path: "notes.txt", oldText: "PRIVATE", newText: "x" })).details).toMatchObject({ code: FsErrorCode.HARD_LINK });
  });

  it("is seen when made after the tools first looked (the link changes the file's ctime)", async () => {
    const root = await tempDir();
    const outside = await tempDir("toolhost-fs-outside-");
    await writeFile(join(root, "a.txt"), "a\n");
    await link(join(root, "a.txt"), join(root, "b.txt"));
    const tools = byName(createFsTools({ cwd: root }));
    expect(textOf(await run(tools.read, { path: "b.txt" }))).toBe("a");
    // A name of the same file moved out of the roots: the count inside is one short now.
    await rename(join(root, "b.txt"), join(outside, "b.txt"));
    await writeFile(join(outside, "secret"), "SECRET\n");
    await link(join(outside, "secret"), join(root, "c.txt"));
    expect((await run(tools.read, { path: "a.txt" })).details).toMatchObject({ code: FsErrorCode.HARD_LINK });
    expect((await run(tools.read, { path: "c.txt" })).details).toMatchObject({ code: FsErrorCode.HARD_LINK });
  });
});

describe("the controls", () => {
  it("a file whose every name is inside the roots reads, edits and writes as any file", async () => {
    const root = await tempDir();
    await writeFile(join(root, "a.txt"), "one\n");
    await link(join(root, "a.txt"), join(root, "b.txt"));
    const { harness } = await harnessIn(root);
    expect(textOf(await call(harness, "read", { path: "b.txt" }))).toBe("one");
    expect(textOf(await call(harness, "edit", { path: "b.txt", oldText: "one", newText: "two" }))).toContain("✓ Edited lines 1-1 in b.txt");
    expect(textOf(await call(harness, "write", { path: "a.txt", content: "three\n" }))).toBe("✓ Wrote 6 bytes to a.txt");
  });

  it("a second root holding the other name counts it as inside", async () => {
    const { root, outside } = await twoFolders();
    const { harness } = await harnessIn(root, { roots: [root, outside] });
    expect(textOf(await call(harness, "read", { path: "notes.txt" }))).toBe("PRIVATE KEY");
  });

  it('hardLinks: "allow" reads such a file (a package store linked into node_modules)', async () => {
    const { root } = await twoFolders();
    const { harness } = await harnessIn(root, { hardLinks: "allow" });
    expect(textOf(await call(harness, "read", { path: "notes.txt" }))).toBe("PRIVATE KEY");
  });
});

describe("a package-store copy (pnpm's store, proven by core: named by the SHA-512 of its content)", () => {
  async function storeAndLink(): Promise<{ root: string; stored: string; restore: () => void }> {
    const root = await tempDir();
    const pnpmHome = await tempDir("toolhost-fs-pnpm-home-");
    const previous = process.env.PNPM_HOME;
    process.env.PNPM_HOME = pnpmHome;
    const content = "module.exports = 'package code';\n";
    const hex = createHash("sha512").update(content).digest("hex");
    const folder = join(pnpmHome, "store", "v10", "files", hex.slice(0, 2));
    await mkdir(folder, { recursive: true });
    const stored = join(folder, hex.slice(2));
    await writeFile(stored, content);
    await mkdir(join(root, "node_modules", ".pnpm", "pkg@1.0.0", "node_modules", "pkg"), { recursive: true });
    await link(stored, join(root, "node_modules", ".pnpm", "pkg@1.0.0", "node_modules", "pkg", "index.js"));
    const restore = () => {
      if (previous === undefined) delete process.env.PNPM_HOME;
      else process.env.PNPM_HOME = previous;
    };
    return { root, stored, restore };
  }

  it("is shown by read; write and edit still refuse it (a change would reach the store), and the store is unchanged", async () => {
    const { root, stored, restore } = await storeAndLink();
    try {
      const { harness } = await harnessIn(root);
      const path = "node_modules/.pnpm/pkg@1.0.0/node_modules/pkg/index.js";
      expect(textOf(await call(harness, "read", { path }))).toBe("module.exports = 'package code';");
      const write = await call(harness, "write", { path, content: "planted\n" });
      expect(write.details).toMatchObject({ code: FsErrorCode.HARD_LINK });
      expect(textOf(write)).toContain("A package-store copy, such as pnpm's in node_modules, is shown by read but never changed");
      expect((await call(harness, "edit", { path, oldText: "package code", newText: "planted" })).details).toMatchObject({ code: FsErrorCode.HARD_LINK });
      expect(await readFile(stored, "utf8")).toBe("module.exports = 'package code';\n");
    } finally {
      restore();
    }
  });

  it("a real pnpm install (offline, from this machine's store): its files read", async () => {
    const root = await tempDir();
    await writeFile(join(root, "package.json"), JSON.stringify({ name: "t", version: "1.0.0", private: true, dependencies: { picomatch: "*" } }));
    execFileSync("pnpm", ["install", "--offline", "--silent"], { cwd: root, stdio: "pipe", timeout: 60_000 });
    const tools = byName(createFsTools({ cwd: root }));
    expect((await stat(join(root, "node_modules", "picomatch", "package.json"))).nlink).toBeGreaterThan(1);
    expect(textOf(await run(tools.read, { path: "node_modules/picomatch/package.json" }))).toContain('"name": "picomatch"');
  });
});
