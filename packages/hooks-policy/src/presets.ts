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

/**
 * More secret stores (issue 33): every variant of env files, the credential files of common CLIs
 * (version control, package managers, clouds, code hosting, containers, clusters), the system's
 * password files and keys, processes' environments, key and certificate formats. Denied to read
 * and to write, like `SECRETS`; appended after the rules whose ids decisions name.
 */
const MORE_SECRETS: PolicyRule[] = [
  ".env.!(example|sample|template|dist|defaults|schema|test)",
  "*.env",
  ".envrc",
  "*.p12",
  "*.pfx",
  "*.jks",
  "*.keystore",
  "*.kdbx",
  "*.ppk",
  "id_dsa",
  ".git-credentials",
  "_netrc",
  ".pypirc",
  ".my.cnf",
  "~/.config/git/credentials",
  "~/.npmrc",
  "~/.yarnrc.yml",
  "~/.gem/credentials",
  "~/.cargo/credentials",
  "~/.cargo/credentials.toml",
  "~/.config/gh/hosts.yml",
  "~/.config/hub",
  "~/.config/glab-cli/config.yml",
  "~/.azure/**",
  "~/.oci/**",
  "~/.terraform.d/credentials.tfrc.json",
  "~/.config/doctl/**",
  "~/.vault-token",
  "~/.password-store/**",
  "~/.local/share/keyrings/**",
  "~/.config/op/**",
  "~/.s3cfg",
  "~/.boto",
  "~/.config/rclone/rclone.conf",
  "~/.m2/settings.xml",
  "~/.gradle/gradle.properties",
  "~/.config/containers/auth.json",
  "/etc/shadow",
  "/etc/shadow-",
  "/etc/gshadow",
  "/etc/gshadow-",
  "/etc/sudoers",
  "/etc/sudoers.d/**",
  "/etc/ssh/ssh_host_*_key",
  "/etc/ssl/private/**",
  "/proc/*/environ",
  "/proc/*/task/*/environ",
  "/proc/*/mem",
].map((path) => ({ tool: "*", path, decision: "deny" as const, reason: "it holds secrets" }));

/**
 * Code planted to run later, written by any tool: version-control hooks and settings, CI and
 * editor task files, direnv's file, shell start-up files, scheduled jobs and services. Asked.
 */
const PLANTED: PolicyRule[] = [
  "**/.git/hooks/**",
  "**/.git/config",
  "**/.githooks/**",
  "**/.husky/**",
  "**/.pre-commit-config.yaml",
  "**/.github/workflows/**",
  "**/.gitlab-ci.yml",
  "**/.vscode/tasks.json",
  "**/.vscode/settings.json",
  "**/.vscode/launch.json",
  "~/.bashrc",
  "~/.bash_profile",
  "~/.bash_login",
  "~/.bash_logout",
  "~/.profile",
  "~/.zshrc",
  "~/.zprofile",
  "~/.zshenv",
  "~/.zlogin",
  "~/.config/fish/**",
  "~/.gitconfig",
  "~/.config/git/**",
  "~/.config/autostart/**",
  "~/.config/systemd/**",
  "~/.local/share/systemd/**",
  "/etc/profile",
  "/etc/profile.d/**",
  "/etc/bash.bashrc",
  "/etc/cron*/**",
  "/etc/crontab",
  "/var/spool/cron/**",
  "/etc/systemd/**",
].map((path) => ({ tool: "write", path, decision: "ask" as const, reason: "it plants code that runs later (a hook, a start-up file, a task, a scheduled job)" }));

/**
 * The settings files of a project's tools that make its build load or run code from elsewhere
 * (issue 39: trust means the project's files): `.npmrc`'s `script-shell` / `node-options`,
 * `.yarnrc.yml`'s `yarnPath`, cargo's `rustc-wrapper`, maven's and gradle's JVM options. A write
 * asks, as planted code does: the next build runs what it says.
 */
const PLANTED_SETTINGS: PolicyRule[] = [
  "**/.npmrc",
  "**/.yarnrc",
  "**/.yarnrc.yml",
  "**/.pnpmfile.cjs",
  "**/.cargo/config",
  "**/.cargo/config.toml",
  "**/.mvn/jvm.config",
  "**/.mvn/maven.config",
  "**/.mvn/extensions.xml",
  "**/gradle.properties",
  "**/.bundle/config",
  "**/pip.conf",
].map((path) => ({ tool: "write", path, decision: "ask" as const, reason: "it sets how the project's tools run: the next build would load or run what it names" }));

/**
 * Programs by what the inventory says they are (issue 33): unconfined, only what toolhost
 * understands is allowed; confined (a minimal root with the network off or through the policy's
 * proxy, and limits), a program the sandbox bounds may run; what leaves the confinement asks.
 */
