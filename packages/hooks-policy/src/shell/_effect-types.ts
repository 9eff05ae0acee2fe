import type { ShellWord } from "./_words.js";

/** A file a program touches through its arguments, and what makes it so (`sed -i`, `curl -o`). */
export interface Touch {
  path: ShellWord;
  via: string;
  /** A tree read that leaves out hidden files and folders (`rg`, `ag` without `--hidden`): what is denied there is not read. */
  skipsHidden?: boolean;
  /** A tree read of only the files whose names match (`grep --include`), of none that match `exclude`, in no folder `excludeDir` names. */
  include?: string[];
  exclude?: string[];
  excludeDir?: string[];
  /**
   * ripgrep's `-g`/`--iglob` globs, in order (the last that matches a path decides; a match includes
   * a hidden file too; with any include, a file none matches is not read), and the globs of the
   * types `-t` selects (a file none matches is not read; one that matches is, hidden or not).
   */
  overrides?: Array<{ glob: string; exclude: boolean; nocase: boolean }>;
  typed?: string[];
  /** It reads ignore files (`.gitignore`, `.ignore`, `.rgignore`), whose `!pattern` lines may make it read a hidden file after all (rg, ag). */
  ignoreFiles?: boolean;
  /** The names are handed on split at blanks and unquoted (xargs without -0): a name holding a blank, quote or backslash may name another file. */
  splits?: boolean;
  /** A tree read of only the files git tracks (`git grep`): what git's index does not hold is not read. */
  tracked?: boolean;
}

/** What a simple command does beyond running: the files it writes, reads and walks, code it runs. */
export interface Effects {
  /** Files it creates, changes or deletes: judged by the write rules. */
  writes: Touch[];
  /** Files it reads through options (`dd if=`, `curl -d @F`): denied when a read rule denies them. */
  reads: Touch[];
  /** Trees it reads recursively (`grep -r`, `tar c`, `find`): at least ask when they hold a denied path. */
  trees: Touch[];
  /** Code it runs from an argument or standard input (`python -c`, `node -e`, `awk '{system(…)}'`). */
  inline?: string;
  /** A script file a shell reads (`bash x.sh`, `. x`): the policy cannot see it. */
  script?: ShellWord;
  /** Inline code the policy read, which only prints constants (`python -c "print('ok')"`): the command reads only. */
  printsOnly?: string;
  /** Why the command is at least `ask` whatever the rules say. */
  uncertain?: string;
  /** Commands it runs itself (`git rebase -x`, `npx`): words run as a program, or text run by a shell. */
  runs?: Array<{ words: ShellWord[]; shell: boolean; via: string }>;
  /** A build tool reads its build file from standard input or a pipe (`make -f /dev/stdin <<< …`): what a literal input says is read. */
  buildFromInput?: boolean;
  /** Settings whose value is a command line it runs (`git -c core.pager=…`, `ssh -o ProxyCommand=…`): judged, and at least ask unless harmless. */
  settings?: Array<{ value: ShellWord; what: string }>;
}
