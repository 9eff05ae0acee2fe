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
