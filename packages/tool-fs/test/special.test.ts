import { execFileSync, spawn } from "node:child_process";
import { chmod, mkdir, readFile, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFsTools, FsErrorCode } from "../src/index.js";
import { byName, run, tempDir, textOf } from "./_helpers.js";

const mkfifo = (path: string): void => {
  execFileSync("mkfifo", [path]);
};

describe("special files never hang a tool", () => {
  it("read, edit and write refuse a FIFO with a clear error, and later calls still run", async () => {
    const root = await tempDir();
    mkfifo(join(root, "p"));
    const { read, edit, write } = byName(createFsTools({ cwd: root }));
    // Four at once would have taken every thread of libuv's pool if any of them blocked.
    const results = await Promise.all([
      run(read, { path: "p" }),
      run(edit, { path: "p", oldText: "a", newText: "b" }),
      run(edit, { path: "p", startLine: 1, endLine: 1, content: "x" }),
      run(read, { path: "p", tail: 3 }),
      run(write, { path: "p", content: "x" }),
    ]);
    for (const result of results) {
      expect(result.details.code).toBe(FsErrorCode.INVALID_PATH);
      expect(textOf(result)).toContain("named pipe (FIFO)");
    }
    await writeFile(join(root, "after.txt"), "still works\n");
    expect(textOf(await run(read, { path: "after.txt" }))).toBe("still works");
  });

  it("grep of a FIFO is refused; grep and find of a folder skip it", async () => {
    const root = await tempDir();
    mkfifo(join(root, "pipe"));
    await writeFile(join(root, "a.txt"), "needle\n");
    for (const ripgrep of [true, false]) {
      const { grep, find } = byName(createFsTools({ cwd: root, ripgrep }));
      const direct = await run(grep, { pattern: "needle", path: "pipe" });
      expect(direct.details.code).toBe(FsErrorCode.INVALID_PATH);
      const folder = await run(grep, { pattern: "needle" });
      expect(textOf(folder)).toBe("a.txt:1:needle");
      const found = await run(find, { pattern: "*" });
      expect(textOf(found)).toBe("a.txt");
    }
  });

  it("a read of a path that turns into a FIFO between check and open is refused, never hangs", async () => {
    const root = await tempDir();
    const { read } = byName(createFsTools({ cwd: root }));
    const file = join(root, "f.txt");
    // A shell loop swaps a regular file and a FIFO under the same name while we read.
    await writeFile(join(root, "regular"), "text\n");
    mkfifo(join(root, "fifo"));
    const swapper = spawn("sh", ["-c", `while :; do cp -f "${root}/regular" "${file}.r"; mv -f "${file}.r" "${file}"; ln -f "${root}/fifo" "${file}.p" 2>/dev/null || cp -a "${root}/fifo" "${file}.p"; mv -f "${file}.p" "${file}"; done`], {
      stdio: "ignore",
    });
    try {
      const outcomes = new Set<string>();
      for (let i = 0; i < 200; i++) {
        const result = await run(read, { path: "f.txt" });
        outcomes.add(result.isError && result.details.code !== FsErrorCode.INVALID_PATH && result.details.code !== FsErrorCode.NOT_FOUND ? textOf(result) : result.isError ? String(result.details.code) : textOf(result));
      }
      const allowed: string[] = [FsErrorCode.INVALID_PATH, FsErrorCode.NOT_FOUND, "text"];
      expect([...outcomes].filter((outcome) => !allowed.includes(outcome))).toEqual([]);
    } finally {
      swapper.kill("SIGKILL");
    }
  }, 120_000);
});

describe("error codes and echoed inputs", () => {
  it("a symlink loop is INVALID_PATH", async () => {
    const root = await tempDir();
    await symlink(join(root, "b"), join(root, "a"));
    await symlink(join(root, "a"), join(root, "b"));
    const { read, write, ls } = byName(createFsTools({ cwd: root }));
    for (const result of [await run(read, { path: "a" }), await run(write, { path: "a/x", content: "" }), await run(ls, { path: "a" })]) {
      expect(result.details.code).toBe(FsErrorCode.INVALID_PATH);
      expect(textOf(result)).toMatch(/symbolic links/);
    }
  });

  it("a 5 MB path comes back cut, not whole", async () => {
    const root = await tempDir();
    const { read, write, grep } = byName(createFsTools({ cwd: root }));
    const path = "x".repeat(5 * 1024 * 1024);
    for (const result of [await run(read, { path }), await run(write, { path, content: "" }), await run(grep, { pattern: "a", path })]) {
      expect(result.details.code).toBe(FsErrorCode.INVALID_PATH);
      expect(JSON.stringify(result).length).toBeLessThan(2000);
      expect(textOf(result)).toContain("more characters");
    }
  });

  it("a long component is INVALID_PATH, with the path cut", async () => {
    const root = await tempDir();
    const { read } = byName(createFsTools({ cwd: root }));
    const result = await run(read, { path: "y".repeat(3000) });
    expect(result.details.code).toBe(FsErrorCode.INVALID_PATH);
    expect(textOf(result).length).toBeLessThan(1000);
  });

  it("a find pattern that would crash picomatch is BAD_PATTERN, and the process lives on", async () => {
    const root = await tempDir();
    await writeFile(join(root, "a.txt"), "");
    const { find } = byName(createFsTools({ cwd: root }));
    const crash = await run(find, { pattern: "é".repeat(38_000) });
    expect(crash.details.code).toBe(FsErrorCode.BAD_PATTERN);
    expect(textOf(crash).length).toBeLessThan(1000);
    const over = await run(find, { pattern: "a".repeat(70_000) });
    expect(over.details.code).toBe(FsErrorCode.BAD_PATTERN);
    // Under the bound but too big for the regular-expression engine once compiled.
    const big = await run(find, { pattern: `{${Array.from({ length: 900 }, (_, i) => `é${i}`).join(",")}}/**/*.{a,b,c,d,e,f,g}` });
    expect([FsErrorCode.BAD_PATTERN, undefined]).toContain(big.details.code);
    expect(textOf(await run(find, { pattern: "*.txt" }))).toBe("a.txt");
  });

  it("a huge grep pattern is BAD_PATTERN, with both engines", async () => {
    const root = await tempDir();
    await writeFile(join(root, "a.txt"), "abc\n");
    for (const ripgrep of [true, false]) {
      const { grep } = byName(createFsTools({ cwd: root, ripgrep }));
      const result = await run(grep, { pattern: "a".repeat(300_000) });
      expect(result.details.code).toBe(FsErrorCode.BAD_PATTERN);
      expect(textOf(result).length).toBeLessThan(1000);
    }
  });
});

