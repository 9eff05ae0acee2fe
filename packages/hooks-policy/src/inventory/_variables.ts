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
  // ripgrep's settings file: its lines are options, `--pre=PROGRAM` among them.
  "RIPGREP_CONFIG_PATH",
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

/**
 * Variables whose value is options a runtime reads before the program (issue 39): harmless when
 * every word only sets warnings, encodings, memory or the like (`RUBYOPT=-W0`,
 * `JAVA_TOOL_OPTIONS=-Xmx2g`); a word that loads code (`-r`, `-M`, `-javaagent:`, a dotted warning
 * category Python imports) or that the list does not know asks. `-I DIR` inside the workspace adds
 * the project's own folder to the load path.
 */
export interface OptionVariable {
  /** The runtime that reads it, for explanations. */
  runtime: string;
  /** What a word that is not harmless may do, for explanations. */
  loads: string;
  /** One word that is harmless. */
  harmless: RegExp;
  /** Whether `-IDIR` / `-I DIR` adds a folder to the load path (judged by where it is). */
  includes?: boolean;
  /** How the value splits into words (default: blanks). */
  separator?: RegExp;
}

/** JVM options that run no code of their own: memory, garbage collection, assertions, encodings, module access, boolean and numeric -XX flags. */
export const JVM_HARMLESS =
  /^(-X(mx|ms|ss|mn)\d+[kKmMgGtT]?|-Xshare:(auto|on|off)|-X(int|mixed|rs|batch|noclassgc)|-Xcheck:jni|-XX:[+-][A-Za-z0-9]+|-XX:[A-Za-z0-9]+=\d+(\.\d+)?[kKmMgGtT%]?|-(ea|da|esa|dsa|enableassertions|disableassertions|enablesystemassertions|disablesystemassertions)(:[\w.]+(\.\.\.)?)?|-server|-client|-verbose:(gc|class|module|jni)|--enable-preview|--add-(opens|exports|reads)[= ]?[\w./=,-]*|--illegal-access=\w+|--enable-native-access=[\w.,-]+|-Xlog:(gc|safepoint|class\+load)[\w*,+:=-]*|-D(file\.encoding|sun\.jnu\.encoding|(sun\.)?std(out|err)\.encoding|user\.(timezone|language|country|region)|java\.awt\.headless|java\.net\.prefer(IPv4Stack|IPv6Addresses)|https?\.protocols|jdk\.tls\.client\.protocols|skipTests|maven\.test\.skip|maven\.javadoc\.skip|org\.slf4j\.simpleLogger\.[\w.]+|org\.gradle\.(daemon|parallel|caching|console|logging\.level|workers\.max|warning\.mode))(=[\w.,:+%/-]*)?)$/;

const JVM: OptionVariable = {
  runtime: "every JVM it starts",
  loads: "`-javaagent:`, `-agentpath:`, `-Xbootclasspath`, `-XX:OnError=`, a class loader or a property that points a tool elsewhere",
  harmless: JVM_HARMLESS,
};

export const OPTION_VARIABLES: Readonly<Record<string, OptionVariable>> = {
  RUBYOPT: {
    runtime: "ruby",
    loads: "`-r` requires a library before the program, `-I` outside the workspace loads code from there",
    harmless: /^(-W[012]?|-W:(no-)?(deprecated|experimental|performance)|-w|-v|--verbose|-d|--debug|-E[\w:-]+|--encoding=[\w:-]+|-K[eEsSuUnN]|-U|--(enable|disable)[-=][\w,-]+|--yjit|--jit|--disable-gems|--backtrace-limit=\d+)$/,
    includes: true,
  },
  PERL5OPT: {
    runtime: "perl",
    loads: "`-M`/`-m` load a module before the program, `-d` a debugger, `-I` outside the workspace code from there",
    harmless: /^(-[wWXtTU]+|-C[\w]*|-D[\w]*)$/,
    includes: true,
  },
  PYTHONWARNINGS: {
    runtime: "python",
    loads: "a warning category with a dot (`ignore::pkg.Warning`) makes python import that module at start",
    // action[:message[:category[:module[:lineno]]]], a category of builtins only (no dot: python imports a dotted one).
    harmless: /^[a-z]*(:[^:]*(:[A-Za-z_]*(:[^:]*(:\d*)?)?)?)?$/,
    separator: /,/,
  },
  JAVA_TOOL_OPTIONS: JVM,
  _JAVA_OPTIONS: JVM,
  JDK_JAVA_OPTIONS: JVM,
  JAVA_OPTS: JVM,
  MAVEN_OPTS: JVM,
  GRADLE_OPTS: JVM,
};

/**
 * Programs that read nothing from the home folder (no settings, no plugins, no history): run with
 * `HOME` or an `XDG_*_HOME` elsewhere they do what they do anyway (`env -i HOME=/tmp ls`). Every
 * other program may read its settings there (git's `core.pager`, python's user site, npm's rc).
 */
export const READS_NO_HOME: ReadonlySet<string> = new Set(
  (
    "ls dir vdir cat tac nl head tail wc sort uniq cut paste join comm tr fold fmt expand unexpand rev column echo printf true false test [ expr seq sleep " +
    "pwd basename dirname realpath readlink stat du df date cal uname arch whoami id groups nproc md5sum sha1sum sha256sum sha512sum cksum b2sum " +
    "base64 base32 od hexdump strings diff cmp mkdir touch cp mv ln rm rmdir chmod tee mktemp grep egrep fgrep find"
  ).split(" "),
);

/** The variables that say where the home folder and its settings are. */
export const HOME_VARIABLES = /^(HOME|XDG_CONFIG_HOME|XDG_DATA_HOME|XDG_CACHE_HOME|XDG_STATE_HOME)$/;

/** The system's folders of programs: a PATH entry naming one adds the system's programs, nobody's code. */
export const SYSTEM_PROGRAM_FOLDERS = /^\/(usr\/(local\/)?)?s?bin\/?$|^\/opt\/homebrew\/s?bin\/?$|^\/snap\/bin\/?$|^\/usr\/games\/?$/;
