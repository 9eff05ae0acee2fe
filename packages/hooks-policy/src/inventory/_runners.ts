/**
 * Programs that run another program given in their arguments, and how to find it. An option not
 * listed here makes the wrapper's command uncertain: the policy then asks at least, and judges both
 * readings (the next word as the option's value, and as the program).
 */
export interface WrapperSpec {
  /** Options that take a value, short (`-u`) or long (`--user`; `--user=x` works too). */
  values?: readonly string[];
  /** Options without a value. */
  flags?: readonly string[];
  /** Options whose value is a shell command line, parsed again. */
  commandString?: readonly string[];
  /** Options whose value is a file the program writes. */
  writes?: readonly string[];
  /** Options after which the program runs nothing (`command -v`). */
  noCommand?: readonly string[];
  /** Options that start an interactive shell when no command follows (`sudo -s`). */
  shell?: readonly string[];
  /** `-5` is an option (nice). */
  digitOptions?: boolean;
  /** `NAME=value` words may come before the program (env, sudo). */
  assignments?: boolean;
  /** Words between the options and the program (timeout's duration, chroot's new root). */
  operands?: number;
  /** With no program given, it starts a shell reading standard input (chroot, su). */
  shellWhenEmpty?: boolean;
  /** Judged as a command of its own too: it changes who or where the program runs (sudo, chroot). */
  own?: boolean;
  /** Runs its remaining words through `sh -c` joined by spaces (watch). */
  joinsToShell?: boolean;
  /** The option that makes it run the words directly instead (watch -x). */
  execOption?: string;
}