const BY_KIND: PolicyRule[] = [
  { tool: "*", kind: "build", sandboxed: false, trusted: false, decision: "ask", reason: "it runs the repository's own code; trust the workspace, or run it in the sandbox" },
  { tool: "*", kind: ["interpreter", "shell", "editor", "debugger"], sandboxed: false, decision: "ask", reason: "it runs code the policy cannot read" },
  { tool: "*", kind: "network", sandboxed: false, decision: "ask", reason: "it reaches the network" },
  { tool: "*", kind: ["uploader", "tunnel", "publisher"], decision: "ask", reason: "it sends data off the machine or opens it to others" },
  { tool: "*", kind: "installs", sandboxed: false, decision: "ask", reason: "it installs or fetches packages, and runs their code" },
  { tool: "*", kind: "system", decision: "ask", reason: "it changes the system outside the workspace, or reads a secret store" },
  { tool: "*", kind: "destroys", decision: "ask", reason: "it can destroy what is outside the workspace" },
  { tool: "*", kind: "unknown", sandboxed: false, decision: "ask", reason: "toolhost does not know this program" },
];

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

/**
 * What the inventory finds is not the project's own build however a command rule names it (issue
 * 39): a build told to load code from outside the workspace (`make -C /tmp/x`, `npm test --prefix
 * /tmp/x`), code fetched by name (`npx pkg` the project does not have), the user's settings.
 */
const NOT_THE_PROJECTS: PolicyRule[] = [
  { tool: "*", kind: ["interpreter", "fetch-run", "settings"], decision: "ask", reason: "it runs code that is not the project's own (from outside the workspace, or fetched by name) or changes the user's settings" },
];

/** Commands that destroy or change much at once: asked by `recommended`. */
const DESTRUCTIVE: PolicyRule[] = [
  "rm",
  "rmdir",
  "shred",
  // A dd into a device; its other writes are judged by their paths (`dd of=sub/blank.img` is a workspace file).
  "dd ** of=/dev/* **",
  "mkfs*",
  "fdisk",
  "parted",
  "wipefs",
  // Issue 39: a workspace's own edits (`chmod +x`, `truncate -s 0`) are judged by their paths; a set-ID bit still asks.
  "truncate ** /dev/*",
  "chmod *+*s* **",
  "chown",
  "chgrp",
  "kill",
  "pkill",
  "killall",
  "shutdown",
  "reboot",
  "halt",
  "poweroff",
  // Issue 39: systemctl and crontab are the inventory's: their reads (status, is-active, list-timers, crontab -l) read, the rest asks as the system's services and schedules; on another host systemctl reaches that host, and another user's crontab is theirs (these two keep the rules' places, so rule ids stay as they were).
  "systemctl --host=*",
  "crontab -u *",
  "sudo",
  "doas",
  "su",
  // Issue 39: git's other spellings that discard work are the inventory's (kind `discards`); these name the plain ones.
  "git reset --hard",
  "git worktree remove *",
  "git push *",
  "git update-ref -d",
  "git branch -D",
  "git checkout --force",
  "git checkout ** .",
  "git checkout -- **",
  "git switch --force",
  "git restore --worktree",
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
  // A local rsync is a copy (judged by its paths); to or from a host it reaches the network.
  "rsync ** *:* **",
  "nc",
  "ncat",
  "netcat",
  "socat",
  "telnet",
  "ftp",
  "git fetch *",
  "git pull *",
  "git clone *",
  "git remote update *",
  "npm install *",
  "npm i *",
  "pnpm add *",
  "yarn add *",
  "pip install *",
  "pip3 install *",
  "docker pull *",
  "docker push *",
  "docker login *",
].map((command) => ({ tool: "*", command, sandboxed: false, decision: "ask" as const, reason: "it reaches the network" }));

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
  { tool: "*", sandboxed: true, decision: "allow", reason: "it runs in the sandbox: it can write only inside the workspace, and its network is off or judged connection by connection" },
];

/**
 * Control files (core's list: toolhost's configs and `.toolhost/`, the agent hosts' settings and
 * MCP configs, git's hooks and config, `.envrc`, shell start-up files, CI workflows): a write by any
 * tool, a redirect or a program asks, whatever the workspace's trust and a confinement allow,
 * since what is written there decides later calls or runs later outside any sandbox.
 */
const CONTROL: PolicyRule[] = [
  { tool: "write", control: true, decision: "ask", reason: "it changes a control file: what decides later calls, or what another program runs later outside any sandbox" },
];

const CATASTROPHIC: PolicyRule[] = ["rm ** / **", "rm ** /\\* **", "rm ** ~ **", "rm ** ~/ **", "rm ** ~/\\* **"].map((command) => ({
  tool: "*",
  command,
  decision: "deny" as const,
  reason: "it deletes the whole system or home folder",
}));

