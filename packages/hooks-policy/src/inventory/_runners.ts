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
  /** Its options may come after its operand too (`setarch ARCH -R prog`). */
  optionsAfterOperands?: boolean;
}

/** A subcommand that runs a command given after its options and operands (`docker exec C CMD`), or only after `--` (`kubectl run P -- CMD`). */
export interface SubWrapperSpec extends WrapperSpec {
  /** The command is the words after `--` (and after an option of `commandAfter`). */
  afterDash?: boolean;
  /** Options after which the remaining words are the command (`nix develop -c CMD ARGS`). */
  commandAfter?: readonly string[];
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
  pkexec: { values: ["--user", "-u"], flags: ["--disable-internal-agent", "--keep-cwd"], noCommand: ["--version", "--help"], shellWhenEmpty: true, own: true },
  // `sg GROUP -c 'CMD'` and `sg GROUP CMD`: the command goes to /bin/sh -c.
  sg: { flags: ["-"], operands: 1, shellWhenEmpty: true, own: true },
  newgrp: { flags: ["-"], operands: 1, shellWhenEmpty: true, own: true },
  run0: {
    values: ["-u", "--user", "-g", "--group", "--nice", "-D", "--chdir", "--setenv", "--unit", "-p", "--property", "--description", "--slice", "--machine", "--background", "--pty-late"],
    flags: ["--no-ask-password", "--via-shell", "-i", "--empty", "--pty", "--pipe"],
    shellWhenEmpty: true,
    own: true,
  },
  please: { values: ["-u", "--user", "-d", "--dir", "-t", "--target", "-a", "--allowenv"], flags: ["-n", "--noprompt", "-w", "--warm", "-p", "--purge"], noCommand: ["-l", "--list", "-h", "--help"], own: true },
  gosu: { operands: 1, own: true },
  "su-exec": { operands: 1, own: true },
  "s6-setuidgid": { operands: 1, own: true },
  setuidgid: { operands: 1, own: true },
  "flatpak-spawn": { values: ["--directory", "--env", "--unset-env", "--forward-fd", "--app-path", "--usr-path"], flags: ["--host", "--clear-env", "--watch-bus", "--expose-pids", "--share-pids", "--latest-version", "--no-network", "--sandbox", "--sandbox-a11y-own-name", "-v", "--verbose"], own: true },
  "host-spawn": { flags: ["-no-pty", "-pty", "-v"], own: true },
  setpriv: {
    values: ["--reuid", "--regid", "--ruid", "--rgid", "--euid", "--egid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set", "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule"],
    flags: ["--clear-groups", "--init-groups", "--keep-groups", "--no-new-privs", "--nnp", "--reset-env"],
    noCommand: ["-d", "--dump", "--list-caps"],
    own: true,
  },
  chpst: { values: ["-u", "-U", "-b", "-e", "-/", "-n", "-l", "-L", "-m", "-d", "-o", "-p", "-f", "-c", "-r", "-t"], flags: ["-P", "-0", "-1", "-2", "-v"], own: true },
  runcon: { values: ["-u", "--user", "-r", "--role", "-t", "--type", "-l", "--range"], flags: ["-c", "--compute"], own: true },
  chrt: { values: ["-T", "--sched-runtime", "-P", "--sched-period", "-D", "--sched-deadline"], flags: ["-a", "--all-tasks", "-b", "--batch", "-d", "--deadline", "-e", "--ext", "-f", "--fifo", "-i", "--idle", "-o", "--other", "-r", "--rr", "-R", "--reset-on-fork", "-v", "--verbose", "-m", "--max"], noCommand: ["-p", "--pid"], operands: 1 },
  numactl: {
    values: ["-i", "--interleave", "-w", "--weighted-interleave", "-p", "--preferred", "-P", "--preferred-many", "-m", "--membind", "-N", "--cpunodebind", "-C", "--physcpubind", "-b", "--balancing"],
    flags: ["-l", "--localalloc", "-a", "--all"],
    noCommand: ["-s", "--show", "-H", "--hardware"],
  },
  cgexec: { values: ["-g"], flags: ["--sticky", "-b"] },
  "systemd-inhibit": { values: ["--what", "--who", "--why", "--mode"], flags: ["--no-pager", "--no-legend"], noCommand: ["--list"] },
  caffeinate: { values: ["-t", "-w"], flags: ["-d", "-i", "-m", "-s", "-u"] },
  eatmydata: {},
  nocache: { values: ["-n"] },
  trickle: { values: ["-u", "-d", "-w", "-t", "-l", "-n"], flags: ["-s", "-v", "-V"] },
  faketime: { values: ["-p"], flags: ["-m", "-f", "--exclude-monotonic"], operands: 1 },
  "xvfb-run": {
    values: ["-n", "--server-num", "-e", "--error-file", "-f", "--auth-file", "-p", "--xauth-protocol", "-s", "--server-args", "-w", "--wait"],
    flags: ["-a", "--auto-servernum", "-l", "--listen-tcp"],
  },
  "dbus-run-session": { values: ["--config-file", "--dbus-daemon"] },
  tini: { values: ["-e", "-p"], flags: ["-s", "-v", "-vv", "-vvv", "-g", "-l", "-w"] },
  "dumb-init": { values: ["-r", "--rewrite"], flags: ["-c", "--single-child", "-v", "--verbose"] },
  "sandbox-exec": { values: ["-f", "-p", "-n", "-D"] },
  sshpass: { values: ["-p", "-f", "-d", "-P"], flags: ["-e", "-v"] },
  // macOS `arch -x86_64 CMD`; with no command it prints the machine's architecture.
  arch: { values: ["-arch", "-e", "-d"], flags: ["-32", "-64", "-arm64", "-arm64e", "-i386", "-x86_64", "-x86_64h", "-c", "-h"], noCommand: ["--help", "--version"] },
  setarch: {
    flags: ["-R", "--addr-no-randomize", "-F", "--fdpic-funcptrs", "-Z", "--mmap-page-zero", "-L", "--addr-compat-layout", "-X", "--read-implies-exec", "-B", "--32bit", "-I", "--short-inode", "-S", "--whole-seconds", "-T", "--sticky-timeouts", "-3", "--3gb", "--4gb", "--uname-2.6", "-v", "--verbose"],
    noCommand: ["--list", "--help", "--version"],
    operands: 1,
    optionsAfterOperands: true,
    shellWhenEmpty: true,
  },
  // Slurm and other batch systems: `--wrap` is a command line; a script operand is code the policy cannot read.
  sbatch: {
    values: ["-A", "--account", "-J", "--job-name", "-p", "--partition", "-t", "--time", "-N", "--nodes", "-n", "--ntasks", "-c", "--cpus-per-task", "--mem", "--mem-per-cpu", "-G", "--gpus", "--gres", "-o", "--output", "-e", "--error", "-a", "--array", "-d", "--dependency", "-q", "--qos", "-C", "--constraint", "-D", "--chdir", "--export", "--mail-type", "--mail-user", "-w", "--nodelist", "-x", "--exclude", "--begin", "--ntasks-per-node", "--gpus-per-node", "-i", "--input", "--comment", "--reservation", "--signal"],
    flags: ["--exclusive", "-H", "--hold", "-W", "--wait", "--parsable", "-Q", "--quiet", "-v", "--verbose", "--requeue", "--no-requeue", "-k", "--no-kill", "-O", "--overcommit"],
    commandString: ["--wrap"],
    noCommand: ["--help", "--usage", "-V", "--version"],
    shellWhenEmpty: true,
    own: true,
  },
  srun: {
    values: ["-A", "--account", "-J", "--job-name", "-p", "--partition", "-t", "--time", "-N", "--nodes", "-n", "--ntasks", "-c", "--cpus-per-task", "--mem", "--mem-per-cpu", "-G", "--gpus", "--gres", "-o", "--output", "-e", "--error", "-q", "--qos", "-C", "--constraint", "-D", "--chdir", "--export", "-w", "--nodelist", "-x", "--exclude", "--ntasks-per-node", "--gpus-per-node", "-i", "--input", "--jobid", "--mpi", "--cpu-bind", "--reservation", "--signal"],
    flags: ["--exclusive", "--pty", "-l", "--label", "-u", "--unbuffered", "-Q", "--quiet", "-v", "--verbose", "-k", "--no-kill", "-O", "--overcommit", "-K", "--kill-on-bad-exit"],
    noCommand: ["--help", "--usage", "-V", "--version"],
    own: true,
  },
  salloc: {
    values: ["-A", "--account", "-J", "--job-name", "-p", "--partition", "-t", "--time", "-N", "--nodes", "-n", "--ntasks", "-c", "--cpus-per-task", "--mem", "-G", "--gpus", "--gres", "-q", "--qos", "-C", "--constraint", "-D", "--chdir", "-w", "--nodelist", "-x", "--exclude"],
    flags: ["--exclusive", "-H", "--hold", "-Q", "--quiet", "-v", "--verbose", "--no-shell"],
    noCommand: ["--help", "--usage", "-V", "--version"],
    shellWhenEmpty: true,
    own: true,
  },
  bsub: {
    values: ["-J", "-q", "-n", "-W", "-o", "-e", "-eo", "-oo", "-R", "-M", "-P", "-G", "-m", "-w", "-cwd", "-i", "-gpu", "-app", "-L"],
    flags: ["-I", "-Ip", "-Is", "-K", "-x", "-B", "-N", "-r", "-rn", "-H"],
    noCommand: ["-h", "-V"],
    shellWhenEmpty: true,
    own: true,
  },
  // A file watcher runs its command line each time a file changes: through a shell (its words joined), unless told not to.
  watchexec: {
    values: ["-w", "--watch", "-W", "--watch-non-recursive", "-F", "--watch-file", "-e", "--exts", "-f", "--filter", "--filter-file", "-i", "--ignore", "--ignore-file", "-d", "--debounce", "--delay-run", "--poll", "--shell", "--signal", "--stop-signal", "--stop-timeout", "--on-busy-update", "-E", "--env", "--emit-events-to", "--project-origin", "--workdir", "--color", "--log-file", "--timeout", "--socket", "--wrap-process", "--filter-prog", "-j"],
    flags: ["-c", "--clear", "-r", "--restart", "-p", "--postpone", "-1", "-N", "--notify", "-n", "--no-vcs-ignore", "--no-project-ignore", "--no-global-ignore", "--no-default-ignore", "--no-discover-ignore", "--ignore-nothing", "--no-meta", "--print-events", "-q", "--quiet", "--bell", "--no-process-group", "-v", "-vv", "-vvv", "--verbose", "--manual", "--only-emit-events", "--fs-events", "--no-environment", "-o", "-s", "--kill"],
    noCommand: ["-h", "--help", "-V", "--version", "--completions", "--manual"],
  },
  entr: { flags: ["-a", "-c", "-cc", "-d", "-n", "-p", "-r", "-s", "-z", "-x"] },
  screen: {
    values: ["-S", "-t", "-c", "-e", "-h", "-p", "-T", "-s", "-Logfile"],
    flags: ["-d", "-m", "-D", "-R", "-r", "-L", "-x", "-U", "-a", "-A", "-O", "-q", "-i", "-l", "-ln", "-f", "-fn", "-fa"],
    noCommand: ["-ls", "-list", "-wipe", "-v"],
    shellWhenEmpty: true,
  },
};

