import { isInside } from "@toolhost/core";
import type { PathAnchors } from "./_paths.js";

/*
 * Paths by place (issue 39): outside the workspace, the places known to hold nothing private (the
 * system's programs and libraries, /etc less its secrets, the call's own /proc/self, the harmless
 * devices, the package managers' caches) are `public`; every other place (the rest of the home
 * folder, other users' homes, /root, /run, /var, /tmp, /mnt, /media, /srv, another process's
 * /proc, the other devices, a folder no list names) is `private`. Read rules with `place` judge by it.
 */

/** Where a path is, for the read rules with `place`. */
export type Place = "workspace" | "public" | "private";

/** Top folders of the system's programs and libraries. */
const SYSTEM = new Set(["usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "opt", "etc", "sys", "snap", "nix"]);

/** Names that hold secrets wherever they are, even in a public place (`/etc/ppp/chap-secrets`, `/opt/app/private/`, `/etc/krb5.keytab`). */
const SECRET_NAME = /secret|private|credential|password|shadow|token|keytab|\.key$|\.pem$|\.kdbx$|\.p12$|\.pfx$|\.jks$|^id_(rsa|dsa|ecdsa|ed25519)$|(?<!^)passwd|passwd(?!-?$)/i;

/** /etc's own secrets that no name says: service credentials, network keys, cluster configs. */
const ETC_PRIVATE =
  /^\/etc\/(shadow|gshadow|sudoers|ssh\/ssh_host_[^/]*_key$|ssl\/private|wireguard|NetworkManager\/system-connections|openvpn|letsencrypt|docker\/key\.json|kubernetes|rancher|k3s|gitlab-runner|netplan|wpa_supplicant|samba|mysql|postgresql|apt\/auth\.conf|containers\/auth\.json|cni|ipsec|strongswan|ldap|sssd|krb5|vault|consul|nomad|libvirt\/secrets|restic|borg|duplicity|msmtprc|fetchmail|davfs2\/secrets|cifs|smbcredentials|security\/opasswd|machine-id-secret|pki\/[^/]*\/private)(\/|$|[.-])/;

/** Devices that hold nothing private: what a command reads to discard, fill or number. */
const PUBLIC_DEVICES = /^\/dev\/(null|zero|full|random|urandom|tty|stdin|stdout|stderr|fd\/[0-2]|ptmx)$/;

/** /proc: the system's own files are public; another process's folder, and the call's own environment and memory, are not. */
const PROC_PRIVATE = /^\/proc\/(\d+|self\/(task\/\d+\/)?(environ|mem|auxv|pagemap)|thread-self\/(environ|mem|auxv|pagemap)|kcore|kmsg|kpage[a-z]*|sysrq-trigger|keys|key-users|\d+\/.*)(\/|$)/;

const OWN_PROC = new RegExp(`^/proc/${process.pid}(?=/|$)`);

/** The home folder's places that hold downloaded packages and toolchains, nothing the user wrote. */
const HOME_PUBLIC = [
  ".npm/_cacache",
  ".npm/_npx",
  ".npm/_logs",
  ".cache/pip",
  ".cache/pnpm",
  ".local/share/pnpm/store",
  ".cache/yarn",
  ".yarn/cache",
  ".yarn/berry/cache",
  ".bun/install/cache",
  ".cache/deno",
  ".deno/bin",
  ".cache/go-build",
  "go/pkg/mod",
  ".cargo/registry",
  ".cargo/git",
  ".cargo/bin",
  ".cargo/config.toml",
  ".cargo/config",
  ".rustup/toolchains",
  ".m2/repository",
  ".gradle/caches",
  ".gradle/wrapper/dists",
  ".ivy2/cache",
  ".cache/ms-playwright",
  ".cache/puppeteer",
  ".cache/node-gyp",
  ".nvm/versions",
  ".pyenv/versions",
  ".cache/pre-commit",
  ".cache/huggingface/hub",
  ".local/lib",
];

/** The place of an absolute, normalized path. */
export function placeOf(path: string, anchors: PathAnchors): Place {
  if (anchors.workspaces.some((workspace) => isInside(path, workspace))) return "workspace";
  const top = path.split("/")[1] ?? "";
  if (top === "dev") return PUBLIC_DEVICES.test(path) ? "public" : "private";
  // `/proc/self` as the policy's process resolves it is its own folder: judged as the call's own.
  if (top === "proc") return PROC_PRIVATE.test(path.replace(OWN_PROC, "/proc/self")) ? "private" : "public";
  for (const home of anchors.homes) {
    if (isInside(path, home)) return HOME_PUBLIC.some((place) => isInside(path, `${home}/${place}`)) && !secretNamed(path.slice(home.length)) ? "public" : "private";
  }
  if (!SYSTEM.has(top)) return "private";
  if (top === "etc" && ETC_PRIVATE.test(path)) return "private";
  if (top === "sys" && /^\/sys\/(firmware|kernel\/(security|debug))(\/|$)/.test(path)) return "private";
  if (/^\/usr\/local\/etc(\/|$)/.test(path) && ETC_PRIVATE.test(path.slice("/usr/local".length))) return "private";
  return secretNamed(path) ? "private" : "public";
}

function secretNamed(path: string): boolean {
  return path.split("/").some((segment) => segment !== "" && SECRET_NAME.test(segment));
}

/** Why a place is private, in words, for an explanation. */
export function privateWhy(path: string, anchors: PathAnchors): string {
  if (anchors.homes.some((home) => isInside(path, home))) return `${path} is in the home folder, outside the workspace`;
  return `${path} is outside the workspace, in a place that may hold what is private`;
}
