import { execFile } from "node:child_process";
import { SYSTEM_FOLDERS_TEXT, systemProgram } from "../_programs.js";
import { isolationArgs } from "./_kernel.js";
import { cachedProbe, keepProbe } from "./_probe-cache.js";

/** Whether bubblewrap can make a sandbox here: its path, or why not and what to do. */
export type SandboxProbe = { ok: true; bwrap: string; version: string | undefined; sizedTmpfs: boolean } | { ok: false; reason: string };

const INSTALL =
  "Install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)";

/** The flags every sandboxed call uses, tried once: a failure here is a failure of every call. */
const PROBE_ARGS = [
  "--ro-bind", "/", "/",
  "--dev", "/dev",
  "--proc", "/proc",
  "--remount-ro", "/proc",
  "--tmpfs", "/tmp",
  "--unshare-pid",
  ...isolationArgs(),
  "--unshare-net",
  "--die-with-parent",
  "--new-session",
  "--cap-drop", "ALL",
  "--", "true",
];

const probes = new Map<string, Promise<SandboxProbe>>();

/**
 * Finds the system's `bwrap` (never one on PATH: `_programs.ts`) and runs it once with the
 * sandbox's flags. Cached per bwrap path for the life of the process, and a success on disk for
 * the next process (_probe-cache.ts); never throws: a failure is a reason a user can act on.
 */
export function probeSandbox(): Promise<SandboxProbe> {
  if (process.platform !== "linux") {
    return Promise.resolve({
      ok: false,
      reason: `the sandbox uses bubblewrap, which runs on Linux only (this is ${process.platform}).`,
    });
  }
  const bwrap = systemProgram("bwrap");
  if (bwrap === undefined) {
    return Promise.resolve({
      ok: false,
      reason: `bubblewrap (bwrap) was not found in the system's folders (${SYSTEM_FOLDERS_TEXT}, root's and written by no one else; PATH is not searched, since a command can write a folder on it). ${INSTALL}.`,
    });
  }
  let probe = probes.get(bwrap);
  if (!probe) {
    const kept = cachedProbe(bwrap);
    probe = kept ? Promise.resolve(kept) : runProbe(bwrap).then((ran) => (keepProbe(ran), ran));
    probes.set(bwrap, probe);
  }
  return probe;
}

async function runProbe(bwrap: string): Promise<SandboxProbe> {
  const run = await runQuietly(bwrap, PROBE_ARGS);
  if (run.ok) return { ok: true, bwrap, version: await versionOf(bwrap), sizedTmpfs: await sizesTmpfs(bwrap) };
  const said = run.output.trim().split("\n")[0] || run.failure;
  const namespaces = /namespace|uid map|setting up|Operation not permitted|Permission denied/i.test(said)
    ? " User namespaces look blocked here (a container without them, or AppArmor's kernel.apparmor_restrict_unprivileged_userns=1): allow them for bwrap, or run where they are allowed."
    : "";
  return { ok: false, reason: `${bwrap} cannot make a sandbox on this machine: ${said}.${namespaces}` };
}

/** Whether this bwrap bounds a tmpfs (`--size`, since bubblewrap 0.7; Ubuntu 22.04 has 0.6). */
async function sizesTmpfs(bwrap: string): Promise<boolean> {
  const run = await runQuietly(bwrap, ["--help"]);
  return /^\s*--size\b/m.test(run.output);
}

/** `bwrap --version`'s number ("bubblewrap 0.8.0" → "0.8.0"), or undefined when it says none. */
async function versionOf(bwrap: string): Promise<string | undefined> {
  const run = await runQuietly(bwrap, ["--version"]);
  return run.ok ? /(\d+(?:\.\d+)+)/.exec(run.output)?.[1] : undefined;
}

/** Runs a program with stdin closed: whether it exited with 0, what it wrote (both streams), and else why it failed. */
export function runQuietly(file: string, args: readonly string[]): Promise<{ ok: boolean; output: string; failure: string }> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { timeout: 10_000, maxBuffer: 1024 * 1024, encoding: "utf8" }, (error, stdout, stderr) => {
      const failure = error ? (error.killed ? "it did not answer within 10 s" : error.message.split("\n")[0] ?? "it failed") : "";
      resolve({ ok: error === null, output: `${stderr}${stdout}`, failure });
    });
    child.stdin?.end();
  });
}