/**
 * Subcommands of programs the inventory knows that run a command of their own: in a container
 * (`docker exec C CMD`, `kubectl exec P -- CMD`), a namespace (`ip netns exec NS CMD`), a
 * development shell (`nix develop -c CMD`), a machine (`vagrant ssh -c CMD`). The command meets the
 * rules as any other; the program's own part is judged by its kind as before.
 */
const DOCKER_EXEC: SubWrapperSpec = {
  values: ["-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "--detach-keys"],
  flags: ["-d", "--detach", "-i", "--interactive", "-t", "--tty", "--privileged"],
  operands: 1,
};
const DOCKER_RUN: SubWrapperSpec = {
  values: [
    "-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "-p", "--publish", "-v", "--volume", "--name", "--network", "--net", "--mount", "--platform", "--pull", "--restart", "-l", "--label", "--label-file",
    "--cap-add", "--cap-drop", "--security-opt", "--pid", "--ipc", "--uts", "--userns", "--cgroupns", "--device", "--dns", "--add-host", "-h", "--hostname", "-m", "--memory", "--memory-swap", "--cpus", "-c", "--cpu-shares",
    "--cpuset-cpus", "--shm-size", "--ulimit", "--tmpfs", "--gpus", "--runtime", "--log-driver", "--log-opt", "--expose", "--link", "--volumes-from", "--cidfile", "--stop-signal", "--stop-timeout", "--group-add", "--sysctl",
    "--health-interval", "--health-retries", "--health-timeout", "--health-start-period", "--detach-keys", "-a", "--attach", "--network-alias", "--ip", "--mac-address", "--annotation",
  ],
  flags: ["--rm", "-d", "--detach", "-i", "--interactive", "-t", "--tty", "--privileged", "-P", "--publish-all", "--init", "--read-only", "--no-healthcheck", "-q", "--quiet", "--oom-kill-disable"],
  commandString: ["--entrypoint", "--health-cmd"],
  operands: 1,
};
const COMPOSE_EXEC: SubWrapperSpec = { values: ["-e", "--env", "-u", "--user", "-w", "--workdir", "--index"], flags: ["-d", "--detach", "-T", "--no-TTY", "--privileged", "-i", "--interactive", "-t", "--tty"], operands: 1 };
const COMPOSE_RUN: SubWrapperSpec = {
  values: ["-e", "--env", "-u", "--user", "-w", "--workdir", "-p", "--publish", "-v", "--volume", "--name", "-l", "--label", "--cap-add", "--cap-drop", "--pull"],
  flags: ["-d", "--detach", "--rm", "-T", "--no-TTY", "--no-deps", "--build", "--service-ports", "--use-aliases", "--remove-orphans", "-i", "--interactive", "-t", "--tty", "-P", "-q", "--quiet-pull"],
  commandString: ["--entrypoint"],
  operands: 1,
};
const KUBECTL_EXEC: SubWrapperSpec = { values: ["-c", "--container", "-n", "--namespace", "-f", "--filename", "--pod-running-timeout", "--context", "--kubeconfig"], flags: ["-i", "--stdin", "-t", "--tty", "-q", "--quiet"], operands: 1, optionsAfterOperands: true };
const CONTAINERS: Readonly<Record<string, SubWrapperSpec>> = {
  exec: DOCKER_EXEC,
  "container.exec": DOCKER_EXEC,
  run: DOCKER_RUN,
  "container.run": DOCKER_RUN,
  create: DOCKER_RUN,
  "compose.exec": COMPOSE_EXEC,
  "compose.run": COMPOSE_RUN,
};
const CLUSTERS: Readonly<Record<string, SubWrapperSpec>> = {
  exec: KUBECTL_EXEC,
  rsh: KUBECTL_EXEC,
  run: { afterDash: true },
  debug: { afterDash: true },
  "alpha.debug": { afterDash: true },
};

export const SUB_WRAPPERS: Readonly<Record<string, Readonly<Record<string, SubWrapperSpec>>>> = {
  docker: CONTAINERS,
  podman: CONTAINERS,
  nerdctl: CONTAINERS,
  "docker-compose": { exec: COMPOSE_EXEC, run: COMPOSE_RUN },
  "podman-compose": { exec: COMPOSE_EXEC, run: COMPOSE_RUN },
  kubectl: CLUSTERS,
  oc: CLUSTERS,
  ip: { "netns.exec": { operands: 1 } },
  nix: { develop: { afterDash: true, commandAfter: ["-c", "--command"] }, shell: { afterDash: true, commandAfter: ["-c", "--command"] } },
  vagrant: { ssh: { afterDash: true, commandString: ["-c", "--command"] } },
  heroku: { run: { values: ["-a", "--app", "-r", "--remote", "-s", "--size", "-e", "--env", "--type"], flags: ["-x", "--exit-code", "--no-tty", "--no-notify"] } },
  flyctl: { "ssh.console": { afterDash: true, commandString: ["-C", "--command"] } },
  fly: { "ssh.console": { afterDash: true, commandString: ["-C", "--command"] } },
  gcloud: { "compute.ssh": { afterDash: true, commandString: ["--command"] } },
};

/** Shells whose `-c` string is parsed again, and whose standard input is a script. */
export const SHELLS: ReadonlySet<string> = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "rbash", "fish", "busybox-sh", "ksh93", "lksh", "oksh", "loksh", "pdksh", "hush", "sash", "osh", "bosh", "jsh"]);

