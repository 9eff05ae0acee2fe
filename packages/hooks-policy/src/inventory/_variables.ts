/** Variables that change which program a name runs, or run code themselves: setting one is at least ask. */
export const DANGEROUS_VARIABLES: ReadonlySet<string> = new Set([
  "PATH",
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "LD_AUDIT",
  "DYLD_INSERT_LIBRARIES",
  "DYLD_LIBRARY_PATH",
  "BASH_ENV",
  "ENV",
  "IFS",
  "PROMPT_COMMAND",
  "PS4",
  "SHELLOPTS",
  "BASHOPTS",
  "BASH_LOADABLES_PATH",
  "EXECIGNORE",
  // Where git finds its programs, templates and settings.
  "GIT_EXEC_PATH",
  "GIT_TEMPLATE_DIR",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "LESSOPEN",
  "LESSCLOSE",
  "PYTHONSTARTUP",
  "PERL5OPT",
  "RUBYOPT",
]);

/**
 * Variables whose value is a command line a program runs (a pager, an editor, a browser, an ssh
 * command, a compiler or its wrapper): the value is judged as a command, and setting one is at
 * least ask unless what it names only reads (`PAGER=cat`, `GIT_EDITOR=true`).
 */
export const PROGRAM_VARIABLES: ReadonlySet<string> = new Set([
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_PAGER",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "GIT_EXTERNAL_DIFF",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "GIT_PROXY_COMMAND",
  "PAGER",
  "MANPAGER",
  "SYSTEMD_PAGER",
  "EDITOR",
  "VISUAL",
  "FCEDIT",
  "BROWSER",
  "TERMINAL",
  "SHELL",
  "CC",
  "CXX",
  "CPP",
  "LD",
  "AR",
  "AS",
  "FC",
  "RUSTC",
  "RUSTC_WRAPPER",
  "RUSTC_WORKSPACE_WRAPPER",
  "CARGO_BUILD_RUSTC_WRAPPER",
  "CMAKE_C_COMPILER_LAUNCHER",
  "CMAKE_CXX_COMPILER_LAUNCHER",
  "CCACHE_PREFIX",
  "npm_config_script_shell",
  "NPM_CONFIG_SCRIPT_SHELL",
]);

/**
 * Whether a variable's value is a command line a program runs: the listed ones, and every
 * `…PAGER`, `…EDITOR`, `…VISUAL`, `…BROWSER`, `…ASKPASS`, `…_SSH_COMMAND`, `…_RSH` (`SYSTEMD_PAGER`,
 * `GH_PAGER`, `AWS_PAGER`, `KUBE_EDITOR`, `SUDO_ASKPASS`, `RSYNC_RSH`): tools name them so.
 */
export function programVariable(name: string): boolean {
  return PROGRAM_VARIABLES.has(name) || /(^|_)(PAGER|EDITOR|VISUAL|BROWSER|ASKPASS|SSH_COMMAND|RSH)$/.test(name) || /^[A-Z0-9]+(PAGER|EDITOR)$/.test(name);
}

/** `NODE_OPTIONS` words that run no code (memory, warnings, source maps): setting only these is harmless. */
export const HARMLESS_NODE_OPTIONS =
  /^--(max-old-space-size|max-semi-space-size|stack-size|enable-source-maps|no-warnings|no-deprecation|trace-warnings|trace-deprecation|unhandled-rejections|experimental-vm-modules|experimental-specifier-resolution|openssl-legacy-provider|dns-result-order|max-http-header-size|report-on-fatalerror|trace-uncaught|abort-on-uncaught-exception|preserve-symlinks|no-experimental-fetch|use-openssl-ca|use-bundled-ca)(=\S*)?$/;
