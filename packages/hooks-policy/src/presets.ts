import type { Decision, PolicyRule, PresetName } from "./options.js";

/** A preset: rules and the default they bring. Documented rule by rule in README.md. */
export interface Preset {
  default: Decision;
  rules: PolicyRule[];
}

/** Files that hold secrets: denied to every tool that declares it reads or writes them, and to commands that name them. */
const SECRETS: PolicyRule[] = [
  ".env",
  ".env.local",
  ".env.production",
  "*.pem",
  "*.key",
  "id_rsa",
  "id_ecdsa",
  "id_ed25519",
  ".netrc",
  ".pgpass",
  "~/.ssh/**",
  "~/.aws/**",
  "~/.gnupg/**",
  "~/.config/gcloud/**",
  "~/.kube/**",
  "~/.docker/config.json",
].map((path) => ({ tool: "*", path, decision: "deny" as const, reason: "it holds secrets" }));

/** Commands that only look: allowed by `readonly` and `workspace`. Command rules judge the commands any tool declares. */
const LOOKING = [
  "ls",
  "cat",
  "head",
  "tail",
  "wc",
  "grep",
  "rg",
  "pwd",
  "echo",
  "printf",
  "which",
  "file",
  "stat",
  "du",
  "df",
  "tree",
  "sort",
  "uniq",
  "cut",
  "diff",
  "true",
  "false",
  "test",
  "[",
  "basename",
  "dirname",
  "realpath",
  "date",
  "git status *",
  "git log *",
  "git diff *",
  "git show *",
  "git branch",
  "git rev-parse *",
  "git ls-files *",
  "git blame *",
].map((command) => ({ tool: "*", command, decision: "allow" as const }));

/** Commands that build and test a project: allowed by `workspace`. */
const BUILDING = [
  "npm run *",
  "npm test *",
  "npm ci",
  "pnpm run *",
  "pnpm test *",
  "pnpm build *",
  "pnpm install",
  "yarn run *",
  "yarn test *",
  "npx tsc *",
  "npx vitest *",
  "tsc",
  "make",
  "cargo build *",
  "cargo test *",
  "cargo check *",
  "go build *",
  "go test *",
  "go vet *",
  "pytest",
  "python -m pytest *",
  "mkdir",
  "touch",
  "cp",
  "mv",
  "git add *",
  "git commit *",
  "git checkout *",
  "git switch *",
  "git stash *",
  "git restore *",
].map((command) => ({ tool: "*", command, decision: "allow" as const }));

/** Commands that destroy or change much at once: asked by `recommended`. */
const DESTRUCTIVE: PolicyRule[] = [
  "rm",
  "rmdir",
  "shred",
  "dd",
  "mkfs*",
  "fdisk",
  "parted",
  "wipefs",
  "truncate",
  "chmod",
  "chown",
  "chgrp",
  "kill",
  "pkill",
  "killall",
  "shutdown",
  "reboot",
  "halt",
  "poweroff",
  "systemctl",
  "crontab",
  "sudo",
  "doas",
  "su",
  "git reset *",
  "git clean *",
  "git push *",
  "git rebase *",
  "git branch -D",
  "git checkout --force",
  "git checkout ** .",
  "git checkout -- **",
  "git switch --force",
  "git restore *",
  "git stash drop *",
  "git stash clear *",
  "find -delete",
  "docker rm *",
  "docker rmi *",
  "docker system prune *",
  "kubectl delete *",
  "npm publish *",
  "pnpm publish *",
].map((command) => ({ tool: "*", command, decision: "ask" as const, reason: "it can destroy work or change the system" }));

/** Commands that reach the network: asked by `recommended`. */
const NETWORK: PolicyRule[] = [
  "curl",
  "wget",
  "ssh",
  "scp",
  "sftp",
  "rsync",
  "nc",
  "ncat",
  "netcat",
  "socat",
  "telnet",
  "ftp",
  "git fetch *",
  "git pull *",
  "git clone *",
  "git remote *",
  "npm install *",
  "npm i *",
  "pnpm add *",
  "yarn add *",
  "pip install *",
  "pip3 install *",
  "docker pull *",
  "docker push *",
  "docker login *",
].map((command) => ({ tool: "*", command, decision: "ask" as const, reason: "it reaches the network" }));

/** Pushes that overwrite or delete what is on the remote, in every spelling: asked by `recommended`, with their own reason. */
const FORCE_PUSH: PolicyRule[] = ["git push --force", "git push --force-with-lease", "git push --force-if-includes", "git push --mirror", "git push --delete", "git push ** +* **", "git push ** :* **"].map(
  (command) => ({ tool: "*", command, decision: "ask" as const, reason: "it overwrites or deletes history on the remote" }),
);

/** Inline programs of interpreters (`python -c`, `node -e`, `perl -e`, awk running commands) can do anything: asked by `recommended`. */
const INLINE: PolicyRule[] = [{ tool: "*", inline: true, sandboxed: false, decision: "ask", reason: "it runs an inline program the policy cannot read" }];

/**
 * Calls that run confined (a sandbox: writes only inside the workspace, no network): what the
 * policy cannot read (an unknown command, a script, an inline program, a write to a path known
 * only at run time) is allowed instead of asked. The rules that ask or deny by name still do.
 */
const SANDBOXED: PolicyRule[] = [
  { tool: "*", sandboxed: true, decision: "allow", reason: "it runs in the sandbox: it can write only inside the workspace, and the network is off" },
];

const CATASTROPHIC: PolicyRule[] = ["rm ** / **", "rm ** /\\* **", "rm ** ~ **", "rm ** ~/ **", "rm ** ~/\\* **"].map((command) => ({
  tool: "*",
  command,
  decision: "deny" as const,
  reason: "it deletes the whole system or home folder",
}));

/** The presets `extends` can name. */
export const PRESETS: Readonly<Record<PresetName, Preset>> = Object.freeze({
  readonly: {
    default: "ask",
    rules: [
      // `read` and `write` are kinds of access here, not tools: every declared read, every declared write.
      { tool: "read", path: "${workspace}/**", decision: "allow" },
      { tool: "write", decision: "deny", reason: "the policy is read-only" },
      ...SECRETS,
      ...LOOKING,
    ],
  },
  workspace: {
    default: "ask",
    rules: [
      { tool: "*", path: "${workspace}/**", decision: "allow" },
      ...SECRETS,
      ...LOOKING,
      ...BUILDING,
      ...CATASTROPHIC,
    ],
  },
  recommended: {
    default: "ask",
    rules: [
      { tool: "*", path: "${workspace}/**", decision: "allow" },
      ...SECRETS,
      { tool: "*", command: "*", decision: "allow" },
      ...DESTRUCTIVE,
      ...FORCE_PUSH,
      ...NETWORK,
      ...INLINE,
      ...CATASTROPHIC,
      // Last, so that the ids of the rules above stay as they were.
      ...SANDBOXED,
    ],
  },
});
