import { execFileSync } from "node:child_process";
import { existsSync, type Stats } from "node:fs";

/*
 * POSIX ACLs: an access ACL can let a named user or group write a file whose mode says only its
 * owner can. With an ACL, the mode's group bits are the ACL's mask, and no named entry gets more
 * than the mask: so an ACL can give another user write only when the mode shows group write. That
 * is the one case read here (and the safety check reads it only when the group itself holds no one
 * else); every other file costs nothing. Node reads no extended attributes, so the ACL comes from
 * `getfacl` (Debian's acl package), found by absolute path; without it, `ls` (coreutils) says
 * whether a file has an ACL at all, and one that has is refused, since no one can tell what it
 * allows.
 */

/** A program of the system's, by absolute path in a folder no call writes, or undefined. */
function systemProgram(name: string): string | undefined {
  return [`/usr/bin/${name}`, `/bin/${name}`].find((path) => existsSync(path));
}

/** Who else may write a file or folder, by what its ACL says, in words ("the user nobody (uid 65534)"). */
export interface AclWriter {
  /** The path as the program printed it (escaped as it escapes names). */
  path: string;
  who: string;
}

/** What a check of ACLs found: writers, or why none could be told apart. */
export type AclFinding = { writers: AclWriter[] } | { unreadable: string };

/** Names for the ids an ACL names, and whether a group holds no account but ours. */
export interface AclNames {
  uid: number;
  userName(uid: number): string;
  groupName(gid: number): string;
  groupIsOnlyYours(gid: number): boolean;
}

/** What each file's ACL allows, by the inode's state: a long-lived host asks again at every load. */
const cache = new Map<string, AclFinding>();

function stampOf(path: string, info: Stats): string {
  // setfacl changes the ctime, as every change of the inode does.
  return `${path}\0${info.dev}:${info.ino}:${info.ctimeMs}`;
}

/** A name as getfacl prints it after "# file: ": backslash doubled, newline and carriage return in octal. */
function printedName(path: string): string {
  return path.replaceAll("\\", "\\\\").replaceAll("\n", "\\012").replaceAll("\r", "\\015");
}

/**
 * The other writers the access ACLs of `items` (each with the `lstat` it was judged by) name: one
 * program run for the files not seen before in their present state.
 */
export function aclWritersOf(items: ReadonlyArray<{ path: string; info: Stats }>, names: AclNames): AclFinding {
  const fresh = items.filter((item) => !cache.has(stampOf(item.path, item.info)));
  if (fresh.length > 0) {
    const found = findingsOf(fresh.map((item) => item.path), names);
    if (!(found instanceof Map)) return found;
    if (cache.size > 1024) cache.clear();
    for (const item of fresh) cache.set(stampOf(item.path, item.info), found.get(printedName(item.path)) ?? { writers: [] });
    // A printed name that is none of ours (an escaping not foreseen): its writers count all the same.
    const ours = new Set(fresh.map((item) => printedName(item.path)));
    const strays = [...found].filter(([path]) => !ours.has(path)).flatMap(([, finding]) => ("writers" in finding ? finding.writers : []));
    if (strays.length > 0) return { writers: strays };
  }
  const findings = items.map((item) => cache.get(stampOf(item.path, item.info)) ?? { writers: [] });
  const unreadable = findings.find((finding) => "unreadable" in finding);
  return unreadable ?? { writers: findings.flatMap((finding) => ("writers" in finding ? finding.writers : [])) };
}

/** Each printed name's finding (files without an ACL are not printed), or one finding for all when the program failed. */
function findingsOf(paths: string[], names: AclNames): Map<string, AclFinding> | AclFinding {
  const getfacl = systemProgram("getfacl");
  return getfacl !== undefined ? readAcls(getfacl, paths, names) : hasAcl(paths);
}

function run(program: string, args: string[]): { out: string } | { error: string } {
  try {
    return { out: execFileSync(program, args, { encoding: "utf8", timeout: 10_000, maxBuffer: 8 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] }) };
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").split("\n")[0];
    return { error: stderr || (error as Error).message };
  }
}

/** `getfacl -p -n -s`: absolute names, numeric ids, files with a base ACL only left out. */
function readAcls(getfacl: string, paths: string[], names: AclNames): Map<string, AclFinding> | AclFinding {
  const result = run(getfacl, ["-p", "-n", "-s", "--", ...paths]);
  if ("error" in result) return { unreadable: `${getfacl} could not read the ACL (${result.error})` };
  const found = new Map<string, AclFinding>();
  for (const block of result.out.split(/\n(?=# file: )/)) {
    const path = /^# file: (.*)$/m.exec(block)?.[1];
    if (path === undefined) continue;
    const entries = block.split("\n").filter((line) => line !== "" && !line.startsWith("#"));
    const mask = entries.find((line) => line.startsWith("mask::"))?.slice(6) ?? "rwx";
    const writers = entries.flatMap((entry) => {
      const who = otherWriter(entry, mask, names);
      return who === undefined ? [] : [{ path, who }];
    });
    found.set(path, { writers });
  }
  return found;
}

/** The account an ACL entry lets write, besides us, root and groups only ours; undefined for others. */
function otherWriter(entry: string, mask: string, names: AclNames): string | undefined {
  const [kind, id = "", perms = ""] = entry.split(":");
  if (!perms.includes("w") || !mask.includes("w") || id === "") return undefined;
  const number = Number(id);
  if (kind === "user" && number !== names.uid && number !== 0) return `the user ${names.userName(number)}`;
  if (kind === "group" && !names.groupIsOnlyYours(number)) return `the group ${names.groupName(number)}`;
  return undefined;
}

/** Without getfacl: `ls -ld` marks a file with an ACL by a `+` after its mode. */
function hasAcl(paths: string[]): Map<string, AclFinding> | AclFinding {
  const ls = systemProgram("ls");
  if (ls === undefined) return { unreadable: "neither getfacl nor ls is in /usr/bin or /bin" };
  const result = run(ls, ["-ldU", "--quoting-style=escape", "--", ...paths]);
  if ("error" in result) return { unreadable: `${ls} could not list it (${result.error})` };
  const marked = result.out.split("\n").filter((line) => /^\S{10}\+/.test(line));
  if (marked.length === 0) return new Map();
  return { unreadable: `it has an ACL, and toolhost cannot read ACLs here (getfacl, of the acl package, is not in /usr/bin or /bin)` };
}