/** Deleting the root or the home folder by `find`, and by `rm` through the spellings the policy folds (`//`, `/.`, `$HOME`, `cd /` first). */
const MORE_CATASTROPHIC: PolicyRule[] = ["find ** / ** -delete", "find ** ~ ** -delete", "find ** /\\* ** -delete", "find ** ~/\\* ** -delete"].map((command) => ({
  tool: "*",
  command,
  decision: "deny" as const,
  reason: "it deletes the whole system or home folder",
}));

/**
 * Where a confined call's connections do not go (issue 37): this machine's own services (loopback,
 * and its own addresses), link-local addresses (a cloud's metadata service, 169.254.169.254) and
 * private networks, whatever name led there: the proxy asks about each address a name resolves
 * to. A registry by its public name is not one; a rule of the user's that names the address
 * (`{ host: "10.0.0.5", decision: allow }`, `{ address: "10.1.0.0/16", ... }`) allows it.
 */
const LOCAL_ADDRESSES: PolicyRule[] = [
  {
    tool: "*",
    address: ["loopback", "link-local", "private"],
    sandboxed: true,
    decision: "deny",
    reason: "it reaches this machine's own services or a private network; a rule that names the address allows it",
  },
];

/**
 * Reads outside the workspace by place (issue 39), not by a list of secrets: the places known to
 * hold nothing private are read silently; every other place asks unconfined (a confined call does
 * not see them: its root shows the system's folders and the workspace).
 */
const PLACES: PolicyRule[] = [
  { tool: "read", place: "private", sandboxed: false, decision: "ask", reason: "it reads outside the workspace, in a place that may hold what is private (the home folder, other users' files, /root, /run, /var, /tmp); a rule naming the path allows it" },
  { tool: "read", place: "public", decision: "allow", reason: "it reads a place outside the workspace that holds nothing private (the system's programs and libraries, /etc less its secrets, the package managers' caches)" },
];

/**
 * Secret stores by name that a workspace holds (issue 39): infrastructure state with its resources'
 * passwords, local secrets of frameworks, service-account and OAuth client keys. Denied like `SECRETS`.
 */
const WORKSPACE_SECRETS: PolicyRule[] = [
  "*.tfstate",
  "*.tfstate.backup",
  ".dev.vars",
  "secrets.toml",
  "credentials.json",
  ".htpasswd",
  "*.keytab",
].map((path) => ({ tool: "*", path, decision: "deny" as const, reason: "it holds secrets" }));

/**
 * dd reading a disk or the machine's memory (its other reads and writes are judged by their paths):
 * asked, confined too, as dd of a device is.
 */
const RAW_DEVICES: PolicyRule[] = ["sd*", "hd*", "vd*", "xvd*", "nvme*", "mmcblk*", "disk*", "rdisk*", "mapper/*", "dm-*", "md*", "loop*", "sr*", "mtd*", "mem", "kmem", "port"].map((device) => ({
  tool: "*",
  command: `dd ** if=/dev/${device} **`,
  decision: "ask" as const,
  reason: "it reads a disk or the machine's memory",
}));

/**
 * What discards uncommitted changes or history (issue 39): git's `checkout` with paths or `-f`,
 * `restore` of the working tree, `reset --hard`, `clean` without `-n`, `worktree remove`,
 * `reflog expire`, `gc --prune=now`, in every spelling the inventory reads. A write, so `workspace` allows it.
 */
const DISCARDING: PolicyRule[] = [
  { tool: "*", kind: "discards", decision: "ask", reason: "it discards uncommitted changes or history that git may not bring back" },
];

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
      { tool: "*", kind: "read-only", decision: "allow" },
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
      { tool: "*", kind: ["read-only", "writes", "runner"], decision: "allow" },
      ...MORE_CATASTROPHIC,
      // Issue 39: the build and test commands above run the project's files; one told to load code from outside the workspace, fetch it by name or change the user's settings is not the project's build.
      ...NOT_THE_PROJECTS,
    ],
  },
  recommended: {
    default: "ask",
    rules: [
      { tool: "*", path: "${workspace}/**", decision: "allow" },
      ...SECRETS,
      // What toolhost understands (the inventory's kinds); everything else is judged by BY_KIND below.
      { tool: "*", kind: ["read-only", "writes", "runner", "build"], decision: "allow" },
      ...DESTRUCTIVE,
      ...FORCE_PUSH,
      ...NETWORK,
      ...INLINE,
      ...CATASTROPHIC,
      // After the rules above, so that their ids stay as they were.
      ...SANDBOXED,
      ...BY_KIND,
      ...MORE_CATASTROPHIC,
      ...MORE_SECRETS,
      ...PLANTED,
      ...LOCAL_ADDRESSES,
      ...CONTROL,
      ...PLACES,
      ...WORKSPACE_SECRETS,
      ...PLANTED_SETTINGS,
      ...RAW_DEVICES,
      ...DISCARDING,
    ],
  },
});
