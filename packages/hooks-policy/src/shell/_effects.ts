import type { ProgramRow } from "../inventory/_row.js";
import { hasOption, optionValue, type ParsedArguments } from "./_options.js";
import { RIPGREP_TYPES } from "../inventory/_option-tables.js";
import type { ShellWord } from "./_words.js";
import type { Effects, Touch } from "./_effect-types.js";
import { programVariable } from "../inventory/_variables.js";
import { INLINE_CODE, STDIN_CODE } from "../inventory/_inline-code.js";
import { readableCode } from "./_evaluating.js";
import { buildSettings, commandOptions, databaseEffects, embeddedCommands, fdExec, optionWords, pagerCommands, sedEffects, sshOptions } from "./_scripts.js";

export type { Effects, Touch } from "./_effect-types.js";

type Reader = (program: string, args: ParsedArguments, words: ShellWord[], out: Effects) => void;

const word = (value: string): ShellWord => ({ text: value, value, splits: false, tilde: false });
const DOT = word(".");

const write = (out: Effects, via: string, ...paths: Array<ShellWord | undefined>): void => {
  for (const path of paths) if (path && path.value !== "-") out.writes.push({ path, via });
};
const read = (out: Effects, via: string, ...paths: Array<ShellWord | undefined>): void => {
  for (const path of paths) if (path && path.value !== "-") out.reads.push({ path, via });
};
const tree = (out: Effects, via: string, ...paths: Array<ShellWord | undefined>): void => {
  for (const path of paths) if (path && path.value !== "-") out.trees.push({ path, via });
};
const run = (out: Effects, via: string, words: ShellWord[], shell: boolean): void => {
  if (words.length > 0) (out.runs ??= []).push({ words, shell, via });
};
const isRemote = (path: ShellWord): boolean => path.value !== undefined && /^[^/]*:/.test(path.value) && !path.value.startsWith("./");

