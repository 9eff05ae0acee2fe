import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { AgentHarness } from "@toolhost/core";
import { beforeEach, describe, expect, it } from "vitest";
import fsPlugin, { createFindTool, createGrepTool, createLsTool, FsErrorCode } from "../src/index.js";
import { run, tempDir, linesOf, textOf } from "./_helpers.js";

let root: string;

beforeEach(async () => {
  root = await tempDir();
  await mkdir(join(root, "src", "deep"), { recursive: true });
  await mkdir(join(root, "build"));
  await mkdir(join(root, ".git"));
  await writeFile(join(root, ".gitignore"), "build/\n*.log\n");
  await writeFile(join(root, "src", ".gitignore"), "generated.ts\n");
  await writeFile(join(root, "src", "a.ts"), "export const alpha = 1;\nexport const beta = 2;\n");
  await writeFile(join(root, "src", "deep", "b.ts"), "// TODO: alpha again\nconst gamma = 3;\n");
  await writeFile(join(root, "src", "generated.ts"), "export const alpha = 'generated';\n");
  await writeFile(join(root, "build", "out.js"), "alpha();\n");
  await writeFile(join(root, "debug.log"), "alpha\n");
  await writeFile(join(root, ".env"), "ALPHA=1\n");
  await writeFile(join(root, ".git", "config"), "alpha\n");
  await writeFile(join(root, "README.md"), "# Alpha\n");
  await writeFile(join(root, "image.bin"), Buffer.from([0x61, 0x6c, 0x70, 0x68, 0x61, 0, 1, 2]));
});

describe("ls", () => {
  it("lists entries sorted, folders marked, hidden ones included", async () => {
    await symlink(join(root, "README.md"), join(root, "readme-link"));
    const result = await run(createLsTool({ cwd: root }), {});
    expect(textOf(result)).toBe([".env", ".git/", ".gitignore", "README.md", "build/", "debug.log", "image.bin", "readme-link@", "src/"].join("\n"));
    expect(result.details).toMatchObject({ entries: 9, total: 9, truncated: false });
  });

  it("caps at limit and says so", async () => {
    const result = await run(createLsTool({ cwd: root }), { path: ".", limit: 2 });
    expect(textOf(result)).toBe(".env\n.git/\n\n[Showing 2 of 8 entries (limit 2). Raise limit, or use find with a pattern.]");
    expect(result.details).toMatchObject({ entries: 2, total: 8, truncated: true });
  });

  it("caps at maxTotalSize and says so", async () => {
    const result = await run(createLsTool({ cwd: root, maxTotalSize: 12 }), {});
    expect(textOf(result)).toContain("[Showing 2 of 8 entries (the 12-byte output limit (maxTotalSize))");
  });

  it("refuses a file and a folder outside the roots", async () => {
    expect((await run(createLsTool({ cwd: root }), { path: "README.md" })).details.code).toBe(FsErrorCode.NOT_DIRECTORY);
    expect((await run(createLsTool({ cwd: root }), { path: ".." })).details.code).toBe(FsErrorCode.OUTSIDE_ROOTS);
  });
});

describe("find", () => {
  it("finds by glob, skipping what .gitignore ignores and .git", async () => {
    const result = await run(createFindTool({ cwd: root }), { pattern: "**/*" });
    expect(textOf(result)).toBe([".env", ".gitignore", "README.md", "image.bin", "src/.gitignore", "src/a.ts", "src/deep/b.ts"].join("\n"));
  });

  it("searches below a path, with brace patterns", async () => {
    const result = await run(createFindTool({ cwd: root }), { pattern: "**/*.{ts,md}", path: "src" });
    expect(textOf(result)).toBe("a.ts\ndeep/b.ts");
    expect(result.details).toMatchObject({ matches: 2, total: 2, truncated: false, path: join(root, "src") });
  });

  it("applies the .gitignore of parent folders when searching below", async () => {
    await writeFile(join(root, "src", "deep", "trace.log"), "");
    const result = await run(createFindTool({ cwd: root }), { pattern: "**/*", path: "src/deep" });
    expect(textOf(result)).toBe("b.ts");
  });

  it("caps at limit and says so", async () => {
    const result = await run(createFindTool({ cwd: root }), { pattern: "**/*", limit: 3 });
    expect(textOf(result)).toContain("[Showing 3 of 7 paths (limit 3). Narrow the pattern or raise limit.]");
  });

  it("says when nothing matches, and refuses patterns that climb out", async () => {
    expect(textOf(await run(createFindTool({ cwd: root }), { pattern: "*.rs" }))).toBe('No files match "*.rs" in ".".');
    const out = await run(createFindTool({ cwd: root }), { pattern: "../**" });
    expect(out.details.code).toBe(FsErrorCode.BAD_PATTERN);
  });

  it("does not follow a symlinked folder out of the root", async () => {
    const outside = await tempDir();
    await writeFile(join(outside, "secret.ts"), "");
    await symlink(outside, join(root, "src", "linked"));
    const result = await run(createFindTool({ cwd: root }), { pattern: "**/*.ts" });
    expect(textOf(result)).not.toContain("secret");
  });
});

