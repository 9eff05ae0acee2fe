import { mkdir, rename, symlink, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { createContext } from "../src/_context.js";
import { openChecked } from "../src/_open.js";
import { checkPath } from "../src/_paths.js";
import { createFsTools, createReadTool, createWriteTool, FsErrorCode } from "../src/index.js";
import { byName, run, tempDir, textOf } from "./_helpers.js";

describe("path guard", () => {
  it("resolves relative paths against cwd and reads inside the root", async () => {
    const root = await tempDir();
    await writeFile(join(root, "a.txt"), "hello\n");
    const result = await run(createReadTool({ cwd: root }), { path: "a.txt" });
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toBe("hello");
  });

  it("refuses a path with a NUL byte", async () => {
    const root = await tempDir();
    const result = await run(createReadTool({ cwd: root }), { path: "a\0.txt" });
    expect(result.isError).toBe(true);
    expect(result.details.code).toBe(FsErrorCode.INVALID_PATH);
    expect(textOf(result)).toMatch(/NUL byte/);
  });

  it("refuses ../ outside the root, naming the path and the roots", async () => {
    const root = await tempDir();
    const result = await run(createReadTool({ cwd: root }), { path: "../../etc/passwd" });
    expect(result.isError).toBe(true);
    expect(result.details.code).toBe(FsErrorCode.OUTSIDE_ROOTS);
    expect(textOf(result)).toContain('"../../etc/passwd"');
    expect(textOf(result)).toContain(root);
    expect(textOf(result)).toMatch(/roots/);
  });

  it("refuses a sibling folder whose name starts with the root's name", async () => {
    const base = await tempDir();
    const root = join(base, "work");
    const sibling = join(base, "workshop");
    await mkdir(root);
    await mkdir(sibling);
    await writeFile(join(sibling, "secret.txt"), "secret");
    const read = createReadTool({ cwd: root });
    const result = await run(read, { path: join(sibling, "secret.txt") });
    expect(result.details.code).toBe(FsErrorCode.OUTSIDE_ROOTS);
    const write = await run(createWriteTool({ cwd: root }), { path: "../workshop/new.txt", content: "x" });
    expect(write.details.code).toBe(FsErrorCode.OUTSIDE_ROOTS);
  });

  it("refuses a symlink to /etc/passwd, for read and for write", async () => {
    const root = await tempDir();
    await symlink("/etc/passwd", join(root, "passwd"));
    const { read, write } = byName(createFsTools({ cwd: root }));
    const result = await run(read, { path: "passwd" });
    expect(result.details.code).toBe(FsErrorCode.OUTSIDE_ROOTS);
    expect(textOf(result)).toContain("symbolic link to /etc/passwd");
    const written = await run(write, { path: "passwd", content: "root::0:0::/:/bin/sh\n" });
    expect(written.details.code).toBe(FsErrorCode.OUTSIDE_ROOTS);
  });

  it("refuses a symlinked folder on the way, and a dangling link that points outside", async () => {
    const root = await tempDir();
    const outside = await tempDir();
    await writeFile(join(outside, "x.txt"), "outside");
    await symlink(outside, join(root, "linked"));
    await symlink(join(outside, "not-yet.txt"), join(root, "dangling"));
    const { read, write } = byName(createFsTools({ cwd: root }));
    expect((await run(read, { path: "linked/x.txt" })).details.code).toBe(FsErrorCode.OUTSIDE_ROOTS);
    expect((await run(write, { path: "linked/new/deep.txt", content: "x" })).details.code).toBe(FsErrorCode.OUTSIDE_ROOTS);
    expect((await run(write, { path: "dangling", content: "x" })).details.code).toBe(FsErrorCode.OUTSIDE_ROOTS);
  });

  it("does not let a file swapped for a link after the check be read", async () => {
    const root = await tempDir();
    const outside = await tempDir();
    await writeFile(join(root, "f.txt"), "inside");
    await writeFile(join(outside, "secret.txt"), "secret");
    const ctx = createContext({ cwd: root });
    const checked = await checkPath(ctx, "f.txt");
    await rename(join(root, "f.txt"), join(root, "old.txt"));
    await symlink(join(outside, "secret.txt"), join(root, "f.txt"));
    // Opened without following the link at its last name: the swap is refused, never followed.
    await expect(openChecked(ctx, checked, "read")).rejects.toMatchObject({ code: FsErrorCode.CHANGED });
  });

  it("follows links that stay inside the root", async () => {
    const root = await tempDir();
    await mkdir(join(root, "real"));
    await writeFile(join(root, "real", "f.txt"), "inside\n");
    await symlink(join(root, "real"), join(root, "alias"));
    const result = await run(createReadTool({ cwd: root }), { path: "alias/f.txt" });
    expect(textOf(result)).toBe("inside");
  });

  it("realpaths the roots themselves, so a root given through a symlink works", async () => {
    const base = await tempDir();
    await mkdir(join(base, "target"));
    await writeFile(join(base, "target", "f.txt"), "ok\n");
    await symlink(join(base, "target"), join(base, "via"));
    const result = await run(createReadTool({ cwd: join(base, "via"), roots: [join(base, "via")] }), { path: "f.txt" });
    expect(textOf(result)).toBe("ok");
  });

  it("accepts several roots and absolute paths in any of them", async () => {
    const one = await tempDir();
    const two = await tempDir();
    await writeFile(join(two, "b.txt"), "two\n");
    const result = await run(createReadTool({ cwd: one, roots: [one, two] }), { path: join(two, "b.txt") });
    expect(textOf(result)).toBe("two");
  });

  it("expands ~ to the home folder", async () => {
    const root = await tempDir();
    const result = await run(createReadTool({ cwd: root }), { path: "~/definitely-not-here.txt" });
    expect(result.details.code).toBe(FsErrorCode.OUTSIDE_ROOTS);
    expect(result.details.path).toBe(join(homedir(), "definitely-not-here.txt"));
  });

  it("suggests close names when a file is missing", async () => {
    const root = await tempDir();
    await mkdir(join(root, "src"));
    await writeFile(join(root, "src", "index.ts"), "");
    const result = await run(createReadTool({ cwd: root }), { path: "src/index.js" });
    expect(result.details.code).toBe(FsErrorCode.NOT_FOUND);
    expect(textOf(result)).toContain('Did you mean "src/index.ts"?');
    const deeper = await run(createReadTool({ cwd: root }), { path: "nope/file.txt" });
    expect(textOf(deeper)).toContain("does not exist either");
  });

  it("says a root that does not exist is the problem", async () => {
    const base = await tempDir();
    const result = await run(createReadTool({ cwd: base, roots: [join(base, "missing")] }), { path: "x" });
    expect(result.details.code).toBe(FsErrorCode.ROOT_MISSING);
    expect(textOf(result)).toContain(relative("/", join(base, "missing")));
  });
});