describe("read-only files", () => {
  it("write and edit refuse a 0444 file and leave it as it was; overwriteReadOnly allows it and keeps the mode", async () => {
    const root = await tempDir();
    const file = join(root, "locked.txt");
    await writeFile(file, "old\n");
    await chmod(file, 0o444);
    const { write, edit } = byName(createFsTools({ cwd: root }));
    const written = await run(write, { path: "locked.txt", content: "new\n" });
    expect(written.details.code).toBe(FsErrorCode.READ_ONLY);
    expect(textOf(written)).toContain("read-only (mode 0444)");
    const edited = await run(edit, { path: "locked.txt", oldText: "old", newText: "new" });
    expect(edited.details.code).toBe(FsErrorCode.READ_ONLY);
    expect(await readFile(file, "utf8")).toBe("old\n");

    const allowed = byName(createFsTools({ cwd: root, overwriteReadOnly: true }));
    expect((await run(allowed.write, { path: "locked.txt", content: "new\n" })).isError).toBeUndefined();
    expect(await readFile(file, "utf8")).toBe("new\n");
    expect((await stat(file)).mode & 0o777).toBe(0o444);
  });
});

describe("the mkdir race", () => {
  it("never creates a folder outside the roots while a folder is swapped for a symlink, over hundreds of calls", async () => {
    const root = await tempDir();
    const outside = await tempDir();
    await mkdir(join(root, "real"));
    const { write } = byName(createFsTools({ cwd: root }));
    // Turns root/d from a real folder into a symlink to the outside folder and back, as fast as it can.
    const swapper = spawn(
      process.execPath,
      [
        "-e",
        `const fs = require("node:fs"); process.chdir(${JSON.stringify(root)}); fs.mkdirSync("d");
         const t = (f) => { try { f(); } catch {} };
         const pause = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.random());
         process.stdout.write("ready\\n");
         for (;;) {
           t(() => fs.renameSync("d", "d.real"));
           t(() => fs.symlinkSync(${JSON.stringify(outside)}, "d"));
           pause();
           t(() => fs.unlinkSync("d"));
           t(() => fs.renameSync("d.real", "d"));
           t(() => fs.rmSync("d.real", { recursive: true, force: true }));
           pause();
         }`,
      ],
      { stdio: ["ignore", "pipe", "ignore"] },
    );
    await new Promise((resolve) => swapper.stdout.once("data", resolve));
    let written = 0;
    let refused = 0;
    try {
      // At least 400 calls, and on until the race was met (a call refused) 20 times: on a loaded
      // machine the swapper may sleep through many calls, and calls that all found the real folder
      // would prove nothing.
      for (let i = 0; i < 20_000 && (i < 400 || refused < 20); i++) {
        const result = await run(write, { path: `d/n${i}/deeper/f.txt`, content: "x" });
        if (!result.isError) written += 1;
        else {
          refused += 1;
          expect([FsErrorCode.OUTSIDE_ROOTS, FsErrorCode.IO_ERROR, FsErrorCode.NOT_DIRECTORY]).toContain(result.details.code);
        }
      }
    } finally {
      swapper.kill("SIGKILL");
    }
    const leaked = execFileSync("find", [outside, "-mindepth", "1"], { encoding: "utf8" }).trim();
    expect(leaked).toBe("");
    // Calls that found the real folder wrote inside it; the others were refused.
    expect(refused).toBeGreaterThanOrEqual(20);
    expect(written).toBeGreaterThan(0);
    await rm(join(root, "d"), { recursive: true, force: true });
  }, 180_000);

  it("a folder swapped before the write is refused, and nothing is created in its target", async () => {
    const root = await tempDir();
    const outside = await tempDir();
    await mkdir(join(root, "sub"));
    const { write } = byName(createFsTools({ cwd: root }));
    await rename(join(root, "sub"), join(root, "sub-moved"));
    await symlink(outside, join(root, "sub"));
    const result = await run(write, { path: "sub/a/b/c.txt", content: "x" });
    expect(result.details.code).toBe(FsErrorCode.OUTSIDE_ROOTS);
    expect(execFileSync("find", [outside, "-mindepth", "1"], { encoding: "utf8" })).toBe("");
  });
});

describe("the guarded walk", () => {
  it("turns an exception thrown inside the walk's callbacks into a rejected call, not an uncaught exception", async () => {
    const root = await tempDir();
    await writeFile(join(root, "a.txt"), "");
    const { walk } = await import("../src/_walk.js");
    // No compile check first: the matcher throws inside the directory walk, where nothing awaits it.
    await expect(walk({ cwd: root, pattern: "é".repeat(38_000) })).rejects.toMatchObject({ code: FsErrorCode.BAD_PATTERN });
    expect(await walk({ cwd: root, pattern: "*.txt" })).toEqual(["a.txt"]);
  });
});