export const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  env: {
    values: ["-u", "--unset", "-C", "--chdir", "-P", "-a", "--argv0"],
    flags: ["-i", "--ignore-environment", "-0", "--null", "-v", "--debug", "-", "--default-signal", "--ignore-signal", "--block-signal", "--list-signal-handling"],
    commandString: ["-S", "--split-string"],
    assignments: true,
  },
  sudo: {
    values: ["-u", "--user", "-g", "--group", "-h", "--host", "-p", "--prompt", "-C", "--close-from", "-D", "--chdir", "-r", "--role", "-t", "--type", "-T", "--command-timeout", "-U", "--other-user", "-R", "--chroot"],
    flags: ["-A", "--askpass", "-b", "--background", "-E", "--preserve-env", "-H", "--set-home", "-K", "--remove-timestamp", "-k", "--reset-timestamp", "-n", "--non-interactive", "-P", "--preserve-groups", "-S", "--stdin", "-B", "--bell", "-N", "--no-update"],
    noCommand: ["-l", "--list", "-v", "--validate", "-V", "--version"],
    shell: ["-s", "--shell", "-i", "--login"],
    assignments: true,
    own: true,
  },
  doas: { values: ["-u", "-C"], flags: ["-n", "-L"], shell: ["-s"], own: true },
  su: {
    values: ["-g", "--group", "-G", "--supp-group", "-s", "--shell", "-w", "--whitelist-environment"],
    flags: ["-", "-l", "--login", "-m", "-p", "--preserve-environment", "-P", "--pty", "-f", "--fast"],
    commandString: ["-c", "--command", "--session-command"],
    operands: 1,
    shellWhenEmpty: true,
    own: true,
  },
  runuser: {
    values: ["-u", "--user", "-g", "--group", "-G", "--supp-group", "-s", "--shell", "-w", "--whitelist-environment"],
    flags: ["-", "-l", "--login", "-m", "-p", "--preserve-environment", "-P", "--pty", "-f", "--fast"],
    commandString: ["-c", "--command", "--session-command"],
    own: true,
  },
  chroot: { values: ["--userspec", "--groups"], flags: ["--skip-chdir"], operands: 1, shellWhenEmpty: true, own: true },
  timeout: {
    values: ["-s", "--signal", "-k", "--kill-after"],
    flags: ["--foreground", "--preserve-status", "-v", "--verbose", "-f", "-p"],
    operands: 1,
  },
  // GNU timeout as Homebrew's coreutils name it on macOS.
  gtimeout: {
    values: ["-s", "--signal", "-k", "--kill-after"],
    flags: ["--foreground", "--preserve-status", "-v", "--verbose", "-f", "-p"],
    operands: 1,
  },
  nice: { values: ["-n", "--adjustment"], digitOptions: true },
  nohup: {},
  time: {
    values: ["-f", "--format"],
    writes: ["-o", "--output"],
    flags: ["-a", "--append", "-p", "--portability", "-v", "--verbose", "-q", "--quiet"],
  },
  command: { flags: ["-p"], noCommand: ["-v", "-V"] },
  builtin: {},
  exec: { values: ["-a"], flags: ["-c", "-l"] },
  stdbuf: { values: ["-i", "--input", "-o", "--output", "-e", "--error"] },
  ionice: {
    values: ["-c", "--class", "-n", "--classdata", "-u", "--uid"],
    flags: ["-t", "--ignore"],
    noCommand: ["-p", "--pid", "-P", "--pgid"],
  },
  setsid: { flags: ["-c", "--ctty", "-f", "--fork", "-w", "--wait"] },
  taskset: { flags: ["-a", "--all-tasks", "-c", "--cpu-list"], noCommand: ["-p", "--pid"], operands: 1 },
  flock: {
    values: ["-w", "--timeout", "--wait", "-E", "--conflict-exit-code"],
    flags: ["-s", "--shared", "-x", "-e", "--exclusive", "-u", "--unlock", "-n", "--nb", "--nonblock", "-o", "--close", "-F", "--no-fork", "--verbose"],
    commandString: ["-c", "--command"],
    operands: 1,
  },
  watch: {
    values: ["-n", "--interval", "-q", "--equexit"],
    flags: ["-b", "--beep", "-c", "--color", "-C", "--no-color", "-d", "--differences", "-e", "--errexit", "-g", "--chgexit", "-p", "--precise", "-t", "--no-title", "-w", "--no-wrap", "-x", "--exec", "-r", "--no-rerun"],
    joinsToShell: true,
    execOption: "-x",
  },
  xargs: {
    values: ["-a", "--arg-file", "-d", "--delimiter", "-E", "--eof", "-I", "--replace", "-L", "--max-lines", "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var"],
    flags: ["-0", "--null", "-o", "--open-tty", "-p", "--interactive", "-r", "--no-run-if-empty", "-t", "--verbose", "-x", "--exit", "-e", "-i", "-l"],
  },
  strace: {
    values: ["-e", "-p", "-s", "-u", "-a", "-b", "-E", "-I", "-O", "-P", "-S", "-X"],
    writes: ["-o", "--output"],
    flags: ["-f", "-ff", "-c", "-C", "-d", "-D", "-F", "-h", "-i", "-k", "-q", "-qq", "-r", "-t", "-tt", "-ttt", "-T", "-v", "-V", "-w", "-x", "-xx", "-y", "-yy", "-z", "-Z"],
  },
  ltrace: { values: ["-e", "-p", "-s", "-u", "-a", "-A", "-D", "-F", "-L", "-n"], writes: ["-o", "--output"], flags: ["-f", "-c", "-C", "-i", "-r", "-S", "-t", "-tt", "-ttt", "-T", "-w", "-x"] },
  // valgrind's options that only choose its checks and report (no --db-command, --vgdb, sockets or debuginfo servers: those ask).
  valgrind: {
    values: ["--tool", "--leak-check", "--show-leak-kinds", "--show-reachable", "--show-possibly-lost", "--track-origins", "--error-exitcode", "--errors-for-leak-kinds", "--num-callers", "--trace-children", "--child-silent-after-fork", "--undef-value-errors", "--expensive-definedness-checks", "--max-stackframe", "--main-stacksize", "--smc-check", "--read-var-info", "--read-inline-info", "--gen-suppressions", "--suppressions", "--keep-debuginfo", "--leak-resolution", "--track-fds", "--time-stamp", "--demangle", "--max-threads", "--fair-sched", "--error-limit", "--exit-on-first-error", "--show-error-list", "--leak-check-heuristics", "--show-mismatched-frees"],
    writes: ["--log-file", "--xml-file", "--massif-out-file", "--callgrind-out-file", "--cachegrind-out-file"],
    flags: ["-q", "--quiet", "-v", "--verbose", "-s"],
  },
  unbuffer: { flags: ["-p"] },
  fakeroot: { values: ["-l", "--lib", "--faked", "-s", "-i"], flags: ["-u", "--unknown-is-real", "-b"] },
  torsocks: { values: ["-u", "-p", "-a", "-P"], flags: ["-i", "-d", "-q", "--shell"] },
  proxychains: { values: ["-f"], flags: ["-q"] },
  proxychains4: { values: ["-f"], flags: ["-q"] },
  firejail: {},
  catchsegv: {},
  chronic: { flags: ["-e", "-v"] },
  ifne: { flags: ["-n"] },
  unshare: {
    values: ["--propagation", "--setgroups", "-R", "--root", "-w", "--wd", "-S", "--setuid", "-G", "--setgid", "--map-user", "--map-group", "--map-users", "--map-groups", "-l", "--load-interp"],
    flags: ["-m", "--mount", "-u", "--uts", "-i", "--ipc", "-n", "--net", "-p", "--pid", "-U", "--user", "-C", "--cgroup", "-T", "--time", "-f", "--fork", "-r", "--map-root-user", "-c", "--map-current-user", "--mount-proc", "--kill-child", "--keep-caps", "--map-auto", "--mount-binfmt"],
    shellWhenEmpty: true,
    own: true,
  },
  nsenter: {
    values: ["-t", "--target", "-S", "--setuid", "-G", "--setgid", "--env"],
    flags: ["-a", "--all", "-m", "--mount", "-u", "--uts", "-i", "--ipc", "-n", "--net", "-p", "--pid", "-U", "--user", "-C", "--cgroup", "-T", "--time", "-r", "--root", "-w", "--wd", "-F", "--no-fork", "--preserve-credentials", "-Z", "--follow-context"],
    shellWhenEmpty: true,
    own: true,
  },
  "systemd-run": {
    values: ["--unit", "-u", "-p", "--property", "--description", "--slice", "--service-type", "--uid", "--gid", "--nice", "-E", "--setenv", "--working-directory", "--on-active", "--on-boot", "--on-startup", "--on-unit-active", "--on-unit-inactive", "--on-calendar", "--on-timezone-change", "--on-clock-change", "--timer-property", "--path-property", "--socket-property", "-H", "--host", "-M", "--machine", "--expand-environment"],
    flags: ["--scope", "--user", "--system", "-r", "--remain-after-exit", "--send-sighup", "-t", "--pty", "-P", "--pipe", "-q", "--quiet", "--wait", "-G", "--collect", "-d", "--same-dir", "--no-block", "--no-ask-password", "-S", "--shell", "--slice-inherit", "-v", "--verbose", "--json"],
    own: true,
  },
  parallel: {
    values: ["-j", "--jobs", "-P", "--max-procs", "-n", "--max-args", "-N", "--max-replace-args", "-a", "--arg-file", "-d", "--delimiter", "-I", "--colsep", "-C", "--halt", "--joblog", "--results", "--res", "--timeout", "--delay", "--retries", "--nice", "--tmpdir", "--load", "--memfree", "-E", "--eof", "--tag-string", "--block", "--block-size", "--sshdelay", "--workdir", "--wd", "--basefile", "--bf", "--transferfile", "--tf", "--return", "--cleanup", "-L", "--max-lines", "-l", "-s", "--max-chars", "--env", "--shebang-wrap"],
    flags: ["-k", "--keep-order", "-X", "-m", "-q", "--quote", "--dry-run", "--dryrun", "-0", "--null", "--bar", "--eta", "--progress", "--tag", "--line-buffer", "--lb", "--pipe", "--spreadstdin", "-v", "--verbose", "--will-cite", "--shuf", "-u", "--ungroup", "--group", "--files", "-r", "--no-run-if-empty", "-t", "--xargs", "--keep", "--silent", "--plus", "--citation", "--no-notice", "--trim", "--ctag", "--roundrobin", "--round-robin", "--halt-on-error", "-g", "--linebuffer"],
    noCommand: ["--version", "-V", "--help", "-h", "--number-of-cpus", "--number-of-cores", "--record-env"],
    shellWhenEmpty: true,
  },
  script: {
    values: ["-E", "--echo", "-m", "--logging-format"],
    flags: ["-a", "--append", "-e", "--return", "-f", "--flush", "-q", "--quiet", "--force"],
    commandString: ["-c", "--command"],
    writes: ["-T", "--log-timing", "-I", "--log-in", "-O", "--log-out", "-B", "--log-io"],
    shellWhenEmpty: true,
  },
  screen: {
    values: ["-S", "-t", "-c", "-e", "-h", "-p", "-T", "-s", "-Logfile"],
    flags: ["-d", "-m", "-D", "-R", "-r", "-L", "-x", "-U", "-a", "-A", "-O", "-q", "-i", "-l", "-ln", "-f", "-fn", "-fa"],
    noCommand: ["-ls", "-list", "-wipe", "-v"],
    shellWhenEmpty: true,
  },
};

/** Shells whose `-c` string is parsed again, and whose standard input is a script. */
export const SHELLS: ReadonlySet<string> = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "rbash", "fish", "busybox-sh"]);

/** Options of a shell that take a value. */
export const SHELL_VALUE_OPTIONS: ReadonlySet<string> = new Set(["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]);
