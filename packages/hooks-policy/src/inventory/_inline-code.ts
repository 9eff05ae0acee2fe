import type { KindRole } from "./_kinds.js";

/*
 * Code given in a command's arguments (issue 39: "code is code wherever it is given"): the options
 * of interpreters whose value is a program, and the options of the project's tools whose value
 * names code to load (a module, a plugin, an agent, a settings file that runs code).
 */

/** Interpreters and the options whose value is a program they run (`Rscript -e CODE`, `erl -eval CODE`). */
export const INLINE_CODE: ReadonlyArray<readonly [program: RegExp, options: readonly string[]]> = [
  [/^(python|pypy)[0-9.]*$/, ["-c"]],
  [/^i?python[0-9.]*$/, ["-c"]],
  [/^perl[0-9.]*$/, ["-e", "-E"]],
  [/^ruby[0-9.]*$/, ["-e"]],
  [/^(node|nodejs|bun|ts-node|tsx|esno|vite-node)$/, ["-e", "--eval", "-p", "--print"]],
  [/^php[0-9.]*$/, ["-r", "-B", "-R", "-E"]],
  [/^(lua|luajit)[0-9.]*$/, ["-e"]],
  [/^(Rscript|R)$/, ["-e", "--expr", "--expression"]],
  [/^julia$/, ["-e", "--eval", "-E", "--print"]],
  [/^osascript$/, ["-e"]],
  [/^(elixir|iex)$/, ["-e", "--eval", "--rpc-eval"]],
  [/^erl$/, ["-eval", "-s", "-run", "-S"]],
  // mix run -e / mix eval-style code, and latexmk's -e (Perl).
  [/^mix$/, ["-e", "--eval"]],
  [/^latexmk$/, ["-e"]],
  [/^(groovy|scala|kotlin|ghci|racket|swift|clojure|clj)$/, ["-e", "--eval", "-eval"]],
  [/^guile$/, ["-c"]],
  [/^(tclsh|wish)$/, ["-c"]],
];

/** Interpreters that run standard input (or `-`) as their program when no script is named. */
export const STDIN_CODE = /^((python|pypy|perl|ruby|php|lua|luajit)[0-9.]*|node|nodejs|bun|tclsh|wish|Rscript|R|julia|osascript|ts-node|tsx|deno|groovy|guile|elixir)$/;

/** `deno run npm:x`, `bun x`, `go run path@v`: a module named by a registry or an address, not a file of the project. */
export const FETCHED_MODULE = /^(npm|jsr|https?|git\+https?|git\+ssh|github|gh):|^[a-z0-9-]+(\.[a-z0-9-]+)+\/.*@|@(latest|v?[0-9][^/]*|master|main|[0-9a-f]{7,40})$/i;

/**
 * Variables that tell a runtime or a build tool where to load code, settings or tools from (or add
 * options that load them): harmless pointing into the workspace (`PYTHONPATH=src`), not the
 * project's code pointing elsewhere (`PYTHONPATH=/tmp/evil`, `JAVA_TOOL_OPTIONS=-javaagent:/x.jar`).
 */
export const CODE_VARIABLES =
  /^(PYTHONPATH|PYTHONHOME|PYTHONUSERBASE|PYTHONPYCACHEPREFIX|NODE_PATH|RUBYLIB|PERL5LIB|PERLLIB|CLASSPATH|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|JAVA_OPTS|MAVEN_OPTS|MAVEN_ARGS|GRADLE_OPTS|GRADLE_USER_HOME|DOTNET_STARTUP_HOOKS|DOTNET_ADDITIONAL_DEPS|GOFLAGS|GOPATH|GOROOT|GOTOOLCHAIN|CARGO_HOME|RUSTUP_HOME|RUSTFLAGS|RUSTDOCFLAGS|CARGO_TARGET_[A-Z0-9_]+_RUNNER|GEM_HOME|GEM_PATH|BUNDLE_GEMFILE|BUNDLE_PATH|COMPOSER_HOME|HOME|XDG_CONFIG_HOME|XDG_DATA_HOME|ZDOTDIR|GIT_DIR|GIT_CONFIG|KUBECONFIG|DOCKER_CONFIG|DOCKER_HOST|PIP_INDEX_URL|PIP_EXTRA_INDEX_URL|PIP_CONFIG_FILE|UV_INDEX_URL|npm_config_[A-Za-z_]+|NPM_CONFIG_[A-Z_]+|YARN_[A-Z_]+|PNPM_HOME|BUN_INSTALL|DENO_DIR|TS_NODE_[A-Z_]+|ESLINT_USE_FLAT_CONFIG|PYTEST_ADDOPTS|PYTEST_PLUGINS|TOX_[A-Z_]+|CMAKE_TOOLCHAIN_FILE|CFLAGS|CXXFLAGS|LDFLAGS|CPPFLAGS|MAKEFLAGS|MFLAGS)$/;

