/*
 * What a program is, for the policy: one of eight kinds, refined by a role. The inventory
 * (`_programs.ts`) gives every program it knows a kind; rules match kinds and roles (`kind:`).
 */

/** The kinds of program, from the most harmless to the most dangerous. */
export const KINDS = ["read-only", "writes", "runner", "runs-code", "network", "installs", "system", "destroys"] as const;

/** What a program does: reads only, writes the paths it is given, runs its arguments, runs code, reaches the network, installs packages, changes the system (or reads a secret store), destroys. */
export type ProgramKind = (typeof KINDS)[number];

/** The kind of a program the inventory does not know (a rule's `kind:` can name it). */
export const UNKNOWN = "unknown";

/** Roles refine a kind; a rule's `kind:` may name a role instead of its kind. */
export const ROLES: Readonly<Record<string, ProgramKind>> = {
  pager: "read-only",
  remote: "read-only",
  discards: "writes",
  wrapper: "runner",
  interpreter: "runs-code",
  shell: "runs-code",
  build: "runs-code",
  editor: "runs-code",
  debugger: "runs-code",
  client: "network",
  server: "network",
  uploader: "network",
  tunnel: "network",
  publisher: "network",
  installer: "installs",
  "fetch-run": "installs",
  privileges: "system",
  services: "system",
  scheduler: "system",
  containers: "system",
  cluster: "system",
  cloud: "system",
  packages: "system",
  processes: "system",
  secrets: "system",
  settings: "system",
  host: "destroys",
  infrastructure: "destroys",
};

/** How a kind reads in an explanation: `grep reads only`. */
export const KIND_WORDS: Readonly<Record<ProgramKind | typeof UNKNOWN, string>> = {
  "read-only": "reads only",
  writes: "writes the paths it is given",
  runner: "runs the command in its arguments",
  "runs-code": "runs code",
  network: "reaches the network",
  installs: "installs or fetches packages and runs their code",
  system: "changes the system",
  destroys: "destroys",
  unknown: "is not in the inventory",
};

/** How a role reads in an explanation: `(an interpreter)`. */
export const ROLE_WORDS: Readonly<Record<string, string>> = {
  pager: "a pager with a command language",
  remote: "it asks a service over the network and changes nothing there",
  discards: "it discards uncommitted changes or history that git may not bring back",
  wrapper: "a wrapper",
  interpreter: "an interpreter",
  shell: "a shell",
  build: "the project's build, tests or scripts",
  editor: "an editor with a command language",
  debugger: "a debugger",
  client: "a client",
  server: "a server",
  uploader: "it sends data off the machine",
  tunnel: "a tunnel",
  publisher: "it publishes",
  installer: "an installer",
  "fetch-run": "it fetches a package and runs it",
  privileges: "privileges",
  services: "services",
  scheduler: "it runs commands later",
  containers: "containers",
  cluster: "a cluster",
  cloud: "a cloud",
  packages: "the system's packages",
  processes: "other processes",
  secrets: "a secret store",
  settings: "the user's or the system's settings of a tool",
  host: "the host through a container",
  infrastructure: "infrastructure",
};

const SEVERITY: Readonly<Record<string, number>> = {
  "read-only": 0,
  writes: 1,
  runner: 2,
  "runs-code": 3,
  unknown: 3.5,
  network: 4,
  installs: 5,
  system: 6,
  destroys: 7,
};

/** A kind and its role, as the inventory gives them. */
export interface KindRole {
  kind: ProgramKind | typeof UNKNOWN;
  role?: string;
}

/** Roles that send data out or open the machine: asked about even in a sandbox. */
const OUTWARD_ROLES = new Set(["uploader", "tunnel", "publisher"]);

/** The more dangerous of two kinds (outward network roles above the other network ones). */
export function graver(a: KindRole, b: KindRole): KindRole {
  const rank = (each: KindRole) => (SEVERITY[each.kind] ?? 3.5) + (each.role !== undefined && OUTWARD_ROLES.has(each.role) ? 0.5 : 0);
  return rank(b) > rank(a) ? b : a;
}

/** `read-only`, `network:uploader`: a kind and its role as written. */
export function kindText(kind: KindRole): string {
  return kind.role ? `${kind.kind}:${kind.role}` : kind.kind;
}

/** Reads `kind` or `kind:role` (and `unknown` when `unknown` is allowed); undefined when it names no kind (or a role of another kind). */
export function parseKind(text: string, unknown = false): KindRole | undefined {
  if (unknown && text === UNKNOWN) return { kind: UNKNOWN };
  const [kind, role, extra] = text.split(":");
  if (extra !== undefined || !(KINDS as readonly string[]).includes(kind ?? "")) return undefined;
  if (role === undefined) return { kind: kind as ProgramKind };
  return ROLES[role] === kind ? { kind: kind as ProgramKind, role } : undefined;
}

/** Whether a rule's `kind:` entry (a kind, a role, `kind:role` or `unknown`) names this kind. */
export function kindMatches(entry: string, kind: KindRole): boolean {
  if (entry === kind.kind) return true;
  if (entry === kind.role) return true;
  return kind.role !== undefined && entry === `${kind.kind}:${kind.role}`;
}

/** Every word a rule's `kind:` may hold. */
export function kindNames(): string[] {
  return [...KINDS, UNKNOWN, ...Object.keys(ROLES)];
}