/**
 * How a shell of another language is given its code: the options whose value is code (`-c`), or
 * after which every word is (`pwsh -Command a b`), the options whose value is a script file, and
 * whether its options are spelled in any case and with `/` (PowerShell, cmd).
 */
export interface ForeignShellSpec {
  /** Options whose value (the next word) is code. */
  code: readonly string[];
  /** Options after which the remaining words, joined, are code. */
  rest?: readonly string[];
  /** Options whose value is a script file it runs. */
  file?: readonly string[];
  /** Options whose value is code encoded (base64): unreadable whatever it says. */
  encoded?: readonly string[];
  /** Options of its own that take a value. */
  values?: readonly string[];
  /** Options are matched in any case, and may start with `/` (`/c`, `-Command`). */
  caseless?: boolean;
  /** With no option naming code, its first operand is code too (Windows PowerShell's default `-Command`). */
  operandIsCode?: boolean;
  /** Its options start with `/` (cmd's `/c`). */
  slash?: boolean;
}

/**
 * Shells whose language is not bash's (csh, PowerShell, nushell, elvish, xonsh, rc, cmd, …): the
 * policy does not parse their code, so a command string, a script or standard input given to one
 * is code it cannot read (at least ask). The string is still read as bash for what it names, so
 * that a rule denying a program it runs still denies (`tcsh -c 'rm x'`).
 */