const STDIN_FILES = new Set(["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]);

const copy: Reader = (program, args, _words, out) => {
  const target = optionValue(args, "--target-directory");
  const operands = [...args.operands];
  const last = target ?? (operands.length >= 2 ? operands.pop() : undefined);
  if (program === "install" && hasOption(args, "--directory")) return write(out, "install -d", ...args.operands);
  write(out, program, last);
  const recursive = hasOption(args, "--recursive", "--archive", "-R", "-r");
  if (program === "mv") write(out, "mv (the source)", ...operands);
  else if (program === "ln") return;
  else if (recursive) tree(out, `${program} -r`, ...operands);
  else read(out, program, ...operands);
};

const readers: Record<string, Reader> = {
  tee: (_p, args, _w, out) => write(out, "tee", ...args.operands),
  touch: (_p, args, _w, out) => write(out, "touch", ...args.operands),
  mkdir: (_p, args, _w, out) => write(out, "mkdir", ...args.operands),
  truncate: (_p, args, _w, out) => write(out, "truncate", ...args.operands),
  rm: (_p, args, _w, out) => write(out, "rm", ...args.operands),
  rmdir: (_p, args, _w, out) => write(out, "rmdir", ...args.operands),
  unlink: (_p, args, _w, out) => write(out, "unlink", ...args.operands),
  shred: (_p, args, _w, out) => write(out, "shred", ...args.operands),
  chmod: (p, args, _w, out) => write(out, p, ...(optionValue(args, "--reference") ? args.operands : args.operands.slice(1))),
  cp: copy,
  mv: copy,
  install: copy,
  ln: copy,
  dd: (_p, _args, words, out) => {
    for (const each of words.slice(1)) {
      const value = each.value;
      if (value?.startsWith("of=")) write(out, "dd of=", { ...each, value: value.slice(3), tilde: value.startsWith("of=~") });
      if (value?.startsWith("if=")) read(out, "dd if=", { ...each, value: value.slice(3), tilde: value.startsWith("if=~") });
    }
  },
  sed: (p, args, _w, out) => {
    sedEffects(args, out);
    if (!hasOption(args, "--in-place")) return;
    const files = hasOption(args, "--expression", "--file") ? args.operands : args.operands.slice(1);
    write(out, `${p} -i`, ...files);
  },
  sort: (_p, args, _w, out) => write(out, "sort -o", optionValue(args, "--output")),
  split: (_p, args, _w, out) => {
    const prefix = args.operands[1]?.value ?? "x";
    write(out, "split", args.operands[1]?.value === undefined && args.operands[1] ? args.operands[1] : word(`${prefix}aa`));
  },
  patch: (_p, args, _w, out) => {
    read(out, "patch -i", optionValue(args, "--input"));
    // --dry-run prints what would change and writes nothing (not even -o's file).
    if (hasOption(args, "--dry-run")) return;
    const output = optionValue(args, "--output");
    if (output) return write(out, "patch -o", output);
    if (args.operands[0]) return write(out, "patch", args.operands[0]);
    write(out, "patch", optionValue(args, "--directory") ?? DOT);
    out.uncertain = "patch writes the files its patch names, which are known only at run time";
  },
  tar: (_p, args, _w, out) => {
    const file = optionValue(args, "--file");
    const directory = optionValue(args, "--directory");
    if (hasOption(args, "--to-command", "--use-compress-program", "--checkpoint-action", "--rsh-command", "--info-script", "--new-volume-script")) {
      out.uncertain = "tar runs a program named in its options";
    }
    if (hasOption(args, "--create", "--append", "--update", "--catenate")) {
      write(out, "tar -f", file);
      // `-C DIR` makes the operands after it relative to DIR: judged there (the last one, for all).
      const inDirectory = (path: ShellWord): ShellWord =>
        !directory || path.value?.startsWith("/") ? path : directory.value === undefined || path.value === undefined ? directory : { ...directory, value: `${directory.value}/${path.value}` };
      tree(out, "tar -c", ...args.operands.map(inDirectory));
      const list = optionValue(args, "--files-from");
      read(out, "tar -T", list);
      // The list's names may be anywhere (`~/.ssh/id_rsa`), and the archive lands in the workspace.
      if (list) out.uncertain = `tar -T archives the files ${list.value === "-" ? "its standard input" : list.value === undefined ? "a list known only at run time" : list.value} names, which are known only at run time`;
    } else if (hasOption(args, "--extract")) {
      read(out, "tar -f", file);
      write(out, directory ? "tar -x -C" : "tar -x", directory ?? DOT);
    } else {
      read(out, "tar -f", file);
    }
  },
  zip: (_p, args, _w, out) => {
    const [archive, ...files] = args.operands;
    write(out, "zip", archive);
    // -@ takes the names to add from standard input: anywhere, known only at run time.
    if (hasOption(args, "-@", "--names-stdin")) out.uncertain = "zip -@ archives the files its standard input names, which are known only at run time";
    if (hasOption(args, "--recurse-paths", "-R")) tree(out, "zip -r", ...files);
    else read(out, "zip", ...files);
  },
  unzip: (_p, args, _w, out) => {
    read(out, "unzip", args.operands[0]);
    if (!hasOption(args, "-l", "-t", "-v", "-p", "-c", "-Z")) write(out, "unzip -d", optionValue(args, "-d") ?? DOT);
  },
  rsync: (_p, args, _w, out) => {
    if (hasOption(args, "--rsh", "--rsync-path")) out.uncertain = "rsync runs the program named by -e / --rsync-path";
    const operands = [...args.operands];
    const destination = operands.length >= 2 ? operands.pop() : undefined;
    if (destination && !isRemote(destination)) write(out, "rsync", destination);
    read(out, "rsync", optionValue(args, "--files-from"), optionValue(args, "--password-file"));
    const local = operands.filter((each) => !isRemote(each));
    if (hasOption(args, "--recursive", "--archive", "--mirror")) tree(out, "rsync -r", ...local);
    else read(out, "rsync", ...local);
  },
  scp: (p, args, _w, out) => {
    sshOptions(p, args, out);
    const operands = [...args.operands];
    const destination = operands.length >= 2 ? operands.pop() : undefined;
    if (destination && !isRemote(destination)) write(out, "scp", destination);
    const local = operands.filter((each) => !isRemote(each));
    if (hasOption(args, "-r")) tree(out, "scp -r", ...local);
    else read(out, "scp", ...local);
  },
  curl: (_p, args, _w, out) => {
    const dir = optionValue(args, "--output-dir");
    const inDir = (path: ShellWord): ShellWord =>
      dir && path.value !== undefined && dir.value !== undefined && !path.value.startsWith("/") ? word(`${dir.value}/${path.value}`) : path;
    for (const option of args.options) {
      if (option.name === "--output" && option.value) write(out, "curl -o", inDir(option.value));
      if (["--cookie-jar", "--dump-header", "--trace", "--trace-ascii", "--stderr"].includes(option.name) && option.value?.value !== "-") {
        write(out, `curl ${option.name}`, option.value);
      }
      if (["--upload-file", "--config", "--netrc-file", "--cacert", "--cert", "--key"].includes(option.name)) read(out, `curl ${option.name}`, option.value);
      const data = option.value?.value;
      if (data !== undefined && ["--data", "--data-binary", "--data-urlencode", "--data-ascii", "--json", "--form"].includes(option.name)) {
        const at = data.indexOf("@");
        if (at !== -1 && (at === 0 || option.name === "--form" || option.name === "--data-urlencode")) read(out, `curl ${option.name} @`, word(data.slice(at + 1).split(";")[0] as string));
      }
    }
    if (hasOption(args, "--remote-name", "--remote-name-all")) {
      for (const url of args.operands) write(out, "curl -O", url.value === undefined ? url : inDir(word(urlName(url.value))));
      if (hasOption(args, "--remote-header-name")) out.uncertain = "curl -J names the file from the server's answer";
    }
  },
  wget: (_p, args, _w, out) => {
    const document = optionValue(args, "--output-document");
    const prefix = optionValue(args, "--directory-prefix");
    if (hasOption(args, "--execute")) out.uncertain = "wget -e runs wgetrc commands, which may write anywhere";
    write(out, "wget -o", optionValue(args, "--output-file"), optionValue(args, "--append-output"));
    read(out, "wget", optionValue(args, "--input-file"), optionValue(args, "--post-file"), optionValue(args, "--body-file"));
    if (document) return write(out, "wget -O", document);
    if (hasOption(args, "--recursive", "--mirror", "--page-requisites")) return write(out, "wget -r", prefix ?? DOT);
    for (const url of args.operands) {
      const name = url.value === undefined ? url : word(urlName(url.value));
      write(out, "wget", prefix && prefix.value !== undefined && name.value !== undefined ? word(`${prefix.value}/${name.value}`) : name);
    }
  },
  find: (_p, _args, words, out) => {
    const roots: ShellWord[] = [];
    let start = 1;
    // find's own options come before its roots: -H, -L, -P, -D debug, -O level.
    while (start < words.length && /^-([HLP]|D|O\d*)$/.test(words[start]?.value ?? "")) start += words[start]?.value === "-D" ? 2 : 1;
    for (const each of words.slice(start)) {
      if (each.value !== undefined && /^[-(!)]/.test(each.value) && each.value !== "-") break;
      roots.push(each);
    }
    if (roots.length === 0) roots.push(DOT);
    // A listing of names reads no file (what -exec runs is judged as a command).
    // `-delete` as find's action, not a word of the command `-exec` runs (`-exec echo -delete \;`).
    if (_args.options.some((option) => option.name === "-delete")) write(out, "find -delete", ...roots);
  },
  grep: (p, args, _w, out) => {
    // `rg --files` lists names: it reads no file.
    const recursive = (p === "rg" && !hasOption(args, "--files")) || p === "ag" || p === "ack" || hasOption(args, "--recursive", "--dereference-recursive") || optionValue(args, "--directories")?.value === "recurse";
    read(out, `${p} -f`, optionValue(args, "--file"));
    const files = hasOption(args, "--regexp", "--file") ? args.operands : args.operands.slice(1);
    if (!recursive) return;
    // rg and ag leave out hidden files and folders (`.env`, `.ssh/`) unless told to search them.
    // rg -u leaves out no ignore file, -uu no hidden file either; ag -u both.
    const unrestricted = args.options.filter((option) => option.name === "-u" || option.name === "--unrestricted").length;
    const hidden = hasOption(args, "--hidden", "-.") || unrestricted >= (p === "ag" ? 1 : 2) || (p !== "rg" && hasOption(args, "--unrestricted"));
    const skipsHidden = (p === "rg" || p === "ag") && !hidden;
    const picked = p === "rg" ? ripgrepFilter(args, out) : {};
    // grep reads only the files --include names, and none --exclude / --exclude-dir name.
    const only = (name: string): Array<string | undefined> => args.options.filter((option) => option.name === name).map((option) => option.value?.value ?? option.value?.pattern);
    const filter: Record<string, Array<string | undefined>> = p === "rg" || p === "ag" || p === "ack" ? {} : { include: only("--include"), exclude: only("--exclude"), excludeDir: only("--exclude-dir") };
    if (Object.values(filter).some((values) => values.includes(undefined))) out.uncertain = `${p}'s --include / --exclude is known only at run time`;
    const known = Object.fromEntries(Object.entries(filter).map(([key, values]) => [key, values.filter((value): value is string => value !== undefined)]));
    const ignoring = (p === "rg" || p === "ag") && !hasOption(args, "--no-ignore");
    for (const path of files.length > 0 ? files : [DOT]) if (path.value !== "-") out.trees.push({ path, via: `${p} -r`, ...(skipsHidden && { skipsHidden }), ...(ignoring && skipsHidden && { ignoreFiles: true }), ...known, ...picked });
  },
  // tree -o FILE writes the listing; -R writes 00Tree.html into each folder it lists.
  tree: (_p, args, _w, out) => {
    write(out, "tree -o", optionValue(args, "-o"));
    if (hasOption(args, "-R")) write(out, "tree -R", ...(args.operands.length > 0 ? args.operands : [DOT]));
    for (const option of args.options) if (["--infofile", "--hintro", "--houtro", "--gitfile"].includes(option.name)) read(out, `tree ${option.name}`, option.value);
  },
  // file -C compiles each magic file into NAME.mgc in the working folder (magic.mgc without -m).
  file: (_p, args, _w, out) => {
    const magic = optionValue(args, "--magic-file");
    read(out, "file -f", optionValue(args, "--files-from"));
    if (!hasOption(args, "--compile")) return read(out, "file -m", ...(magic?.value?.split(":").map(word) ?? (magic ? [magic] : [])));
    if (magic?.value === undefined) return write(out, "file -C", magic ?? word("magic.mgc"));
    for (const each of magic.value.split(":")) write(out, "file -C", word(`${each.replace(/\/+$/, "").replace(/^.*\//, "")}.mgc`));
  },
  // csplit writes PREFIX00, PREFIX01, … (xx00 without -f).
  csplit: (_p, args, _w, out) => {
    read(out, "csplit", args.operands[0]);
    const prefix = optionValue(args, "--prefix");
    write(out, "csplit -f", prefix === undefined ? word("xx00") : prefix.value === undefined ? prefix : { ...prefix, value: `${prefix.value}00` });
  },
  // chattr MODE FILE…: a mode is `+i`, `=a` (`-i` reads as an option); every other operand is a file it changes.
  chattr: (_p, args, _w, out) => write(out, "chattr", ...args.operands.filter((each) => !/^[+=][a-zA-Z]*$/.test(each.value ?? ""))),
  setfacl: (_p, args, _w, out) => {
    write(out, "setfacl", ...args.operands);
    if (hasOption(args, "--restore")) out.uncertain = "setfacl --restore changes the files its input names, which are known only at run time";
  },
  cpio: (_p, args, _w, out) => {
    read(out, "cpio -I", optionValue(args, "-I"), optionValue(args, "--pattern-file"));
    write(out, "cpio -O", optionValue(args, "-O"));
    if (hasOption(args, "--rsh-command")) out.uncertain = "cpio --rsh-command runs the program it names";
    if (hasOption(args, "--list")) return read(out, "cpio -F", optionValue(args, "--file"));
    if (hasOption(args, "--extract")) {
      read(out, "cpio -F", optionValue(args, "--file"));
      write(out, "cpio -i", optionValue(args, "--directory") ?? DOT);
      if (!hasOption(args, "--no-absolute-filenames") && !hasOption(args, "--to-stdout")) out.uncertain = "cpio -i writes where the archive's names say, absolute paths and ../ included (--no-absolute-filenames keeps them in the folder)";
      return;
    }
    if (hasOption(args, "--create")) {
      write(out, "cpio -F", optionValue(args, "--file"));
      out.uncertain = "cpio -o reads the files named on its standard input, which are known only at run time";
      return;
    }
    if (hasOption(args, "--pass-through")) {
      write(out, "cpio -p", ...(args.operands.length > 0 ? args.operands : [DOT]));
      out.uncertain = "cpio -p copies the files named on its standard input, which are known only at run time";
      return;
    }
    out.uncertain = "cpio without -t, -i, -o or -p: what it does is not known";
  },
  fd: (_p, _args, words, out) => fdExec(words, out),
  git: (_p, args, _w, out) => gitEffects(args, out),
  psql: (p, _args, words, out) => databaseEffects(p, words, out),
  gdb: (p, _args, words, out) => commandOptions(p, words, out),
  vim: (p, _args, words, out) => commandOptions(p, words, out),
  less: (p, _args, words, out) => pagerCommands(p, words, out),
  make: (p, args, words, out) => buildSettings(p, args, words, out, (name) => programVariable(name) || name === "SHELL"),
  npx: (p, _args, words, out) => fetchRun(out, p, words.slice(1), false),
  // bunx installs a package it does not find, without asking.
  bunx: (p, _args, words, out) => fetchRun(out, p, words.slice(1), true),
  pnpx: (p, _args, words, out) => fetchRun(out, p, words.slice(1), true),
  uvx: (p, _args, words, out) => fetchRun(out, p, words.slice(1), true),
  ssh: (p, args, _w, out) => sshOptions(p, args, out),
  sftp: (p, args, _w, out) => sshOptions(p, args, out),
  npm: (p, args, words, out) => {
    if (["exec", "x"].includes(args.operands[0]?.value ?? "")) fetchRun(out, `${p} exec`, words.slice(words.indexOf(args.operands[0] as ShellWord) + 1), false);
    buildSettings(p, args, words, out, () => false);
  },
  source: (_p, args, _w, out) => {
    if (args.operands[0]?.value !== undefined) out.script = args.operands[0];
  },
  awk: (_p, args, _words, out) => {
    if (optionValue(args, "--file") || optionValue(args, "--source")) {
      const source = optionValue(args, "--source");
      if (source) out.inline = source.value ?? source.text;
      return;
    }
    const program = args.operands[0];
    if (!program) return;
    const text = program.value;
    // It runs commands (`system`, `print | "cmd"`, `"cmd" | getline`) or writes files (`print > "f"`); a comparison (`NR>=5`, `$3 > 1`) does neither.
    if (text === undefined || /\bsystem\s*\(|\b(print|printf)\b[^;}\n]*[>|]|\|\s*getline|\bgetline\b[^;}\n]*</.test(text)) out.inline = text ?? program.text;
    // The files it names in its output redirections are writes, judged by the write rules.
    if (text !== undefined) awkOutputs(text, out);
    // gawk -i inplace edits its files.
    if (_words.some((each, i) => /^(-i|--include)$/.test(each.value ?? "") && _words[i + 1]?.value === "inplace") || _words.some((each) => /^(-iinplace|--include=inplace)$/.test(each.value ?? ""))) write(out, "gawk -i inplace", ...args.operands.slice(1));
  },
};
/**
 * awk's output redirections: `print > "FILE"` and `>> "FILE"` write the file (judged by the write
 * rules); a target that is an expression (`> $1`, `> name`) is a file named only at run time. In a
 * parenthesised expression `>` compares.
 */
function awkOutputs(text: string, out: Effects): void {
  let flat = text.replace(/"(?:[^"\\]|\\.)*"/g, (literal) => literal.replace(/[()]/g, " "));
  for (let i = 0; i < 8 && /\([^()]*\)/.test(flat); i++) flat = flat.replace(/\([^()]*\)/g, (group) => " ".repeat(group.length));
  for (const match of flat.matchAll(/\b(?:print|printf)\b[^;}\n]*?(>>|>)\s*("(?:[^"\\]|\\.)*"|[^;}\s]+)/g)) {
    const target = match[2] as string;
    if (target.startsWith('"')) write(out, `awk print ${match[1]}`, word(target.slice(1, -1).replace(/\\(.)/g, "$1")));
    else if (target !== "/dev/stdout" && target !== "/dev/stderr") out.uncertain = `awk writes to ${target}, a file named only at run time`;
  }
}

