import { readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BashErrorCode, type BashToolDetails, createBashTool } from "../src/index.js";
import { tempFolder, textOf } from "./_helpers.js";

let dir: string;
let remove: () => void;
const spills: string[] = [];
beforeEach(() => {
  ({ dir, remove } = tempFolder());
});
afterEach(() => {
  remove();
  for (const path of spills.splice(0)) rmSync(dirname(path), { recursive: true, force: true });
});

const never = new AbortController().signal;

async function run(command: string, options: Parameters<typeof createBashTool>[0] = {}, timeout?: number) {
  const tool = createBashTool({ cwd: dir, ...options });
  const result = await tool.execute("call-1", timeout === undefined ? { command } : { command, timeout }, never, () => {}, undefined);
  if (result.details.fullOutputPath) spills.push(result.details.fullOutputPath);
  return result;
}

describe("bash: results", () => {
  it("returns stdout, and the details the seed shows", async () => {
    const result = await run("echo hello; echo world");
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toBe("hello\nworld");
    expect(result.details).toMatchObject({
      command: "echo hello; echo world",
      cwd: dir,
      exitCode: 0,
      signal: null,
      stdout: "hello\nworld",
      stderr: "",
      truncated: false,
      fullOutputPath: null,
    });
    expect(result.details.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("keeps stderr apart from stdout, after it and marked", async () => {
    const result = await run("echo to-err >&2; echo to-out");
    expect(result.details.stdout).toBe("to-out");
    expect(result.details.stderr).toBe("to-err");
    expect(textOf(result)).toBe("to-out\n[stderr]\nto-err");
  });

  it("makes a non-zero exit an error result with the exit code", async () => {
    const result = await run("echo partial; exit 3");
    expect(result.isError).toBe(true);
    expect(result.details.exitCode).toBe(3);
    expect(result.details.code).toBe(BashErrorCode.COMMAND_FAILED);
    expect(textOf(result)).toBe("partial\n[exit code 3]");
  });

  it("reports a shell ended by a signal (unsandboxed)", async () => {
    const result = await run("kill -KILL $$", { sandbox: "off" });
    expect(result.isError).toBe(true);
    expect(result.details).toMatchObject({ exitCode: null, signal: "SIGKILL" });
    expect(textOf(result)).toBe("[ended by signal SIGKILL]");
  });

  it("reports a shell ended by a signal in the sandbox as 128 + the signal's number, as a shell does", async () => {
    const result = await run("kill -KILL $$", { sandbox: "required" });
    expect(result.isError).toBe(true);
    expect(result.details).toMatchObject({ exitCode: 137, signal: null });
    expect(textOf(result)).toBe("[exit code 137]");
  });

  it("says when there is no output", async () => {
    expect(textOf(await run("true"))).toBe("(no output)");
  });

  it("runs in cwd, with env added to the inherited environment, and stdin closed", async () => {
    process.env.TOOL_BASH_TEST_INHERITED = "inherited";
    try {
      const result = await run('pwd; echo "$ADDED $TOOL_BASH_TEST_INHERITED"; cat; echo "read: $?"', {
        env: { ADDED: "added" },
      });
      expect(result.details.stdout).toBe(`${dir}\nadded inherited\nread: 0`);
    } finally {
      delete process.env.TOOL_BASH_TEST_INHERITED;
    }
  });

  it("gives the command real pipes: /dev/stdout and /dev/stderr can be opened", async () => {
    const result = await run("echo out > /dev/stdout; echo err > /dev/stderr; echo both | tee /dev/stderr");
    expect(result.isError).toBeUndefined();
    expect(result.details.stdout).toBe("out\nboth");
    expect(result.details.stderr).toBe("err\nboth");
  });

  it("falls back to Node's own pipes where mkfifo is missing", async () => {
    const { execFileSync } = await import("node:child_process");
    const dist = new URL("../dist/index.js", import.meta.url).href;
    // A fresh process with an empty PATH: no mkfifo, so no FIFO; the shell and programs by path.
    const script = `
      const { rmSync } = await import("node:fs");
      const { dirname } = await import("node:path");
      const { createBashTool } = await import(${JSON.stringify(dist)});
      const tool = createBashTool({ shell: "/bin/bash", maxOutputBytes: 1024 });
      const result = await tool.execute("x", { command: "/usr/bin/seq 1 100000; echo done >&2" }, new AbortController().signal, () => {});
      const { size } = (await import("node:fs")).statSync(result.details.fullOutputPath);
      rmSync(dirname(result.details.fullOutputPath), { recursive: true });
      console.log(JSON.stringify({ stdout: result.details.stdout, stderr: result.details.stderr, size }));
    `;
    const printed = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      env: { ...process.env, PATH: join(dir, "empty") },
    });
    const { stdout, stderr, size } = JSON.parse(printed) as { stdout: string; stderr: string; size: number };
    expect(stdout).toMatch(/^1\n2\n[^]*… [\d,]+ lines left out; full output: [^]*\n99999\n100000$/);
    expect(stderr).toBe("done");
    expect(size).toBe(588895 + "done\n".length);
  });

  it("resolves a relative cwd against the working directory of the process", async () => {
    const tool = createBashTool({ cwd: "." });
    const result = await tool.execute("c", { command: "pwd" }, never, () => {}, undefined);
    expect(result.details.stdout).toBe(process.cwd());
  });

  it("uses the shell it is given", async () => {
    const result = await run('echo "$0"', { shell: "sh" });
    expect(result.details.stdout).toMatch(/\/sh$/);
    const bash = await run('echo "${BASH_VERSION:+bash}"');
    expect(bash.details.stdout).toBe("bash");
  });
});

describe("bash: commands that cannot start", () => {
  it("says that the working directory is missing", async () => {
    const missing = join(dir, "missing");
    const result = await run("echo never", { cwd: missing });
    expect(result.isError).toBe(true);
    expect(result.details.code).toBe(BashErrorCode.CWD_NOT_FOUND);
    expect(textOf(result)).toContain(`the working directory ${missing} does not exist`);
  });

  it("says that the working directory is not a folder", async () => {
    const file = join(dir, "file");
    await run(`touch ${file}`);
    const result = await run("echo never", { cwd: file });
    expect(result.details.code).toBe(BashErrorCode.CWD_NOT_FOUND);
    expect(textOf(result)).toContain("is not a folder");
  });

  it("says that the shell is missing", async () => {
    const result = await run("echo never", { shell: "no-such-shell-here" });
    expect(result.isError).toBe(true);
    expect(result.details.code).toBe(BashErrorCode.SHELL_NOT_FOUND);
    expect(textOf(result)).toContain('the shell "no-such-shell-here" was not found');
    const byPath = await run("echo never", { shell: join(dir, "nope") });
    expect(byPath.details.code).toBe(BashErrorCode.SHELL_NOT_FOUND);
  });

  it("falls back to sh when bash is not on PATH, and fails clearly when neither is", async () => {
    const { symlinkSync, mkdirSync } = await import("node:fs");
    const bin = join(dir, "bin");
    mkdirSync(bin);
    symlinkSync("/bin/sh", join(bin, "sh"));
    const result = await run('echo "$0"', { env: { PATH: bin } });
    expect(result.details.stdout).toBe(join(bin, "sh"));
    const none = await run("echo never", { env: { PATH: join(dir, "empty") } });
    expect(none.details.code).toBe(BashErrorCode.SHELL_NOT_FOUND);
    expect(textOf(none)).toContain("neither bash nor sh was found");
  });
});

describe("bash: output", () => {
  it("keeps the head and the tail of many lines, and writes the whole output to a file", async () => {
    const result = await run("seq 1 100000", { maxOutputBytes: 2048 });
    const { stdout, fullOutputPath, truncated } = result.details;
    expect(truncated).toBe(true);
    expect(fullOutputPath).not.toBeNull();
    expect(readFileSync(fullOutputPath as string, "utf8")).toBe(`${Array.from({ length: 100000 }, (_, i) => i + 1).join("\n")}\n`);
    const lines = stdout.split("\n");
    expect(lines.slice(0, 3)).toEqual(["1", "2", "3"]);
    expect(lines.slice(-2)).toEqual(["99999", "100000"]);
    const marker = lines.find((line) => line.startsWith("… "));
    const match = /^… ([\d,]+) lines left out; full output: (\S+) \(kept until [\dT:-]+Z\)$/.exec(marker ?? "");
    expect(match?.[2]).toBe(fullOutputPath);
    const shown = lines.filter((line) => /^\d+$/.test(line)).length;
    expect(Number(match?.[1]?.replace(/,/g, ""))).toBe(100000 - shown);
    expect(Buffer.byteLength(stdout)).toBeLessThan(2048 + 200);
    expect(textOf(result)).toBe(stdout);
  });

  it("keeps at most maxStdoutLines and maxStderrLines lines, head and tail", async () => {
    const result = await run("seq 1 10; seq 1 9 >&2", { maxStdoutLines: 4, maxStderrLines: 3 });
    expect(result.details.truncated).toBe(true);
    const path = result.details.fullOutputPath as string;
    const until = result.details.fullOutputExpiresAt as string;
    expect(Date.parse(until) - Date.now()).toBeGreaterThan(3500 * 1000);
    expect(result.details.stdout).toBe(`1\n2\n… 6 lines left out; full output: ${path} (kept until ${until})\n9\n10`);
    expect(result.details.stderr).toBe(`1\n2\n… 6 lines left out; full output: ${path} (kept until ${until})\n9`);
    // Both streams, in the order they came.
    expect(readFileSync(path, "utf8")).toBe("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n1\n2\n3\n4\n5\n6\n7\n8\n9\n");
  });

  it("shows everything when it fits", async () => {
    const result = await run("seq 1 4", { maxStdoutLines: 4 });
    expect(result.details).toMatchObject({ stdout: "1\n2\n3\n4", truncated: false, fullOutputPath: null });
  });

  it("cuts a 1 MB single line, and keeps all of it in the file", async () => {
    const result = await run("head -c 1048576 /dev/zero | tr '\\0' a");
    const { stdout, fullOutputPath, truncated } = result.details;
    expect(truncated).toBe(true);
    expect(statSync(fullOutputPath as string).size).toBe(1048576);
    expect(stdout.length).toBeLessThan(2200);
    expect(stdout).toMatch(/^a{2000}… \[line cut\]\n… 1,046,576 bytes left out; full output: /);
  });

  it("counts every byte not shown in the cut notice", async () => {
    const result = await run("head -c 100000 /dev/zero | tr '\\0' a");
    expect(result.details.stdout).toMatch(/^a{2000}… \[line cut\]\n… 98,000 bytes left out; full output: /);
  });

  it("never shows part of a word where a line is cut: a token is shown whole or left out whole", async () => {
    const token = `ghp_${"A1b2".repeat(9)}`;
    // The 2,000-character cut falls inside the token; a word of 3,000 characters is no token, but is kept or left out whole too.
    const result = await run(`printf '%s ' $(seq 1 1000 | head -c 1990) ; printf '${token} tail\\n'; head -c 3000 /dev/zero | tr '\\0' w; echo`);
    const [first, second] = result.details.stdout.split("\n");
    expect(first).toMatch(/^[\d ]+… \[line cut: [\d,]+ more characters\]$/);
    expect(first).not.toContain("ghp_");
    expect(second).toBe("… [line cut: 3,000 more characters]");
  });

  it("cuts long lines even when the output fits", async () => {
    const result = await run("for i in $(seq 1 600); do printf 'bbbb '; done; echo; echo short");
    const { stdout, fullOutputPath, fullOutputExpiresAt } = result.details;
    expect(stdout).toBe(
      `${"bbbb ".repeat(400)}… [line cut: 1,000 more characters]\nshort\n… long lines cut; full output: ${fullOutputPath} (kept until ${fullOutputExpiresAt})`,
    );
    expect(readFileSync(fullOutputPath as string, "utf8")).toBe(`${"bbbb ".repeat(600)}\nshort\n`);
  });

  it("says so when the full output cannot be saved", async () => {
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = join(dir, "no-such-folder");
    try {
      const result = await run("seq 1 10", { maxStdoutLines: 2 });
      expect(result.isError).toBeUndefined();
      expect(result.details.truncated).toBe(true);
      expect(result.details.fullOutputPath).toBeNull();
      expect(result.details.stdout).toMatch(/^1\n… 8 lines left out; the full output could not be saved \(.*ENOENT.*\)\n10$/);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it("cuts the full-output file at what this process may write, says the cut, and removes the file when done", async () => {
    const { execFileSync } = await import("node:child_process");
    const dist = new URL("../dist/index.js", import.meta.url).href;
    // A Node process that may write files of at most 200 KiB (ulimit -f): the full output is more.
    // The call's fileSizeBytes is lowered to that hard limit, and the full-output file is bounded by it.
    const script = `
      process.on("SIGXFSZ", () => {});
      const { createBashTool } = await import(${JSON.stringify(dist)});
      const tool = createBashTool({ shell: "/bin/bash" });
      const result = await tool.execute("x", { command: "seq 1 200000" }, new AbortController().signal, () => {});
      console.log(JSON.stringify(result.details));
    `;
    const printed = execFileSync("bash", ["-c", 'ulimit -f 200; exec "$0" --input-type=module -e "$1"', process.execPath, script], {
      encoding: "utf8",
      env: { ...process.env, TMPDIR: dir },
    });
    const details = JSON.parse(printed) as BashToolDetails & { fullOutputCut?: { keptBytes: number; totalBytes: number } };
    expect(details.truncated).toBe(true);
    expect(details.fullOutputCut).toEqual({ keptBytes: 200 * 1024, totalBytes: 1_288_895 });
    expect(details.stdout).toMatch(/\n… [\d,]+ lines left out; full output: .*output-1\.log \(kept until .*, cut at 200 KiB of 1\.2 MiB/);
    const { readdirSync } = await import("node:fs");
    expect(readdirSync(dir)).toEqual([]);
  }, 30_000);

  it("turns invalid UTF-8 into replacement characters", async () => {
    const result = await run("printf 'ok \\377\\376 end\\n'; printf 'cut \\342\\202' >&2");
    expect(result.isError).toBeUndefined();
    expect(result.details.stdout).toBe("ok \uFFFD\uFFFD end");
    expect(result.details.stderr).toBe("cut \uFFFD");
  });

  it("joins a character split across chunks", async () => {
    const result = await run("printf 'euro \\342'; sleep 0.05; printf '\\202'; sleep 0.05; printf '\\254 end\\n'");
    expect(result.details.stdout).toBe("euro € end");
  });

  it("never shows half a character where the head and the tail are cut", async () => {
    // 3-byte characters, no newline: the cuts fall inside characters.
    const result = await run("for i in $(seq 1 2000); do printf '€€€ '; done", { maxOutputBytes: 1024 + 1 });
    expect(result.details.truncated).toBe(true);
    expect(result.details.stdout).not.toContain("\uFFFD");
    expect(result.details.stdout).toMatch(/^(€€€ )+…\n… [\d,]+ bytes left out; full output: /);
  });

  it("streams the latest output through onUpdate, at most about 10 times a second", async () => {
    const tool = createBashTool({ cwd: dir });
    const updates: { at: number; text: string; details?: BashToolDetails }[] = [];
    const started = performance.now();
    const result = await tool.execute(
      "u",
      { command: "for i in $(seq 1 30); do echo line $i; sleep 0.02; done" },
      never,
      (update) => {
        updates.push({ at: performance.now() - started, text: textOf(update), details: update.details });
      },
      undefined,
    );
    expect(result.details.stdout.split("\n")).toHaveLength(30);
    expect(updates.length).toBeGreaterThan(0);
    const elapsed = performance.now() - started;
    // The contract, not a speed: no update before one interval (100 ms; timers may fire a little
    // early), and no more than one per interval over the run. Counted, not gap by gap: on a loaded
    // machine a late callback makes the gap after it look short though the updates were spaced.
    expect(updates[0]?.at).toBeGreaterThanOrEqual(95);
    expect(updates.length).toBeLessThanOrEqual(Math.floor(elapsed / 95));
    for (const update of updates) expect(update.text).toMatch(/^line 1(\n|$)/);
    const last = updates[updates.length - 1];
    expect(last?.details?.stdout).toMatch(/line \d+$/);
  });
});
