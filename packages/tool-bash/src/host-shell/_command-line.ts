import type { CgroupBounds } from "../limits/_cgroup.js";

// The command line another host's shell runs in the command's place: `/bin/sh -c <script>` with
// every word single-quoted, so that the command reaches the sandbox's shell byte for byte whatever
// it holds (quotes, `$`, backslashes, here-documents, newlines, non-UTF-8 text), in bash, zsh or sh.

/** A word for any POSIX shell: bare when it holds only safe characters, else single-quoted. */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_/.,:=+@%^-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The descriptors the program reads its input files from: bwrap's arguments (`--args 3`), its seccomp filter (`--seccomp 4`). */
export const FIRST_INPUT = 3;

/** What the command line is made of. */
export interface CommandLineParts {
  /** The sandbox's program and its arguments (bwrap, or nsenter then bwrap), up to and including the shell running the command. */
  program: readonly string[];
  /** Files the program reads from descriptors `FIRST_INPUT`, `FIRST_INPUT + 1`, …, opened by the script (files that outlive this process). */
  inputs: readonly string[];
  /** The call's cgroups to make (and remove after it), when a cgroup bounds a limit. */
  cgroup: CgroupBounds | undefined;
  /** A file to write the command's first process id to, for a holder that keeps something until it ends. */
  lease: string | undefined;
  /** A file whose text is added to stderr when the command fails (what the proxy refused). */
  notesFile: string | undefined;
  /** Lines added to stderr when the command fails: that it ran in the sandbox, and what the sandbox may have stopped. */
  failureNotes: string;
}

/**
 * The script, run by `/bin/sh` with the sandbox's program as its arguments: writes the lease, makes the call's cgroups (named after its own
 * pid, so that tool-bash's sweep removes them once this shell is gone, however it ended), starts
 * the sandbox in them through a second `/bin/sh` that moves itself in and execs it, removes the
 * cgroups, and on failure adds the notes to stderr; exits with the sandbox's status.
 */
export function commandLine(parts: CommandLineParts): string {
  const lines: string[] = [];
  if (parts.lease !== undefined) lines.push(`echo $$ > ${shellWord(parts.lease)}`);
  const groups = cgroupsOf(parts.cgroup);
  for (const [index, group] of groups.entries()) {
    const folder = `"$c${index}"`;
    lines.push(`c${index}=${shellWord(group.parent)}/toolhost-$$-${index + 1}`);
    const bounds = group.files.map(([file, value]) => `echo ${value} > ${folder}/${file}`).join(" && ");
    lines.push(`mkdir ${folder} && ${bounds} || { echo 'toolhost: the sandbox could not make its cgroup, so the command did not run' >&2; exit 125; }`);
    for (const [file, value] of group.quiet) lines.push(`{ echo ${value} > ${folder}/${file}; } 2>/dev/null`);
  }
  // The program comes as the script's own arguments ("$@"): the command is quoted once, not twice.
  const opened = parts.inputs.map((file, index) => ` ${FIRST_INPUT + index}<${shellWord(file)}`).join("");
  if (groups.length > 0) {
    const enter = `'for f do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; shift; exec "$@"'`;
    const procs = groups.map((_, index) => `"$c${index}/cgroup.procs"`).join(" ");
    lines.push(`/bin/sh -c ${enter} toolhost-cgroup ${procs} -- "$@"${opened}`);
  } else lines.push(`"$@"${opened}`);
  lines.push("r=$?");
  if (groups.length > 0) {
    const folders = groups.map((_, index) => `"$c${index}"`).join(" ");
    // The namespace's processes may still be leaving the cgroups when bwrap has exited.
    lines.push(`rmdir ${folders} 2>/dev/null || { sleep 0.05; rmdir ${folders} 2>/dev/null; }`);
  }
  const notes = [parts.failureNotes === "" ? "" : `printf '%s\\n' ${shellWord(parts.failureNotes)} >&2`, parts.notesFile === undefined ? "" : `cat ${shellWord(parts.notesFile)} >&2 2>/dev/null`].filter(
    (line) => line !== "",
  );
  if (notes.length > 0) lines.push(`[ $r -eq 0 ] || { ${notes.join("; ")}; }`);
  lines.push("exit $r");
  // A variable first: Gemini CLI strips a leading `sh -c '…'` down to what is inside the quotes.
  return `TOOLHOST_SANDBOX=1 /bin/sh -c ${shellWord(lines.join("\n"))} toolhost-sandbox ${parts.program.map(shellWord).join(" ")}`;
}

/** Each controller's folder for the call and the bounds written there. */
interface CgroupFiles {
  parent: string;
  files: Array<[string, string]>;
  /** Written where the kernel has them (swap accounting), as CallCgroup does. */
  quiet: Array<[string, string]>;
}

function cgroupsOf(bounds: CgroupBounds | undefined): CgroupFiles[] {
  const groups: CgroupFiles[] = [];
  if (bounds?.pids) groups.push({ parent: bounds.pids.controller.folder, files: [["pids.max", String(bounds.pids.max)]], quiet: [] });
  const memory = bounds?.memory;
  if (memory) {
    const v1 = memory.controller.version === 1;
    const max = String(memory.max);
    groups.push({ parent: memory.controller.folder, files: [[v1 ? "memory.limit_in_bytes" : "memory.max", max]], quiet: [v1 ? ["memory.memsw.limit_in_bytes", max] : ["memory.swap.max", "0"]] });
  }
  return groups;
}
