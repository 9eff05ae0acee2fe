import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempFolder } from "./_helpers.js";

// The sandbox's root against the kernel's own state, tried from inside confined calls as an
// attacker would, as root (this test's uid) and as a second uid (nobody, through setpriv): the
// calls run in a process of their own (test/_kernel-calls.mjs, the built package).

const CALLS = fileURLToPath(new URL("./_kernel-calls.mjs", import.meta.url));
const NOBODY = ["--reuid=65534", "--regid=65534", "--clear-groups"];

interface Ran {
  text: string;
  isError: boolean;
  enforced: boolean;
}

let scratch: { dir: string; remove: () => void };

beforeAll(() => {
  scratch = tempFolder();
  chmodSync(scratch.dir, 0o755);
});
afterAll(() => scratch.remove());

/** A workspace the uid owns, and the calls' results, run by a process of that uid. */
function runAs(uid: "root" | "nobody", commands: string[], options: Record<string, unknown> = {}): Ran[] {
  const workspace = join(scratch.dir, `${uid}-${Math.random().toString(36).slice(2)}`);
  mkdirSync(workspace);
  if (uid === "nobody") chownSync(workspace, 65534, 65534);
  const input = join(scratch.dir, `${uid}-input-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(input, JSON.stringify({ workspace, options, commands }), { mode: 0o644 });
  const [file, args] = uid === "root" ? [process.execPath, [CALLS, input]] : ["setpriv", [...NOBODY, process.execPath, CALLS, input]];
  // HOME of the uid's own: nobody's probe cache goes to a folder it may write.
  const env = uid === "root" ? process.env : { ...process.env, HOME: workspace, XDG_CACHE_HOME: join(workspace, ".cache") };
  const out = execFileSync(file as string, args as string[], { cwd: workspace, env, encoding: "utf8", timeout: 120_000 });
  const lines = out.trim().split("\n").map((line) => JSON.parse(line) as Ran);
  expect(lines).toHaveLength(commands.length);
  for (const ran of lines) expect(ran.enforced).toBe(true);
  return lines;
}

const PROC_WRITES = ["/proc/sys/kernel/core_pattern", "/proc/sys/kernel/hostname", "/proc/sys/vm/drop_caches", "/proc/sysrq-trigger"];

describe.each(["root", "nobody"] as const)("the sandbox's root, as %s", { timeout: 180_000 }, (uid) => {
  it("takes no write to /proc: the kernel's settings, the sysrq trigger, its own processes' files", () => {
    const corePattern = readFileSync("/proc/sys/kernel/core_pattern", "utf8");
    // `: >` opens for writing and writes nothing: if the open were let through, the host would be left as it was.
    const opens = PROC_WRITES.map((path) => `: > ${path}`);
    const results = runAs(uid, [...opens, ": > /proc/self/oom_score_adj", "echo kept > /dev/stdout; echo also >&2"]);
    for (const [index, path] of PROC_WRITES.entries()) {
      const { text, isError } = results[index] as Ran;
      expect(isError).toBe(true);
      // Read-only, or not there at all (a kernel without magic SysRq has no /proc/sysrq-trigger).
      expect(text).toMatch(new RegExp(`${path}: (Read-only file system|No such file or directory)`));
    }
    expect(results[4]?.text).toContain("/proc/self/oom_score_adj: Read-only file system");
    // Writing to one's own output through /proc/self/fd still works.
    expect(results[5]).toMatchObject({ isError: false, text: "kept\n[stderr]\nalso" });
    expect(readFileSync("/proc/sys/kernel/core_pattern", "utf8")).toBe(corePattern);
  });

  it("shows no host state through /proc: timers and tasks of the host, the keyrings and their users read as empty; kernel symbols without addresses", () => {
    const files = ["/proc/timer_list", "/proc/keys", "/proc/key-users"];
    const [listed, symbols] = runAs(uid, [files.map((path) => `printf '%s %s\\n' ${path} "$(cat ${path} 2>&1 | wc -c)"`).join("; "), "grep -vc '^0000000000000000 ' /proc/kallsyms"]);
    expect(listed?.text.split("\n")).toEqual(files.map((path) => `${path} 0`));
    expect(symbols?.text.split("\n")[0]).toBe("0");
  });

  it("has a hostname of its own: `hostname x` is refused and changes nothing of the host's", () => {
    const before = hostname();
    const [changed, shown] = runAs(uid, ["hostname toolhost-attack", "hostname; cat /proc/sys/kernel/hostname"]);
    expect(changed?.isError).toBe(true);
    expect(changed?.text).toContain("hostname: you must be root to change the host name");
    expect(shown?.text).toBe("localhost\nlocalhost");
    expect(hostname()).toBe(before);
  });

  it("reaches no keyring: keyctl and add_key are refused", () => {
    const addKey = [
      "python3 -c 'import ctypes, os",
      "libc = ctypes.CDLL(None, use_errno=True)",
      'r = libc.syscall(248, b"user", b"toolhost", b"secret", 6, -3)',
      "print(r, os.strerror(ctypes.get_errno()))'",
    ].join("\n");
    const [show, add, request] = runAs(uid, ["keyctl show @s", addKey, "keyctl request user toolhost"]);
    expect(show?.isError).toBe(true);
    expect(show?.text).toContain("Operation not permitted");
    expect(add?.text).toBe("-1 Operation not permitted");
    expect(request?.text).toContain("Operation not permitted");
  });

  it("makes no user namespace from inside: unshare -U and unshare -r are refused", () => {
    const [user, mapped] = runAs(uid, ["unshare -U true", "unshare -r id"]);
    expect(user?.isError).toBe(true);
    expect(user?.text).toContain("unshare: unshare failed: Operation not permitted");
    expect(mapped?.text).toContain("Operation not permitted");
  });

  it("shows no host path in /proc/1/cmdline, nor a descriptor of the host beyond its output", () => {
    const [cmdline, fds] = runAs(uid, ["tr '\\0' ' ' < /proc/1/cmdline", "for f in /proc/$$/fd/*; do readlink $f; done; true"]);
    expect(cmdline?.text).toMatch(/^\S*bwrap --args \d+ -- /);
    expect(cmdline?.text).not.toContain(scratch.dir);
    expect(cmdline?.text).not.toContain("--bind");
    // stdin, stdout, stderr (the output's FIFOs, their names removed): no
    // namespace (the proxy's are named by path, never handed down), no file of the host. (A pipe
    // this test's own parent left open is passed on by every process, and is none of toolhost's.)
    const targets = fds?.text.split("\n") ?? [];
    expect(targets.slice(0, 3)).toEqual(["/dev/null", expect.stringMatching(/\/out-\d+ \(deleted\)$/), expect.stringMatching(/\/err-\d+ \(deleted\)$/)]);
    expect(targets.slice(3).filter((target) => !/^(pipe|socket):\[\d+\]$/.test(target))).toEqual([]);
  });

  it("still builds, runs a package's test script, reads /usr/share and runs threads", () => {
    const build = "printf 'all:\\n\\tcc -x c -o hello - < hello.c && ./hello > out.txt\\n' > Makefile && printf '#include <stdio.h>\\nint main(void){puts(\"built\");return 0;}\\n' > hello.c && make -s && cat out.txt";
    const npmTest = `printf '%s' '{"name":"w","version":"1.0.0","scripts":{"test":"node -e \\"console.log(6*7)\\""}}' > package.json && npm test --silent`;
    const threads = "python3 -c 'import threading; t = threading.Thread(target=print, args=(\"thread\",)); t.start(); t.join()'";
    const [built, tested, shared, threaded] = runAs(uid, [build, npmTest, "grep -m1 -o 'GNU GENERAL PUBLIC LICENSE' /usr/share/common-licenses/GPL-3", threads]);
    expect(built).toMatchObject({ isError: false, text: "built" });
    expect(tested).toMatchObject({ isError: false, text: "42" });
    expect(shared).toMatchObject({ isError: false, text: "GNU GENERAL PUBLIC LICENSE" });
    expect(threaded).toMatchObject({ isError: false, text: "thread" });
  });
});

it("this machine runs the tests as root, so that both uids are tried", () => {
  expect(process.getuid?.()).toBe(0);
  expect(execFileSync("setpriv", [...NOBODY, "id", "-u"], { encoding: "utf8" }).trim()).toBe("65534");
});
