import { lstatSync, readFileSync, realpathSync, type Stats } from "node:fs";
import { dirname, resolve } from "node:path";
import { aclWritersOf } from "./_acl.js";

// Whether a file is one only we (or root) can change, as git's safe.directory asks of a repository:
// a config or plugin that another user can write, or that sits in a folder another user can write
// (without the sticky bit), or that another user owns, or whose ACL lets another user write it,
// would let that user run code as us.

/**
 * Why toolhost must not read or run `path`, in words ("/p/toolhost.config.mjs is owned by nobody
 * (uid 65534), not by you (root) or root"), or undefined when it is safe: the file and every folder
 * above it are owned by this user or root, the file is writable by no one else, and no folder above
 * it is writable by another user unless it has the sticky bit (as `/tmp`). Checked along the path as
 * given (a link owned by another user is refused too) and along its real path. Group write counts
 * as another user's unless the group holds no account but ours (a user private group); then the
 * group bits may be a POSIX ACL's mask, and the ACL is read (`_acl.ts`): a named user or group it
 * lets write refuses the file. On systems without user ids (Windows) nothing is refused.
 */
export function unsafeFileReason(path: string): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const target = resolve(path);
  let real = target;
  try {
    real = realpathSync.native(target);
  } catch {
    // a missing file is reported by whoever reads it
  }
  const seen = new Set<string>();
  const withAcl: Checked[] = [];
  for (const start of real === target ? [target] : [target, real]) {
    for (let item = start; ; item = dirname(item)) {
      if (!seen.has(item)) {
        seen.add(item);
        const checked = problemOf(item, item === start ? undefined : start, uid);
        if (typeof checked === "string") return checked;
        if (checked !== undefined) withAcl.push(checked);
      }
      if (dirname(item) === item) break;
    }
  }
  return withAcl.length === 0 ? undefined : aclProblem(withAcl, uid);
}

/** A file or folder whose mode shows group write for a group only ours: its ACL's mask, perhaps, which only the ACL tells. */
interface Checked {
  path: string;
  what: string;
  info: Stats;
}

/** The other writers an ACL names among `items`, as the refusal says it, or undefined. */
function aclProblem(items: Checked[], uid: number): string | undefined {
  const finding = aclWritersOf(items, { uid, userName, groupName, groupIsOnlyYours: (gid) => groupIsOnlyYours(gid, uid) });
  if ("unreadable" in finding) {
    const first = items[0] as Checked;
    return `${first.what} can be written by its group (mode ${modeOf(first.info)}), which may be an ACL's mask, and ${finding.unreadable}; remove the group's write (chmod g-w) or the ACL (setfacl -b)`;
  }
  const writer = finding.writers[0];
  if (writer === undefined) return undefined;
  const what = items.find((item) => item.path === writer.path)?.what ?? writer.path;
  return `${what} can be written by ${writer.who}, which its ACL allows (getfacl shows it; setfacl -x or -b removes it)`;
}

function modeOf(info: Stats): string {
  return (info.mode & 0o7777).toString(8).padStart(3, "0");
}

function problemOf(item: string, below: string | undefined, uid: number): string | Checked | undefined {
  let info: Stats;
  try {
    info = lstatSync(item);
  } catch {
    return undefined;
  }
  const what = below === undefined ? item : `${item} (a folder above ${below})`;
  if (info.uid !== uid && info.uid !== 0) return `${what} is owned by ${userName(info.uid)}, not by you (${userName(uid).replace(/ \(uid \d+\)$/, "")}) or root`;
  // A link's own mode means nothing: its owner is checked above, its target on the real path.
  if (info.isSymbolicLink()) return undefined;
  const sticky = info.isDirectory() && (info.mode & 0o1000) !== 0;
  const mode = modeOf(info);
  if ((info.mode & 0o002) !== 0 && !sticky) return `${what} can be written by every user (mode ${mode})`;
  if ((info.mode & 0o020) === 0 || sticky) return undefined;
  if (!groupIsOnlyYours(info.gid, uid)) return `${what} can be written by the group ${groupName(info.gid)} (mode ${mode}), which holds other users`;
  // Group write of a group only ours: harmless, unless the bits are an ACL's mask that lets someone else write.
  return { path: item, what, info };
}

interface Account {
  name: string;
  uid: number;
  gid: number;
}

let accounts: Account[] | undefined;
let groups: Array<{ name: string; gid: number; members: string[] }> | undefined;

function readLines(file: string): string[][] {
  try {
    return readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line !== "" && !line.startsWith("#"))
      .map((line) => line.split(":"));
  } catch {
    return [];
  }
}

function accountList(): Account[] {
  accounts ??= readLines("/etc/passwd").map(([name = "", , uid = "", gid = ""]) => ({ name, uid: Number(uid), gid: Number(gid) }));
  return accounts;
}

function groupList(): Array<{ name: string; gid: number; members: string[] }> {
  groups ??= readLines("/etc/group").map(([name = "", , gid = "", members = ""]) => ({
    name,
    gid: Number(gid),
    members: members.split(",").filter((member) => member !== ""),
  }));
  return groups;
}

/** A user's name and id, as messages show it: `nobody (uid 65534)`, or `uid 1234` when /etc/passwd does not know it. */
export function userName(uid: number): string {
  const found = accountList().find((account) => account.uid === uid);
  return found ? `${found.name} (uid ${uid})` : `uid ${uid}`;
}

function groupName(gid: number): string {
  const found = groupList().find((group) => group.gid === gid);
  return found ? `${found.name} (gid ${gid})` : `gid ${gid}`;
}

/**
 * Whether a group holds no account but ours: no other account has it as its primary group, and
 * /etc/group lists no other member. Accounts only a directory service knows are not seen, so a
 * group that is not in /etc/group counts as shared.
 */
function groupIsOnlyYours(gid: number, uid: number): boolean {
  const group = groupList().find((each) => each.gid === gid);
  if (!group) return false;
  const me = accountList().find((account) => account.uid === uid)?.name;
  const othersPrimary = accountList().some((account) => account.gid === gid && account.uid !== uid);
  return !othersPrimary && group.members.every((member) => member === me);
}
