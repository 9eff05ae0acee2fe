import { existsSync } from "node:fs";

/**
 * What the sandbox shows of the kernel's own state, whatever uid this process runs as. bwrap's
 * `--proc` leaves `/proc/sys` writable to a root sandbox (it covers only `/proc/irq` and
 * `/proc/bus`): `kernel/core_pattern` set to `|<a program of the workspace>` would run that
 * program as root outside the sandbox at the next crash. So the whole /proc is made read-only
 * after it is mounted (a call still reads its own processes; it writes none of `/proc`), and the
 * files that show the host's state beyond the sandbox's processes read as empty.
 */

/**
 * /proc files that tell about the whole machine: timers and tasks with the host's pids and program
 * names, the keyrings and their users. (`kallsyms` shows its addresses as zeros without
 * CAP_SYSLOG, `kcore` opens only with CAP_SYS_RAWIO, `sysrq-trigger` takes no write on the
 * read-only /proc: a mount each would cost every call for nothing.)
 */
const HOST_STATE = ["/proc/timer_list", "/proc/sched_debug", "/proc/keys", "/proc/key-users"] as const;

/** The hostname a sandboxed call sees: its own UTS namespace, a name every /etc/hosts resolves. */
export const SANDBOX_HOSTNAME = "localhost";

let present: string[] | undefined;

/** `--proc /proc`, the host-state files covered by `empty` (an empty file), then /proc read-only. */
export function procArgs(empty: string): string[] {
  present ??= HOST_STATE.filter((path) => existsSync(path));
  const args = ["--proc", "/proc"];
  for (const path of present) args.push("--ro-bind", empty, path);
  args.push("--remount-ro", "/proc");
  return args;
}

/**
 * The namespaces a call gets besides mounts and pids: its own hostname (UTS: `hostname x` changes
 * nothing of the host's), its own cgroup root where the kernel has cgroup namespaces, and, when
 * this process is not root, its own user namespace in which no further one can be made (bwrap's
 * `--disable-userns`; a root sandbox gets the seccomp filter's refusal instead, see `_seccomp.ts`).
 */
export function isolationArgs(root = process.getuid?.() === 0): string[] {
  const args = ["--unshare-uts", "--hostname", SANDBOX_HOSTNAME, "--unshare-cgroup-try"];
  if (!root) args.push("--unshare-user", "--disable-userns");
  return args;
}
