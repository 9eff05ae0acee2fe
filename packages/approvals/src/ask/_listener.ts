import { readFileSync } from "node:fs";

/*
 * Whether the page's port is listened on by one of this user's processes, before an ask (with the
 * token, the command, the diff) is sent there: a page that crashed leaves its file behind, and
 * another user may listen on its port by then, to read asks and answer them. Linux says who owns
 * each listening socket in /proc/net/tcp and tcp6 (its `uid` column); elsewhere this cannot be told,
 * and the page file's own checks (a file of this user, mode 600, a live pid) are all there is.
 */

const LISTEN = "0A";

/** `mine` when a listener on `port` belongs to this user, `foreign` when only others' do, `unknown` when /proc says nothing. */
export function listenerOwner(port: number): "mine" | "foreign" | "unknown" {
  const uid = process.getuid?.();
  if (uid === undefined) return "unknown";
  const owners: number[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "latin1");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1];
      if (local === undefined || fields[3] !== LISTEN) continue;
      if (Number.parseInt(local.slice(local.lastIndexOf(":") + 1), 16) === port) owners.push(Number(fields[7]));
    }
  }
  if (owners.length === 0) return "unknown";
  return owners.includes(uid) ? "mine" : "foreign";
}
