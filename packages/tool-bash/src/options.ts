import { type Static, Type, resolvePluginOptions } from "@toolhost/core";
import { defaultLimits } from "./limits/_limits.js";

// What a call reaches (folders, network, root, limits, the sandbox itself) is marked `reach`: a
// project the user has not trusted may narrow it, never widen it (core judges each against the
// value of the config below, or the default here).
const LIMITS = defaultLimits();

/** A limit: `reach: "max"`, its default the one the minimal root applies. */
function limit(name: keyof typeof LIMITS, minimum: number, description: string) {
  return Type.Optional(Type.Integer({ minimum, default: LIMITS[name], description, reach: "max" }));
}

/** The options of the bash tool and of its plugin. */
export const BashToolOptionsSchema = Type.Object(
  {
    cwd: Type.Optional(
      Type.String({
        minLength: 1,
        description: "The folder commands run in; relative to the harness's working directory. Default: that directory.",
        reach: "folders",
      }),
    ),
    timeout: Type.Number({
      minimum: 0,
      default: 120,
      description: "Seconds a command may run before it and every process it started are ended; 0 for no limit. Caps the call's own timeout.",
    }),
    maxStdoutLines: Type.Optional(
      Type.Integer({ minimum: 1, description: "The most stdout lines the model sees (head and tail)." }),
    ),
    maxStderrLines: Type.Optional(
      Type.Integer({ minimum: 1, description: "The most stderr lines the model sees (head and tail)." }),
    ),
    maxOutputBytes: Type.Integer({
      minimum: 1024,
      default: 50 * 1024,
      description: "The most bytes of each stream the model sees (head and tail); the whole output goes to a file.",
    }),
    // The shell, the environment and a prefix run around every command the policy allows: only a
    // trusted config may set them (an untrusted repository's config would run its program each call).
    shell: Type.Optional(
      Type.String({ minLength: 1, description: "The shell that runs `-c <command>`: a name on PATH or a path. Default: bash, else sh.", trustedOnly: true }),
    ),
    env: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: "Variables added to the inherited environment.", trustedOnly: true }),
    ),
    killGraceMs: Type.Integer({
      minimum: 0,
      default: 2000,
      description: "Milliseconds between SIGTERM and SIGKILL when a command is aborted or times out.",
    }),
    commandPrefix: Type.Optional(
      Type.String({
        minLength: 1,
        description: "Run first in every command, on a line of its own (e.g. `set -o pipefail`, `source .venv/bin/activate`).",
        trustedOnly: true,
      }),
    ),
    sandbox: Type.Union([Type.Literal("off"), Type.Literal("auto"), Type.Literal("required")], {
      default: "auto",
      reach: "order",
      order: ["required", "auto", "off"],
      description:
        "Run each command in a bubblewrap sandbox: auto (default) when bwrap works on this machine, else unsandboxed with a warning at load; required refuses every call without one; off never.",
    }),
    root: Type.Union([Type.Literal("minimal"), Type.Literal("host")], {
      default: "minimal",
      reach: "order",
      order: ["minimal", "host"],
      description:
        "Sandboxed: what of this machine a command sees. minimal (default): the system folders read-only (/usr, /bin, /lib*, /etc with its secret files covered), a private /tmp, /dev, /proc, an empty home folder, the writable and readable folders, and nothing else. host: all of / read-only, less what the policy denies to read.",
    }),
    writable: Type.Array(Type.String({ minLength: 1 }), {
      default: ["${workspace}"],
      // A list, not folders: a folder inside the workspace listed itself reaches more (its .git, written).
      reach: "list",
      description:
        "Sandboxed: the folders commands may write to (`${workspace}` is the project folder, `~/` the home folder; relative paths are against the project folder), besides a private /tmp. A .git folder in them stays read-only unless listed itself.",
    }),
    readable: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      reach: "list",
      description:
        'Sandboxed, root "minimal": host files and folders commands may read (not write) besides the system folders and the writable folders, e.g. `~/.gitconfig` or a package cache (`~/` is the home folder, relative paths are against the project folder).',
    }),
    network: Type.Union([Type.Literal("off"), Type.Literal("proxy"), Type.Literal("host"), Type.Literal("on")], {
      default: "off",
      reach: "order",
      order: ["off", "proxy", ["host", "on"]],
      description:
        'Sandboxed: how commands reach the network. off (default): not at all (only the sandbox\'s own loopback); proxy: only through an HTTP(S) and SOCKS5 proxy of this tool, which asks the harness\'s policy about each destination; host: as this machine does ("on" is the same). Unsandboxed, the network is always reachable.',
    }),
    destinations: Type.Array(Type.String({ pattern: "^[A-Za-z0-9*.\\-\\[\\]:]+:(\\d{1,5}|\\*)$" }), {
      default: [],
      reach: "list",
      description:
        'Under network "proxy": destinations (`host:port`; `*.example.com:443`, `registry.npmjs.org:*`) the proxy lets through without asking the policy about the name; the addresses it resolves to are still asked about (a deny of an address holds). Every other connection is judged by the harness\'s policy.',
    }),
    limits: Type.Optional(
      Type.Object(
        {
          processes: limit("processes", 8, "Processes and threads a call may run at once."),
          memoryBytes: limit("memoryBytes", 16 * 1024 * 1024, "Memory a call's processes may use together (each process's, where no cgroup can be made)."),
          fileSizeBytes: limit("fileSizeBytes", 1024, "The largest file a command may write."),
          cpuSeconds: limit("cpuSeconds", 1, "CPU time of each process, in seconds."),
          openFiles: limit("openFiles", 16, "Files each process may hold open."),
        },
        { additionalProperties: false },
      ),
    ),
    hardLinks: Type.Union([Type.Literal("declare"), Type.Literal("refuse")], {
      default: "declare",
      reach: "order",
      order: ["refuse", "declare"],
      description:
        'Sandboxed, root "minimal": what to do when a writable folder holds a file that also has a name outside (a hard link, e.g. pnpm\'s store): declare (default) says that writes can reach that file system, so the policy trusts the call less; refuse refuses the call.',
    }),
    // Turning it off widens what another host's commands reach: only a trusted config may.
    hostShells: Type.Union([Type.Literal("confine"), Type.Literal("off")], {
      default: "confine",
      description:
        "How `toolhost hook` runs the shell commands another agent host makes (Claude Code's Bash, Gemini CLI's run_shell_command) that the policy allows: confine (default): in this sandbox, with these options, judged as confined; off: unconfined, as the host runs them.",
      trustedOnly: true,
    }),
    keepFullOutput: Type.Boolean({
      default: true,
      description: "Whether a truncated call's whole output is written to a private file for the model to read; false writes none.",
    }),
    fullOutputLifetime: Type.Number({
      minimum: 0,
      default: 3600,
      description: "Seconds a full-output file is kept; 0 keeps it until the harness is disposed (every file is deleted then, or when the process exits).",
    }),
    // The host's disk: one call's full-output file holds at most this much (issue 36).
    fullOutputBytes: Type.Optional(
      Type.Integer({
        minimum: 1024,
        description: "The most bytes one call's full-output file holds (the output's first); the result says where it was cut. Default: the call's fileSizeBytes limit (8 GiB when none is set).",
      }),
    ),
    executionMode: Type.Union([Type.Literal("sequential"), Type.Literal("parallel")], {
      default: "sequential",
      description: "sequential (default): a bash call runs alone, in the order the model wrote it.",
    }),
  },
  { additionalProperties: false },
);

/** The options of `createBashTool` and of the `@toolhost/tool-bash` plugin, defaults filled. */
export type BashToolConfig = Static<typeof BashToolOptionsSchema>;

/** What `createBashTool` takes: every option may be left out. */
export type BashToolOptions = Partial<BashToolConfig>;

/** Fills defaults and validates, as `harness.use` does; a bad option is a `ToolhostError` naming its path. */
export function resolveBashOptions(options: BashToolOptions | undefined): BashToolConfig {
  return resolvePluginOptions({ name: "@toolhost/tool-bash", options: BashToolOptionsSchema }, options);
}
