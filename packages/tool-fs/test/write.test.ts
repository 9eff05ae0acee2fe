import { spawn } from "node:child_process";
import { chmod, chown, mkdir, readFile, readdir, rename, stat, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { writeAtomic } from "../src/_atomic.js";
import { createContext } from "../src/_context.js";
import { checkPath } from "../src/_paths.js";
import { createWriteTool, FsErrorCode } from "../src/index.js";
import { run, tempDir, textOf } from "./_helpers.js";

const here = dirname(fileURLToPath(import.meta.url));
const builtEntry = join(here, "..", "dist", "index.js");

describe("write", () => {
  it("creates a file and its missing folders", async () => {
    const root = await tempDir();
    const result = await run(createWriteTool({ cwd: root }), { path: "a/b/c.txt", content: "héllo\n" });
    expect(textOf(result)).toBe("✓ Wrote 7 bytes to a/b/c.txt");
    expect(result.details).toEqual({ path: join(root, "a/b/c.txt"), bytesWritten: 7, created: true });
    expect(await readFile(join(root, "a/b/c.txt"), "utf8")).toBe("héllo\n");
  });

  it("replaces a file, keeps its mode, and leaves no temporary file", async () => {
    const root = await tempDir();
    const file = join(root, "run.sh");
    await writeFile(file, "old");
    await chmod(file, 0o750);
    const result = await run(createWriteTool({ cwd: root }), { path: "run.sh", content: "#!/bin/sh\necho new\n" });
    expect(result.details).toMatchObject({ created: false });
    expect(await readFile(file, "utf8")).toBe("#!/bin/sh\necho new\n");
    expect((await stat(file)).mode & 0o777).toBe(0o750);
    expect(await readdir(root)).toEqual(["run.sh"]);
  });

  it("keeps the owner of a file it replaces, when it may", async () => {
    const root = await tempDir();
    const file = join(root, "owned.txt");
    await writeFile(file, "old");
    const isRoot = process.getuid?.() === 0;
    if (isRoot) await chown(file, 4242, 4343);
    const before = await stat(file);
    await run(createWriteTool({ cwd: root }), { path: "owned.txt", content: "new" });
    const after = await stat(file);
    expect([after.uid, after.gid]).toEqual([before.uid, before.gid]);
    expect(await readFile(file, "utf8")).toBe("new");
  });

  it("writes through a symlink inside the root to its target, keeping the link", async () => {
    const root = await tempDir();
    await writeFile(join(root, "real.txt"), "old");
    await symlink(join(root, "real.txt"), join(root, "link.txt"));
    await run(createWriteTool({ cwd: root }), { path: "link.txt", content: "new" });
    expect(await readFile(join(root, "real.txt"), "utf8")).toBe("new");
    expect((await readdir(root)).sort()).toEqual(["link.txt", "real.txt"]);
  });

  it("refuses to write over a folder", async () => {
    const root = await tempDir();
    await mkdir(join(root, "dir"));
    const result = await run(createWriteTool({ cwd: root }), { path: "dir", content: "x" });
    expect(result.details.code).toBe(FsErrorCode.IS_DIRECTORY);
  });

  it("does not let a folder swapped for a symlink after the check redirect the write", async () => {
    const root = await tempDir();
    const outside = await tempDir();
    await mkdir(join(root, "sub"));
    const ctx = createContext({ cwd: root });
    const checked = await checkPath(ctx, "sub/file.txt");
    // The check saw a real folder; now it becomes a link to a folder outside the root.
    await rename(join(root, "sub"), join(root, "sub-moved"));
    await symlink(outside, join(root, "sub"));
    await expect(writeAtomic(checked, await ctx.realRoots(), "escaped")).rejects.toMatchObject({
      code: FsErrorCode.OUTSIDE_ROOTS,
    });
    expect(await readdir(outside)).toEqual([]);
  });

  it("does not let an ancestor swapped for a symlink after the check redirect the write", async () => {
    const root = await tempDir();
    const outside = await tempDir();
    await mkdir(join(root, "a", "b"), { recursive: true });
    await mkdir(join(outside, "b"));
    const ctx = createContext({ cwd: root });
    const checked = await checkPath(ctx, "a/b/file.txt");
    await rename(join(root, "a"), join(root, "a-moved"));
    await symlink(outside, join(root, "a"));
    await expect(writeAtomic(checked, await ctx.realRoots(), "escaped")).rejects.toMatchObject({
      code: FsErrorCode.OUTSIDE_ROOTS,
    });
    expect(await readdir(join(outside, "b"))).toEqual([]);
  });

  it("never writes outside while a link is swapped back and forth during many writes", async () => {
    const root = await tempDir();
    const outside = await tempDir();
    await mkdir(join(root, "real"));
    const write = createWriteTool({ cwd: root });
    let swapping = true;
    const link = join(root, "sub");
    await symlink(join(root, "real"), link);
    // Each swap is a rename of a fresh link over "sub", so "sub" always exists and only its target changes.
    const swapTo = async (target: string): Promise<void> => {
      const fresh = join(root, `.link-${Math.random().toString(36).slice(2)}`);
      await symlink(target, fresh);
      await rename(fresh, link);
    };
    const swapper = (async () => {
      while (swapping) {
        await swapTo(outside);
        await new Promise((r) => setImmediate(r));
        await swapTo(join(root, "real"));
        await new Promise((r) => setImmediate(r));
      }
    })();
    const results = [];
    for (let i = 0; i < 200; i++) results.push(await run(write, { path: `sub/f${i}.txt`, content: "x" }));
    swapping = false;
    await swapper;
    expect(await readdir(outside)).toEqual([]);
    const codes = new Set(results.filter((r) => r.isError).map((r) => r.details.code));
    expect([...codes].every((code) => code === FsErrorCode.OUTSIDE_ROOTS)).toBe(true);
    const written = results.filter((r) => !r.isError).length;
    const inside = (await readdir(join(root, "real"))).length;
    expect(written).toBeGreaterThan(0);
    expect(inside).toBe(written);
  }, 60_000);

  it("leaves the old or the new file, never a mix, when the writing process is killed -9", async () => {
    const root = await tempDir();
    const target = join(root, "big.txt");
    const size = 16 * 1024 * 1024;
    const a = "A".repeat(size);
    await writeFile(target, a);
    const script = join(root, "writer.mjs");
    await writeFile(
      script,
      `import { createWriteTool } from ${JSON.stringify(builtEntry)};
const write = createWriteTool({ cwd: ${JSON.stringify(root)} });
const contents = ["B".repeat(${size}), "A".repeat(${size})];
for (let i = 0; ; i++) {
  const result = await write.execute("w", { path: "big.txt", content: contents[i % 2] }, new AbortController().signal, () => {});
  if (result.isError) { console.error(JSON.stringify(result)); process.exit(1); }
  process.stdout.write("wrote\\n");
}
`,
    );
    for (let round = 0; round < 4; round++) {
      const child = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "inherit"] });
      // Kill after a different number of completed writes each round, while the next one is under way.
      await new Promise<void>((resolve, reject) => {
        let writes = 0;
        child.stdout.on("data", (chunk: Buffer) => {
          writes += chunk.toString().split("\n").length - 1;
          if (writes >= round + 1) resolve();
        });
        child.once("exit", (code) => reject(new Error(`the writer exited early (${code}); is dist built?`)));
      });
      await new Promise((r) => setTimeout(r, round * 7));
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
      const now = await readFile(target, "latin1");
      expect(now.length).toBe(size);
      expect(now === a || now === "B".repeat(size)).toBe(true);
    }
  }, 60_000);
});