/** perl-rename's names (util-linux's `rename` is told apart by its arguments). */
const PERL_RENAMES = /^(prename|perl-rename|file-rename|rename\.pl)$/;

/**
 * `rename`: perl-rename's expression is Perl code run for every name (`s/a/b/e`, backticks,
 * `system`); util-linux's `rename FROM TO FILES` replaces a fixed string. An expression that is
 * only a substitution or transliteration without `e` and without code in it (`(?{`, `@{[`) is read;
 * any other is an inline program. A new name may move a file anywhere: a replacement with `/` or
 * `..` in it is known only at run time.
 */
const rename: Reader = (program, _args, words, out) => {
  const values = words.slice(1);
  const expressions: ShellWord[] = [];
  let i = 0;
  let perl = PERL_RENAMES.test(program);
  for (; i < values.length; i++) {
    const value = values[i]?.value;
    if (value === undefined || !value.startsWith("-") || value === "-") break;
    if (value === "--") {
      i += 1;
      break;
    }
    if (value === "-e" || value === "-E") {
      perl = true;
      if (values[i + 1]) expressions.push(values[i + 1] as ShellWord);
      i += 1;
    } else if (/^-(u|-use)$/.test(value)) {
      perl = true;
      i += 1;
    } else if (/^-[A-Za-z]*[pd0fP]|^--(path|filename|nopath|nofullpath|fullpath|makedirs|nul|null)/.test(value)) perl = true;
  }
  const operands = values.slice(i);
  const first = operands[0]?.value;
  if (!perl && expressions.length === 0 && first !== undefined && operands.length >= 2 && /^(s|y|tr)(\W)/.test(first) === false && !/[;(){}$`@]/.test(first)) {
    // util-linux: FROM TO FILE…
    const to = operands[1];
    if (to?.value === undefined || /\/|\.\./.test(to.value)) out.uncertain = `rename's new name ${to?.text ?? ""} may move the files to another folder`;
    return write(out, "rename", ...operands.slice(2));
  }
  if (expressions.length === 0 && operands[0]) expressions.push(operands.shift() as ShellWord);
  write(out, program, ...operands);
  for (const expression of expressions) {
    const code = expression.value;
    if (code === undefined) {
      out.inline = expression.text;
      continue;
    }
    const substitution = /^(?:s|y|tr)(\W)(.*)$/s.exec(code.trim());
    const quiet = substitution !== null && plainSubstitution(code.trim()) && !/\(\?\??\{|@\{|\$\{|`/.test(code);
    if (!quiet) out.inline = code;
    else if (/\/|\.\./.test(code.slice(code.indexOf(substitution[1] as string, 1) + 1)) && substitution[1] !== "/") out.uncertain = `${program}'s expression makes new names with folders in them, which may move the files elsewhere`;
    else if (substitution[1] === "/" && /\\\/|\.\./.test(code)) out.uncertain = `${program}'s expression makes new names with folders in them, which may move the files elsewhere`;
  }
};
for (const name of ["rename", "prename", "perl-rename", "file-rename", "rename.pl"]) readers[name] = rename;

/**
 * Whether a Perl expression is one substitution or transliteration and nothing else: `s/a/b/gi`,
 * `y/a-z/A-Z/`, with a delimiter that is not a bracket and flags that run no code (no `e`, `ee`).
 * Anything after it (`s/a/b/; system("id")`) or another shape is code.
 */
function plainSubstitution(code: string): boolean {
  const match = /^(s|y|tr)(.)/s.exec(code);
  if (!match) return false;
  const delimiter = match[2] as string;
  if (/[\w\s({[<]/.test(delimiter)) return false;
  const sections: string[] = [];
  let current = "";
  for (let i = match[0].length; i < code.length; i++) {
    const char = code[i] as string;
    if (char === "\\") {
      current += char + (code[i + 1] ?? "");
      i += 1;
    } else if (char === delimiter && sections.length < 2) {
      sections.push(current);
      current = "";
    } else current += char;
  }
  if (sections.length < 2) return false;
  const flags = current;
  return match[1] === "s" ? /^[msixpodualngcr]*$/.test(flags) : /^[cdsr]*$/.test(flags);
}
readers.chown = readers.chmod as Reader;
readers.pnpm = (p, args, words, out) => {
  const sub = args.operands[0]?.value ?? "";
  if (["exec", "dlx", "x"].includes(sub)) fetchRun(out, `${p} ${sub}`, words.slice(words.indexOf(args.operands[0] as ShellWord) + 1), sub !== "exec");
  buildSettings(p, args, words, out, () => false);
};
readers.yarn = (p, args, words, out) => {
  const sub = args.operands[0]?.value ?? "";
  if (["exec", "dlx"].includes(sub)) fetchRun(out, `${p} ${sub}`, words.slice(words.indexOf(args.operands[0] as ShellWord) + 1), sub === "dlx");
  buildSettings(p, args, words, out, () => false);
};

/**
 * The command a package runner runs (`npx`, `npm exec`, `pnpm dlx`, `uvx`): judged as a command;
 * when it fetches the package (`--yes`, `--package`, a version or an address, or a runner that
 * always fetches), the package's code is code the policy cannot read: at least ask.
 */
function fetchRun(out: Effects, via: string, words: ShellWord[], alwaysFetches: boolean): void {
  const command = packageCommand(words);
  run(out, via, command, false);
  const options = words.slice(0, words.length - command.length).map((each) => each.value ?? "");
  const name = command[0]?.value;
  const named = options.some((value) => /^(-y|--yes|-p|--package|--package=.*|--from|--from=.*|--with|--with=.*)$/.test(value));
  if (alwaysFetches || named || name === undefined || /@[^/]*$|^(npm|jsr|https?|git\+[a-z]+|github|gh|file):|^[./~]|\.(tgz|tar\.gz|whl)$/.test(name.replace(/^@[^/]+\//, ""))) {
    out.uncertain = `${via} fetches the package ${command[0]?.text ?? ""} and runs its code, which is not the project's and the policy cannot read`;
  }
}

readers.chgrp = readers.chmod as Reader;
for (const name of ["rg", "ag", "ack", "egrep", "fgrep"]) readers[name] = readers.grep as Reader;
for (const name of ["gawk", "mawk", "nawk"]) readers[name] = readers.awk as Reader;
readers.gsed = readers.sed as Reader;
readers.bsdtar = readers.tar as Reader;
readers.gtar = readers.tar as Reader;
readers["."] = readers.source as Reader;
for (const name of ["mysql", "mariadb", "sqlite3", "duckdb"]) readers[name] = readers.psql as Reader;
readers.lldb = readers.gdb as Reader;
for (const name of ["vi", "nvim", "view", "ex", "vimdiff"]) readers[name] = readers.vim as Reader;
readers.more = readers.less as Reader;
for (const name of ["gmake", "cmake", "cargo", "go"]) readers[name] = readers.make as Reader;

/** git settings whose value is a command line git runs: judged as a command, at least ask unless harmless (`core.pager=cat`). */
const COMMAND_GIT_KEYS =
  /^(core\.(sshcommand|pager|editor|askpass|gitproxy)|sequence\.editor|diff\.external|diff\..*\.(textconv|command)|pager\..*|gpg\.(.*\.)?program|merge\..*\.driver|mergetool\..*\.cmd|difftool\..*\.cmd|filter\..*\.(clean|smudge|process)|remote\..*\.(uploadpack|receivepack)|man\..*\.cmd|browser\..*\.cmd|web\.browser|interactive\.difffilter)$/;

/** git settings whose value is a file git reads later (a commit template, ignore, attributes or mailmap file): judged as a read of it. */
const FILE_GIT_KEYS = /^(commit\.template|core\.(excludesfile|attributesfile)|blame\.ignorerevsfile|(fetch\.|receive\.)?fsck\.skiplist|mailmap\.file|gpg\.ssh\.allowedsignersfile|http\.(sslcert|sslkey|sslcainfo|cookiefile))$/;

const fileWord = (value: string): ShellWord => ({ text: value, value, splits: false, tilde: value.startsWith("~") });

/** A setting given to one git command (`-c`, `--config-env`, `clone --config`). */
function gitSetting(option: string, given: ShellWord | undefined, out: Effects): void {
  const value = given?.value;
  const eq = value?.indexOf("=") ?? -1;
  const key = value?.slice(0, eq === -1 ? undefined : eq).toLowerCase();
  const setting = value === undefined || eq === -1 ? undefined : value.slice(eq + 1);
  if (option !== "--config-env" && key !== undefined && setting !== undefined) {
    const what = `git ${option} ${key}`;
    if (COMMAND_GIT_KEYS.test(key)) return void (out.settings ??= []).push({ value: word(setting), what });
    if (FILE_GIT_KEYS.test(key)) return void read(out, what, fileWord(setting));
    // An alias runs a shell command (`!…`) or git itself.
    if (key.startsWith("alias.")) return void (out.settings ??= []).push({ value: word(setting.startsWith("!") ? setting.slice(1) : `git ${setting}`), what });
  }
  if (key === undefined || DANGEROUS_GIT_KEYS.test(key) || option === "--config-env") {
    out.uncertain = `git ${option} ${given?.text ?? ""}: a setting that can make git run a program`;
  }
}

/** git -c keys that make git run a program: at least ask. */
const DANGEROUS_GIT_KEYS =
  /^(alias\..*|core\.(sshcommand|pager|editor|hookspath|fsmonitor|gitproxy|askpass|worktree)|credential\..*|diff\..*\.(textconv|command)|diff\.external|filter\..*|merge\..*\.driver|mergetool\..*|difftool\..*|sequence\.editor|gpg\..*program|pager\..*|protocol\..*|remote\..*\.(uploadpack|receivepack|proxy)|uploadpack\..*|include\..*|includeif\..*|man\..*|web\.browser|browser\..*|instaweb\..*|sendemail\..*|ssh\.variant|init\.templatedir|http\..*proxy|receive\..*hook.*|submodule\..*\.update|url\..*|core\.sshcommand|interactive\.difffilter)$/;

function gitEffects(args: ParsedArguments, out: Effects): void {
  for (const option of args.options) {
    if (option.name === "-c" || option.name === "--config-env" || (option.name === "--config" && args.subcommand === "clone")) gitSetting(option.name, option.value, out);
    if (option.name === "--exec-path" || option.name === "--upload-pack" || option.name === "--receive-pack" || option.name === "--template") {
      out.uncertain = `git ${option.name}: makes git run programs from a path or name it gives`;
    }
    if (option.name === "--output") write(out, `git ${args.subcommand ?? ""} --output`.replace("  ", " "), option.value);
  }
  const operands = args.operands.slice(1);
  switch (args.subcommand) {
    case "clone": {
      const [url, dir] = operands;
      // `git -C DIR clone` clones relative to DIR.
      const base = optionValue(args, "-C");
      const under = (path: ShellWord): ShellWord =>
        base === undefined || path.value?.startsWith("/") ? path : base.value === undefined || path.value === undefined ? base : word(`${base.value}/${path.value}`);
      if (dir) write(out, "git clone", under(dir));
      else if (url?.value !== undefined) write(out, "git clone", under(word(urlName(url.value).replace(/\.git$/, ""))));
      else if (url) write(out, "git clone", url);
      break;
    }
    case "config": {
      // `git config set KEY VALUE` (git 2.46's subcommands) is `git config KEY VALUE`.
      if (/^(set|unset|--add|--replace-all|--unset|--unset-all)$/.test(operands[0]?.value ?? "")) operands.shift();
      const key = operands[0]?.value?.toLowerCase();
      if (operands.length >= 2 && (key === undefined || DANGEROUS_GIT_KEYS.test(key))) {
        out.uncertain = `git config ${operands[0]?.text}: a setting that can make git run a program`;
        // The settings file it writes: such a setting runs later, each time git does.
        const file = optionValue(args, "--file") ?? (hasOption(args, "--global") ? word("~/.gitconfig") : hasOption(args, "--system") ? word("/etc/gitconfig") : word(".git/config"));
        write(out, `git config ${operands[0]?.text}`, file.value === "~/.gitconfig" ? { ...file, tilde: true } : file);
      } else if (operands.length >= 2 && key !== undefined && FILE_GIT_KEYS.test(key) && operands[1]?.value !== undefined) {
        // git reads the file it names at later calls (a template's text goes into the commit message).
        read(out, `git config ${operands[0]?.text}`, fileWord(operands[1].value));
      } else if (operands.length >= 2 && key !== undefined && FILE_GIT_KEYS.test(key)) {
        out.uncertain = `git config ${operands[0]?.text}: the file it names, which git reads later, is known only at run time`;
      }
      break;
    }
    case "submodule":
      if (operands[0]?.value === "foreach") {
        const rest = operands.slice(1).filter((each) => !/^--(recursive|quiet)$/.test(each.value ?? ""));
        run(out, "git submodule foreach", rest, true);
      }
      break;
    case "rebase":
      for (const option of args.options) if (option.name === "--exec" && option.value) run(out, "git rebase --exec", [option.value], true);
      break;
    case "grep":
      gitGrepTrees(args, out);
      break;
    case "bisect":
      if (operands[0]?.value === "run") run(out, "git bisect run", operands.slice(1), false);
      break;
    case "archive":
      write(out, "git archive -o", optionValue(args, "-o", "--output"));
      break;
    default:
      break;
  }
}

/** `git grep`: the trees it reads (the working tree, or its pathspecs after `--`); only what git tracks unless told otherwise. */
function gitGrepTrees(args: ParsedArguments, out: Effects): void {
  // It reads the tracked files of the working tree (or its pathspecs after `--`), a tracked `.env` among them; with a revision, their history.
  const after = args.separator === undefined ? [] : args.operands.slice(Math.max(args.separator, 1));
  // Only what git tracks, unless told to read more (`--no-index`, `--untracked`) or a revision's history (any operand besides the pattern).
  const pattern = args.options.some((option) => option.name === "-e" || option.name === "-f") ? 0 : 1;
  const tracked = !args.options.some((option) => /^--(no-index|untracked|no-exclude-standard)$/.test(option.spelling)) && args.operands.length - after.length <= 1 + pattern && !args.dynamic;
  for (const path of after.length > 0 ? after : [DOT]) out.trees.push({ path, via: "git grep", ...(tracked && { tracked }) });
}

/** The command an `npx` / `npm exec` runs: its words after its own options (`-y`, `-p pkg`, `--`). */
function packageCommand(words: ShellWord[]): ShellWord[] {
  let i = 0;
  for (; i < words.length; i++) {
    const value = words[i]?.value;
    if (value === undefined || !value.startsWith("-")) break;
    if (value === "--") {
      i += 1;
      break;
    }
    if (/^(-p|--package|-c|--call|--shell|-w|--workspace|--prefix)$/.test(value)) i += 1;
  }
  return words.slice(i);
}

/** Build-file options (`make -f`, `just --justfile`, `ninja -f`, `rake -f`) given standard input, a descriptor or a process substitution. */
const BUILD_FILE_OPTIONS = /^(-f|--file|--makefile|--justfile|--taskfile|-t|--rakefile|--buildfile|-b|--build-file|-P)$/;

function buildFileFromInput(words: readonly ShellWord[]): boolean {
  for (let i = 1; i < words.length; i++) {
    const word = words[i] as ShellWord;
    const value = word.value;
    if (value === undefined) {
      if (/^[<>]\(/.test(word.text) && BUILD_FILE_OPTIONS.test(words[i - 1]?.value ?? "")) return true;
      continue;
    }
    const attached = /^(--[a-z-]+)=(.*)$/s.exec(value) ?? /^(-[fb])(.+)$/s.exec(value);
    const given = attached ? (BUILD_FILE_OPTIONS.test(attached[1] as string) ? attached[2] : undefined) : BUILD_FILE_OPTIONS.test(words[i - 1]?.value ?? "") ? value : undefined;
    if (given !== undefined && (given === "-" || STDIN_FILES.has(given) || /^\/dev\/fd\/\d+$|^\/proc\/self\/fd\/\d+$/.test(given))) return true;
  }
  return false;
}

/** The file name a download of this URL gets. */
function urlName(url: string): string {
  const path = url.replace(/[?#].*$/, "").replace(/\/+$/, "");
  const name = path.slice(path.lastIndexOf("/") + 1);
  return name === "" || name.includes(":") ? "index.html" : name;
}

/** What a program's inventory row says it touches: the operands it writes, the files its options read and write. */
function rowEffects(program: string, row: ProgramRow, args: ParsedArguments, words: ShellWord[], out: Effects): void {
  const operands = args.operands;
  if (row.writesOperands === "all") write(out, program, ...operands);
  else if (row.writesOperands === "first") write(out, program, operands[0]);
  else if (row.writesOperands === "second") write(out, program, operands[1]);
  else if (row.writesOperands === "last" && operands.length > 1) write(out, program, operands[operands.length - 1]);
  for (const [option, value] of valuesOf(args, words, [...row.reads, ...row.writes])) {
    if (row.reads.includes(option)) read(out, `${program} ${option}`, value);
    else write(out, `${program} ${option}`, value);
  }
}

/** The values of the given options: read by the option table, or from the words when it does not know them (`-f FILE`, `--file=FILE`). */
function valuesOf(args: ParsedArguments, words: ShellWord[], options: readonly string[]): Array<[string, ShellWord]> {
  const found: Array<[string, ShellWord]> = [];
  for (const option of args.options) {
    const named = options.includes(option.spelling) ? option.spelling : options.includes(option.name) ? option.name : undefined;
    if (named && option.value) found.push([named, option.value]);
  }
  if (found.length > 0) return found;
  for (let i = 1; i < words.length; i++) {
    const text = words[i]?.value;
    if (text === undefined) continue;
    if (text === "--") break;
    const option = options.find((each) => text === each || text.startsWith(`${each}=`));
    if (option === undefined) continue;
    const value = text === option ? words[i + 1] : word(text.slice(option.length + 1));
    if (value) found.push([option, value]);
  }
  return found;
}

/**
 * The effects of a simple command (after wrappers), from its program and words. Interpreters
 * given a program in an argument or on standard input (`python -c`, `perl -e`, `node -e`,
 * `python3 -` with a heredoc), awk programs that run commands or write files, and shells reading
 * a script file are marked.
 */
/** Archivers that take the names to add from a list file given as `@file`. */
const ARCHIVE_LISTS = /^(7z|7za|7zr|rar)$/;

export function effectsOf(program: string, words: ShellWord[], args: ParsedArguments, row?: ProgramRow): Effects {
  const out: Effects = { writes: [], reads: [], trees: [] };
  const reader = readers[program];
  if (reader) reader(program, args, words, out);
  else if (row) rowEffects(program, row, args, words, out);
  // `7z a x.7z @list`, `-i@list`, `rar a x.rar @list`: the names to add come from a list file.
  if (ARCHIVE_LISTS.test(program) && words.slice(1).some((each) => each.value === undefined || /^(@|-[ix]r?[-0]?@)/.test(each.value))) {
    out.uncertain = `${program} archives the files a list (@file) names, which are known only at run time`;
  }
  for (const [pattern, options] of inlineCodeOf(program)) {
    if (!pattern.test(program)) continue;
    // The option table's reading, else the words (a program without a table, or one that does not know the option: `Rscript -e`, `bun -e`).
    const code = optionValue(args, ...options) ?? (args.options.some((option) => options.includes(option.spelling)) ? optionWords(words, options)[0] : undefined);
    if (code) out.inline = code.value ?? code.text;
    else if (/^(node|nodejs|bun|ts-node|tsx)$/.test(program) && hasOption(args, "--print", "-p")) out.inline = args.operands[0]?.value ?? "(the first argument)";
    else if (/^perl/.test(program) && hasOption(args, "-i") && args.operands.length > 1) write(out, "perl -i", ...args.operands.slice(1));
    if (/^perl/.test(program) && code && hasOption(args, "-i")) write(out, "perl -i", ...args.operands);
    break;
  }
  if (out.inline === undefined && STDIN_CODE.test(program) && !hasOption(args, "-m", "--version", "-V", "-v", "-h", "--help", "--check", "-c", "--test", "--ini", "--modules")) {
    const first = args.operands[0];
    if (!first || first.value === "-" || STDIN_FILES.has(first.value ?? "")) out.inline = "(standard input)";
    else if (first.value === undefined) out.inline = `(a script known only at run time: ${first.text})`;
  }
  // yq's load operators read the file their expression names, wherever it is.
  if (program === "yq" && words.some((each) => /\bload(_str|_xml|_props|_base64)?\s*\(/.test(each.value ?? each.text))) out.uncertain = "yq's load() reads a file its expression names, which the policy does not follow";
  if (program === "deno" && args.operands[0]?.value === "eval") out.inline = args.operands[1]?.value ?? "(an argument)";
  if (program === "deno" && /^(run|test|bench)$/.test(args.operands[0]?.value ?? "") && (args.operands[1]?.value === "-" || STDIN_FILES.has(args.operands[1]?.value ?? ""))) out.inline = "(standard input)";
  if (row?.kind.kind === "runs-code" && row.kind.role === "build" && buildFileFromInput(words)) {
    out.uncertain = `${program} reads its build file from standard input or a pipe: rules this command writes, not the project's own files`;
    out.buildFromInput = true;
  }
  if (out.inline !== undefined && readableCode(out.inline)) {
    out.printsOnly = out.inline;
    delete out.inline;
  }
  // Shell commands written in the inline program are judged as commands too.
  if (out.inline !== undefined) for (const command of embeddedCommands(readers[program] === rename ? "perl" : program, out.inline)) run(out, `${program}'s inline program`, [word(command)], true);
  return out;
}

/**
 * The rows of INLINE_CODE whose program pattern matches `program`, in order, by program: every
 * command was tested against each row's pattern; a command line names a few programs again and
 * again. The rows are constants, so what matches depends only on the name.
 */
function inlineCodeOf(program: string): typeof INLINE_CODE {
  let found = inlineCodeRows.get(program);
  if (found === undefined) {
    found = INLINE_CODE.filter(([pattern]) => pattern.test(program));
    if (inlineCodeRows.size >= 4096) inlineCodeRows.clear();
    inlineCodeRows.set(program, found);
  }
  return found;
}

const inlineCodeRows = new Map<string, typeof INLINE_CODE>();

/**
 * Which files rg's tree read reads, by its `-g`/`--iglob` globs and `-t`/`-T` types: a glob or a
 * type this does not know (known only at run time, `--type-add`, a type whose globs are not listed)
 * may include any file, so the read is judged as reading hidden ones too.
 */
function ripgrepFilter(args: ParsedArguments, out: Effects): Pick<Touch, "overrides" | "typed" | "skipsHidden"> {
  const overrides: NonNullable<Touch["overrides"]> = [];
  const nocase = hasOption(args, "--glob-case-insensitive");
  for (const option of args.options) {
    if (option.name !== "--glob" && option.name !== "--iglob") continue;
    const value = option.value?.value ?? option.value?.pattern;
    if (value === undefined) {
      out.uncertain = `rg's ${option.spelling} is known only at run time, so which files it reads is not known`;
      return {};
    }
    const exclude = value.startsWith("!");
    overrides.push({ glob: exclude ? value.slice(1) : value, exclude, nocase: nocase || option.name === "--iglob" });
  }
  const types = args.options.filter((option) => option.name === "--type").map((option) => option.value?.value);
  const typed: string[] = [];
  for (const type of types) {
    const globs = type === undefined || hasOption(args, "--type-add", "--type-clear") ? undefined : RIPGREP_TYPES[type];
    // A type whose globs are not known may name hidden files (they are read when a type names them).
    if (globs === undefined) return { ...(overrides.length > 0 && { overrides }), skipsHidden: false };
    typed.push(...globs);
  }
  return { ...(overrides.length > 0 && { overrides }), ...(typed.length > 0 && { typed }) };
}