describe.each([
  ["ripgrep", true],
  ["node", false],
] as const)("grep (%s)", (engine, ripgrep) => {
  const grep = () => createGrepTool({ cwd: root, ripgrep });

  it("finds matches with path and line, skipping ignored, .git and binary files", async () => {
    const result = await run(grep(), { pattern: "alpha" });
    const lines = textOf(result).split("\n").sort();
    expect(lines).toEqual(["src/a.ts:1:export const alpha = 1;", "src/deep/b.ts:1:// TODO: alpha again"]);
    expect(result.details).toMatchObject({ matches: 2, truncated: false, engine });
  });

  it("ignores case, takes literal text, filters by glob", async () => {
    const insensitive = textOf(await run(grep(), { pattern: "ALPHA", ignoreCase: true, glob: "*.md" }));
    expect(insensitive).toBe("README.md:1:# Alpha");
    const literal = textOf(await run(grep(), { pattern: "alpha = 1;", literal: true }));
    expect(literal).toBe("src/a.ts:1:export const alpha = 1;");
    const regex = textOf(await run(grep(), { pattern: "const (beta|gamma)", path: "src" }));
    expect(regex.split("\n").sort()).toEqual(["a.ts:2:export const beta = 2;", "deep/b.ts:2:const gamma = 3;"]);
  });

  it("shows context lines", async () => {
    const result = await run(grep(), { pattern: "beta", context: 1, path: "src/a.ts" });
    expect(textOf(result)).toBe("src/a.ts-1-export const alpha = 1;\nsrc/a.ts:2:export const beta = 2;");
  });

  it("separates context groups with --, as grep does", async () => {
    await writeFile(join(root, "groups.txt"), "a\nhit1\nb\nc\nd\ne\nhit2\nf\nhit3\ng\n");
    const result = await run(grep(), { pattern: "hit", context: 1, path: "groups.txt" });
    expect(textOf(result)).toBe(
      "groups.txt-1-a\ngroups.txt:2:hit1\ngroups.txt-3-b\n--\ngroups.txt-6-e\ngroups.txt:7:hit2\ngroups.txt-8-f\ngroups.txt:9:hit3\ngroups.txt-10-g",
    );
    expect(result.details.matches).toBe(3);
  });

  it("caps at limit and says so", async () => {
    await writeFile(join(root, "many.txt"), Array.from({ length: 50 }, (_, i) => `hit ${i}`).join("\n"));
    const result = await run(grep(), { pattern: "hit", limit: 5 });
    expect(textOf(result)).toBe(
      "many.txt:1:hit 0\nmany.txt:2:hit 1\nmany.txt:3:hit 2\nmany.txt:4:hit 3\nmany.txt:5:hit 4\n\n[Stopped after 5 matching lines (limit 5). Narrow the pattern, set glob or path, or raise limit.]",
    );
    expect(result.details).toMatchObject({ matches: 5, truncated: true });
  });

  it("says when nothing matches, and explains a bad regular expression", async () => {
    expect(textOf(await run(grep(), { pattern: "zzz-nothing" }))).toBe('No matches for "zzz-nothing" in ".".');
    const bad = await run(grep(), { pattern: "alpha(" });
    expect(bad.details.code).toBe(FsErrorCode.BAD_PATTERN);
    expect(textOf(bad)).toContain("literal: true");
  });

  it("refuses a path outside the roots", async () => {
    expect((await run(grep(), { pattern: "root", path: "/etc" })).details.code).toBe(FsErrorCode.OUTSIDE_ROOTS);
  });
});

describe("the plugin", () => {
  it("registers the six tools, read/ls/find/grep parallel and write/edit sequential, roots from options", async () => {
    const harness = new AgentHarness({ cwd: root });
    await harness.use(fsPlugin, { roots: ["src"] });
    expect(harness.tools.map((tool) => `${tool.name}:${tool.executionMode}`)).toEqual([
      "read:parallel",
      "write:sequential",
      "edit:sequential",
      "ls:parallel",
      "find:parallel",
      "grep:parallel",
    ]);
    const [inside, outside] = await harness.executeToolCalls([
      { id: "1", name: "read", arguments: { path: "src/a.ts", endLine: 1 } },
      { id: "2", name: "read", arguments: { path: "README.md" } },
    ]);
    expect(linesOf(inside as never)).toBe("export const alpha = 1;");
    expect((outside?.details as { code: string }).code).toBe(FsErrorCode.OUTSIDE_ROOTS);
  });

  it("rejects invalid options with the plugin's name", async () => {
    const harness = new AgentHarness({ cwd: root });
    await expect(harness.use(fsPlugin, { maxSize: 0 })).rejects.toThrow(/@toolhost\/tool-fs[\s\S]*maxSize/);
    await expect(harness.use(fsPlugin, { rots: ["x"] })).rejects.toThrow(/tool-fs/);
  });

  it("refuses to start with a root that does not exist, naming it", async () => {
    const harness = new AgentHarness({ cwd: root });
    await expect(harness.use(fsPlugin, { roots: ["no-such-folder"] })).rejects.toMatchObject({
      code: FsErrorCode.ROOT_MISSING,
      message: expect.stringContaining(join(root, "no-such-folder")),
    });
    expect(harness.tools).toEqual([]);
  });

  it("refuses to start with a root that is a file, naming it and its folder", async () => {
    const harness = new AgentHarness({ cwd: root });
    await expect(harness.use(fsPlugin, { roots: ["README.md"] })).rejects.toMatchObject({
      code: FsErrorCode.ROOT_NOT_FOLDER,
      message: expect.stringContaining(`The root ${join(root, "README.md")} of the file tools is a file, not a folder`),
    });
    expect(harness.tools).toEqual([]);
  });
});