/** Values of those variables that are not places (`-W0`, `release`, `1`): a place is judged by where it is. */
export const SYSTEM_PLACES = /^\/(usr|bin|sbin|lib|lib32|lib64|opt\/homebrew|nix\/store)(\/|$)|^\/dev\/(null|stdout|stderr|tty)$|^\/proc\/self(\/|$)/;

/**
 * Subcommands that change the user's or the system's settings of a tool (its registry, its
 * editor, its credentials helper): by program, the words after it, `*` for any one word. Never the
 * project's build, trusted or not.
 */
export const SETTINGS_COMMANDS: Readonly<Record<string, readonly string[]>> = {
  npm: ["config set", "config delete", "config rm", "config edit", "config fix", "set", "c set", "c delete"],
  pnpm: ["config set", "config delete", "set"],
  yarn: ["config set", "config unset", "config delete", "set version", "set"],
  bun: ["pm trust"],
  pip: ["config set", "config unset", "config edit"],
  pip3: ["config set", "config unset", "config edit"],
  go: ["env -w", "env -u"],
  conda: ["config"],
  poetry: ["config", "source add"],
  rustup: ["default", "set", "override set"],
  gh: ["config set", "auth setup-git", "alias set"],
  gcloud: ["config set", "config unset", "config configurations activate", "auth activate-service-account"],
  kubectl: ["config set", "config set-context", "config set-cluster", "config set-credentials", "config use-context", "config use", "config delete-context"],
  az: ["config set", "account set"],
  aws: ["configure set", "configure"],
  docker: ["context use", "buildx use"],
  helm: ["repo add", "repo remove"],
  // ccache's own options come before a compiler's: -o / -M / -F set its configuration in the user's files.
  ccache: ["-o", "--set-config", "-M", "--max-size", "-F", "--max-files"],
};

/**
 * Options whose value is a command line the program runs, beside the rows' `program` clause: by
 * program, `OPTION` or `SUBCOMMAND:OPTION` (`git grep -O CMD`). The value is judged as a command,
 * at least ask unless it only reads.
 */
export const RUN_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  split: ["--filter"],
  git: ["archive:--exec", "grep:-O", "grep:--open-files-in-pager", "difftool:-x", "difftool:--extcmd", "send-email:--to-cmd", "send-email:--cc-cmd", "send-email:--sendmail-cmd", "clone:-u", "clone:--upload-pack", "fetch:--upload-pack", "pull:--upload-pack", "ls-remote:--upload-pack", "push:--receive-pack", "push:--exec", "filter-branch:--tree-filter", "filter-branch:--index-filter", "filter-branch:--msg-filter", "filter-branch:--env-filter", "filter-branch:--commit-filter", "filter-branch:--parent-filter", "filter-branch:--tag-name-filter", "filter-branch:--setup"],
  helm: ["--post-renderer"],
  rg: ["--hostname-bin"],
  tar: ["--checkpoint-action"],
  fzf: ["--preview"],
};

/**
 * Options whose value is the command a watcher or runner runs as its work, instead of its default
 * (`nodemon --exec 'npm run build'`, `chokidar -c CMD`, `tsc-watch --onSuccess CMD`): judged as a
 * command, as a runner's operands are, not asked as a setting.
 */
export const EXEC_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  nodemon: ["-x", "--exec"],
  chokidar: ["-c", "--command"],
  "tsc-watch": ["--onSuccess", "--onFailure", "--onFirstSuccess", "--onEmit", "--onEmitDebounced", "--onCompilationStarted", "--onCompilationComplete"],
};

/** Options that make a program change the system or reach other processes, whatever its row says (`date -s`, `dmesg --clear`, `strace -p`). */
export const SYSTEM_OPTIONS: Readonly<Record<string, { options: readonly string[]; kind: KindRole; what: string }>> = {
  date: { options: ["-s", "--set"], kind: { kind: "system", role: "privileges" }, what: "sets the system's clock" },
  dmesg: { options: ["-c", "--read-clear", "-C", "--clear", "-D", "--console-off", "-E", "--console-on", "-n", "--console-level"], kind: { kind: "system", role: "privileges" }, what: "clears or changes the kernel's log" },
  journalctl: { options: ["--vacuum-size", "--vacuum-time", "--vacuum-files", "--rotate", "--flush", "--relinquish-var", "--smart-relinquish-var", "--sync", "--setup-keys", "--update-catalog"], kind: { kind: "system", role: "services" }, what: "deletes or changes the system's journal" },
  strace: { options: ["-p", "--attach"], kind: { kind: "system", role: "processes" }, what: "attaches to another process and reads its memory" },
  ltrace: { options: ["-p"], kind: { kind: "system", role: "processes" }, what: "attaches to another process" },
  hwclock: { options: ["-w", "--systohc", "--set", "-s", "--hctosys", "--adjust"], kind: { kind: "system", role: "privileges" }, what: "sets a clock" },
};

/** Subcommands that leave something running or scheduled after the call: `git maintenance start` registers a timer. */
export const SCHEDULING_COMMANDS: Readonly<Record<string, readonly string[]>> = {
  git: ["maintenance start", "maintenance register"],
};
