import { lstatSync, readlinkSync, statSync } from "node:fs";
import { walkFolders } from "./_walk.js";

/** The folders of the system a program needs, as the minimal root shows them: read-only, at their own paths. */
export const SYSTEM_FOLDERS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"] as const;

/**
 * Files under /etc that hold secrets whatever their mode: password hashes, host keys, private TLS
 * keys, credentials of system services. Everything under /etc that others may not read is covered
 * too (the system's own word that it is private).
 */
const SECRET_NAMES: readonly RegExp[] = [
  /^\/etc\/g?shadow-?$/,
  /^\/etc\/ssh\/ssh_host_[^/]*_key$/,
  /^\/etc\/ssl\/private$/,
  /^\/etc\/pki\/[^/]+\/private$/,
  /^\/etc\/sudoers(\.d)?$/,
  /^\/etc\/krb5\.keytab$/,
  /^\/etc\/security\/opasswd$/,
  /^\/etc\/ipsec\.secrets$/,
  /^\/etc\/ppp\/[^/]*-secrets$/,
  /^\/etc\/wireguard$/,
  /^\/etc\/NetworkManager\/system-connections$/,
  /^\/etc\/letsencrypt\/(archive|keys)$/,
  /^\/etc\/credstore(\.encrypted)?$/,
];

/** A walk of /etc stops here: what it has not seen by then is not covered (the details say so). */
const MAX_ENTRIES = 50_000;

/** What the minimal root shows of the system: the mounts, the folders they make readable, and the secrets they cover. */
export interface SystemView {
  /** bwrap's arguments: each system folder read-only, or a symlink where the host has one (`/bin -> usr/bin`). */
  args: string[];
  /** The host folders readable through them. */
  readable: string[];
  /** Paths under /etc to cover with an empty file or folder. */
  secrets: string[];
}

let view: SystemView | undefined;

/** The system view, made once per process (/etc is walked once: about 1,000 entries on a Debian system). */
export function systemView(): SystemView {
  view ??= makeView();
  return view;
}

function makeView(): SystemView {
  const args: string[] = [];
  const readable: string[] = [];
  for (const folder of SYSTEM_FOLDERS) {
    const stat = lstatSync(folder, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isSymbolicLink()) args.push("--symlink", readlinkSync(folder), folder);
    else if (stat.isDirectory()) {
      args.push("--ro-bind", folder, folder);
      readable.push(folder);
    }
  }
  return { args, readable, secrets: readable.includes("/etc") ? etcSecrets() : [] };
}

/** Entries under /etc others may not read (or enter), and those named secret; a covered folder is not entered. */
function etcSecrets(): string[] {
  const secrets: string[] = [];
  walkFolders(["/etc"], MAX_ENTRIES, (path, entry) => {
    if (!entry.isFile() && !entry.isDirectory()) return false;
    if (!isSecret(path, entry.isDirectory())) return entry.isDirectory();
    secrets.push(path);
    return false;
  });
  return secrets;
}

function isSecret(path: string, folder: boolean): boolean {
  if (SECRET_NAMES.some((pattern) => pattern.test(path))) return true;
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return true;
  }
  const othersRead = (mode & 0o004) !== 0;
  return folder ? !othersRead || (mode & 0o001) === 0 : !othersRead;
}
