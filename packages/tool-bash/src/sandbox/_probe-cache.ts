import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";

/** A probe that found a working bwrap (the only answer kept): what `_probe.ts` answers then. */
export interface WorkingProbe {
  ok: true;
  bwrap: string;
  version: string | undefined;
  sizedTmpfs: boolean;
}

// The probe's answer kept on disk between processes: a process started per call (a hook of
// another agent host, `toolhost call`) would otherwise run bwrap three times (the probe, its
// version, its help) before its first call, ~0.1 s on a loaded machine. Kept for one bwrap file
// (path, inode, size, times), one user and one boot: a new bwrap, or a reboot, probes again.
// What the file says can only make calls fail or run unconfined, never reach more: the bwrap
// that runs is the one found on PATH, and a wrong "it works" ends in bwrap's own error.

/** Where the answers are kept: `$XDG_CACHE_HOME/toolhost/`, else `~/.cache/toolhost/`. */
function cacheFile(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  return join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), ".cache"), "toolhost", "sandbox-probe.json");
}

/** Changed whenever the flags every call uses change: an answer for other flags is probed again. */
const FLAGS = "2: --remount-ro /proc, uts, cgroup, user namespaces, seccomp";

/** What the answer holds for: the bwrap file as it is, this user, this boot, the sandbox's flags. */
function keyOf(bwrap: string): string | undefined {
  try {
    const info = statSync(bwrap);
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    return [bwrap, info.ino, info.size, info.mtimeMs, info.ctimeMs, process.getuid?.() ?? "", boot, FLAGS].join(" ");
  } catch {
    return undefined;
  }
}

/** The answer kept for this bwrap, if any (a successful probe only: a failure is probed again). */
export function cachedProbe(bwrap: string): WorkingProbe | undefined {
  const key = keyOf(bwrap);
  if (key === undefined) return undefined;
  try {
    const kept = JSON.parse(readFileSync(cacheFile(), "utf8")) as { key?: unknown; probe?: { ok?: unknown; version?: unknown; sizedTmpfs?: unknown } };
    const probe = kept.probe;
    if (kept.key !== key || probe?.ok !== true || typeof probe.sizedTmpfs !== "boolean") return undefined;
    return { ok: true, bwrap, version: typeof probe.version === "string" ? probe.version : undefined, sizedTmpfs: probe.sizedTmpfs };
  } catch {
    return undefined;
  }
}

/** Keeps a successful probe's answer for the next process (quietly not, where the folder cannot be written). */
export function keepProbe(probe: WorkingProbe | { ok: false }): void {
  if (!probe.ok) return;
  const key = keyOf(probe.bwrap);
  if (key === undefined) return;
  const file = cacheFile();
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify({ key, probe: { ok: true, version: probe.version, sizedTmpfs: probe.sizedTmpfs } }), { mode: 0o600 });
    renameSync(temporary, file);
  } catch {
    // No cache: the next process probes again.
  }
}
