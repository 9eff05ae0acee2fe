import { basename, sep } from "node:path";

/**
 * Control files: what decides later calls, or what another program runs later outside any sandbox
 * (toolhost's own configs and logs, the agent hosts' settings and MCP configs, git's hooks and
 * config, direnv, shell start-up files, CI workflows). One list, read by every package that must
 * keep them out of a model's reach: a sandbox mounts them read-only, a policy asks before any tool
 * writes one. It names files, not tools or policies, so the kernel can hold it.
 *
 * Three places a control file can be:
 * - `anywhere`: a path of one or more segments found at any depth (`.claude`, `.git/hooks`), with
 *   everything below it: a repository's folder may be any folder, and toolhost's config is searched
 *   upward from wherever a host starts;
 * - `home`: relative to the user's home folder (`.bashrc`, `.config/toolhost`);
 * - `absolute`: an absolute path (`/etc/toolhost`).
 */
export interface ControlFile {
  /** Segments joined by `/`: `.claude`, `.git/hooks`, `.config/toolhost`, `/etc/toolhost`. */
  readonly path: string;
  readonly where: "anywhere" | "home" | "absolute";
  /** Who reads it, in a few words: shown by a policy's explanation and in a sandbox's notes. */
  readonly why: string;
}

const anywhere = (why: string, ...paths: string[]): ControlFile[] => paths.map((path) => ({ path, where: "anywhere", why }));
const home = (why: string, ...paths: string[]): ControlFile[] => paths.map((path) => ({ path, where: "home", why }));
const absolute = (why: string, ...paths: string[]): ControlFile[] => paths.map((path) => ({ path, where: "absolute", why }));

const TOOLHOST_CONFIG_EXTENSIONS = ["json", "yaml", "yml", "js", "mjs", "ts"];

/** The list (see `ControlFile`). Frozen: add to it here, with the reader in `why`. */
export const CONTROL_FILES: readonly ControlFile[] = Object.freeze([
  ...anywhere("toolhost's config: its policy and plugins", ...TOOLHOST_CONFIG_EXTENSIONS.map((ext) => `toolhost.config.${ext}`)),
  ...anywhere("toolhost's project folder: audit log, state", ".toolhost"),
  ...anywhere("Claude Code's project settings: hooks, permissions, MCP servers", ".claude", ".mcp.json"),
  ...anywhere("Gemini CLI's project settings: hooks, MCP servers", ".gemini"),
  ...anywhere("Codex's project settings: MCP servers, commands", ".codex"),
  ...anywhere("a package manager's project config: the programs and scripts it runs, where it fetches from", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs"),
  ...anywhere("an editor's or IDE's project settings: tasks, MCP servers, run configurations", ".cursor", ".vscode", ".idea", ".devcontainer"),
  ...anywhere("direnv: run by the shell on entering the folder", ".envrc"),
  ...anywhere("git's hooks and config: run by git outside any sandbox", ".git/hooks", ".git/config", ".husky", ".githooks"),
  ...anywhere("CI workflows: run with the repository's secrets", ".github/workflows", ".gitlab-ci.yml", ".circleci", ".buildkite"),
  ...home("toolhost's user config: policy, trusted folders, tokens", ".config/toolhost"),
  ...home("an agent host's user settings: hooks, MCP servers", ".claude", ".claude.json", ".gemini", ".codex", ".cursor", ".config/Code/User"),
  ...home(
    "shell start-up files: run by every later shell",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".config/fish",
  ),
  ...home("git's and npm's user config: programs they run", ".gitconfig", ".config/git", ".npmrc"),
  ...home("ssh's client config and authorized keys", ".ssh/config", ".ssh/authorized_keys"),
  ...home("programs started at login", ".config/autostart", ".config/systemd/user"),
  ...absolute("toolhost's managed config", "/etc/toolhost"),
  ...absolute("system-wide shell start-up files", "/etc/profile", "/etc/profile.d", "/etc/bash.bashrc", "/etc/zsh"),
]);

/** Where a path is judged from: absolute, normalized folders (as `ToolAccess` paths are). */
export interface ControlFilePlace {
  home: string;
}

const ANYWHERE = CONTROL_FILES.filter((file) => file.where === "anywhere");
/** Each `anywhere` entry's segments, and the entries by the name of their last segment, for one map look-up a segment. */
const BY_LAST_SEGMENT = new Map<string, Array<{ file: ControlFile; segments: string[] }>>();
for (const file of ANYWHERE) {
  const segments = file.path.split("/");
  const last = segments[segments.length - 1] as string;
  const entries = BY_LAST_SEGMENT.get(last) ?? [];
  entries.push({ file, segments });
  BY_LAST_SEGMENT.set(last, entries);
}

function under(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}

/**
 * The control file `path` is, or lies under, or undefined. `path` is absolute and normalized; no
 * symlink is followed and nothing touches the disk (a caller that resolves links asks about the
 * resolved path too). Costs one map look-up per segment of the path and a few comparisons.
 */
export function controlFileOf(path: string, place: ControlFilePlace): ControlFile | undefined {
  const segments = path.split(sep);
  for (let index = 0; index < segments.length; index += 1) {
    const entries = BY_LAST_SEGMENT.get(segments[index] as string);
    if (entries === undefined) continue;
    for (const { file, segments: wanted } of entries) {
      const start = index - wanted.length + 1;
      if (start < 1) continue;
      if (wanted.every((segment, offset) => segments[start + offset] === segment)) return file;
    }
  }
  for (const file of CONTROL_FILES) {
    if (file.where === "home" && under(path, `${place.home}${sep}${file.path}`)) return file;
    if (file.where === "absolute" && under(path, file.path)) return file;
  }
  return undefined;
}

/**
 * The `anywhere` entries whose first segment is `name`: what a walk of a folder looks for at each
 * entry it meets (a sandbox finding what to mount read-only). `basename` of a path works as `name`.
 */
export function controlFilesNamed(name: string): readonly ControlFile[] {
  return ANYWHERE.filter((file) => file.path.split("/")[0] === basename(name));
}
