import type { ToolLimits } from "@toolhost/core";

export type SandboxMode = "off" | "auto" | "required";

/** `details.sandbox` of every bash result: whether the command ran sandboxed, and what that allowed. */
export interface BashSandboxDetails {
  /** The `sandbox` option. */
  mode: SandboxMode;
  /** Whether this command ran in the sandbox. */
  enforced: boolean;
  /** Sandboxed: what made the sandbox, `bwrap 0.8.0 (/usr/bin/bwrap)`. */
  backend?: string;
  /** Why it did not, when the option asked for a sandbox. */
  reason?: string;
  /** Sandboxed: what of the host it saw: only the system and the folders named (`minimal`), or all of `/` read-only (`host`). */
  root?: "minimal" | "host";
  /** Sandboxed: how it reached the network: not at all, only through the tool's proxy (which asks the policy), or as the host does. */
  network?: "off" | "proxy" | "host";
  /** Sandboxed: the folders it could write to (besides a private /tmp). */
  writable?: string[];
  /** Minimal root: the host paths it could read (the system folders among them), beyond the writable folders. */
  readable?: string[];
  /** Sandboxed: the limits enforced on the call. */
  limits?: ToolLimits;
  /** What enforces each limit (`cgroup v1 pids.max (…)`, `setrlimit RLIMIT_FSIZE (each process)`). */
  limitsBy?: Partial<Record<keyof ToolLimits, string>>;
  /**
   * Minimal root: files in the writable folders that also have a name elsewhere (hard links): a
   * write through them changes the file there too, so the call's declared `writable` names the
   * file systems they are on. Those not proven to be package-store copies (pnpm's store, by the
   * SHA-512 of their content) read as empty (`hidden`); proven copies are shown (`storeCopies`);
   * `declaredOnly` says why none is hidden when they are beyond a bound (then they show what they
   * link to, and the notes say so).
   */
  hardLinks?: { files: number; examples: string[]; complete: boolean; reach: string[]; hidden: string[]; storeCopies: number; declaredOnly?: string };
  /** Network "proxy": each destination a command asked the proxy for, and what the policy said (at most 100). */
  connections?: BashConnection[];
  /**
   * Sandboxed: control files (core's `CONTROL_FILES`: `.mcp.json`, `.claude`, `toolhost.config.json`, …)
   * the command created where none was: each moved aside after the call (`movedTo`), so that no
   * program outside the sandbox reads it; `removed` when it could not be moved.
   */
  quarantined?: Array<{ path: string; movedTo: string | undefined; removed?: boolean; why: string }>;
  /** Sandboxed: paths inside those that stayed read-only (`.git`, the control files, the policy's write-denied paths). */
  readOnly?: string[];
  /**
   * Sandboxed: paths that read as empty: what the policy denies to read (in the writable folders
   * and elsewhere), and under the minimal root /etc's secret files.
   */
  hidden?: string[];
  /**
   * Sandboxed: the policy's deny-read patterns no mount can cover (a name at any depth such as
   * `.env` outside the writable folders): what they name elsewhere stays readable, so the policy
   * does not trust the call with reads.
   */
  unbounded?: string[];
}

/** A destination a sandboxed command asked the proxy to reach, and the answer. */
export interface BashConnection {
  /** `host:port`. */
  destination: string;
  /** `CONNECT` for a tunnel (HTTPS, SOCKS), else the HTTP method. */
  method: string;
  /** The URL the policy judged. */
  url: string;
  /** The addresses the name resolved to, each judged, and the only ones the proxy connects to (absent for an address named as such). */
  addresses?: string[];
  allowed: boolean;
  /** Why it was refused, or let through without asking (`destinations`). */
  reason?: string;
}

/** The `details` of every bash result. */
export interface BashToolDetails {
  command: string;
  /** The folder the command ran in. */
  cwd: string;
  /** The shell's exit code; null when it was ended by a signal or did not start. */
  exitCode: number | null;
  /** The signal that ended the shell (`SIGTERM`, …), or null. */
  signal: string | null;
  /** What the model sees of stdout: at most `maxOutputBytes` and `maxStdoutLines`, head and tail. */
  stdout: string;
  /** What the model sees of stderr, limited the same way. */
  stderr: string;
  /** Whether anything was left out of `stdout` or `stderr` (lines, bytes, or the end of long lines). */
  truncated: boolean;
  /** When truncated: a file with the whole output, stdout and stderr in the order they came (like `2>&1`). */
  fullOutputPath: string | null;
  /** When that file will be deleted (ISO 8601); null when it goes with the harness, or there is none. */
  fullOutputExpiresAt: string | null;
  /**
   * When the full-output file was cut at its bound (`fullOutputBytes`, by default the call's
   * `fileSizeBytes`): the bytes it holds (the output's first) and the bytes the output had.
   */
  fullOutputCut?: { keptBytes: number; totalBytes: number };
  /** Whether the command ran in a sandbox, and what it allowed. */
  sandbox: BashSandboxDetails;
  durationMs: number;
  /** On error results: a `BashErrorCode`. */
  code?: string;
  /** On a timeout: the limit, in seconds. */
  timeoutSeconds?: number;
  /** When the command reached one of the sandbox's limits (`code` is `TOOLHOST_BASH_LIMIT_EXCEEDED`). */
  limitExceeded?: BashLimitExceeded;
}

/** A limit a sandboxed command reached: which, its value, and what enforced it. */
export interface BashLimitExceeded {
  limit: keyof ToolLimits;
  value: number;
  /** What enforced it: `cgroup v1 pids.max`, `setrlimit RLIMIT_FSIZE`, … */
  by: string;
}