export const FOREIGN_SHELLS: Readonly<Record<string, ForeignShellSpec>> = {
  csh: { code: ["-c"] },
  tcsh: { code: ["-c"] },
  pwsh: {
    code: [],
    rest: ["-command", "-c", "-cwa", "-commandwithargs"],
    file: ["-file", "-f"],
    encoded: ["-encodedcommand", "-e", "-ec", "-enc", "-encodedarguments", "-ea"],
    values: ["-executionpolicy", "-ex", "-ep", "-workingdirectory", "-wd", "-configurationname", "-config", "-custompipename", "-outputformat", "-o", "-of", "-inputformat", "-if", "-in", "-windowstyle", "-w", "-settingsfile", "-settings", "-psconsolefile"],
    caseless: true,
  },
  powershell: {
    code: [],
    rest: ["-command", "-c"],
    file: ["-file", "-f"],
    encoded: ["-encodedcommand", "-e", "-ec", "-enc"],
    values: ["-executionpolicy", "-ex", "-ep", "-workingdirectory", "-wd", "-configurationname", "-outputformat", "-o", "-inputformat", "-if", "-windowstyle", "-w", "-version", "-psconsolefile"],
    caseless: true,
    operandIsCode: true,
  },
  nu: { code: ["-c", "--commands", "-e", "--execute"], values: ["--config", "--env-config", "-I", "--include-path", "--log-level", "--log-target", "--plugin-config", "--plugins", "--table-mode", "-m"] },
  nushell: { code: ["-c", "--commands", "-e", "--execute"] },
  elvish: { code: ["-c"], values: ["-rc", "-sock", "-db", "-log"] },
  xonsh: { code: ["-c"], values: ["-D", "--rc", "--shell-type", "--timings"] },
  rc: { code: ["-c"] },
  es: { code: ["-c"] },
  ion: { code: ["-c"] },
  ysh: { code: ["-c"] },
  oil: { code: ["-c"] },
  murex: { code: ["-c"] },
  hilbish: { code: ["-c", "--command"] },
  ngs: { code: ["-e", "-p", "-pl", "-pj", "-pi"] },
  oh: { code: ["-c"] },
  closh: { code: ["-c", "-e"] },
  scsh: { code: ["-c", "-e"] },
  cmd: { code: [], rest: ["-c", "-k", "-r"], caseless: true, slash: true },
};

/** Options of a shell that take a value. */
export const SHELL_VALUE_OPTIONS: ReadonlySet<string> = new Set(["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]);
