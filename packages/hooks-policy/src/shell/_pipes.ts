import type { Touch } from "./_effect-types.js";
import type { ShellWord } from "./_words.js";

/*
 * xargs' input when the command before it in the pipeline says what it is (issue 39): the words a
 * literal `echo` / `printf` prints, or the names a `find` prints, which are files of the trees it
 * walks that its `-name` patterns match. Anything else xargs reads is known only at run time.
 */

/** What a pipeline stage before xargs prints: words, or the names of files under find's roots. */
export type PipeInput = { kind: "words"; words: string[] } | { kind: "find"; trees: Touch[]; print0: boolean };

/** A word xargs hands on as it is: no blank, quote or backslash (which it splits at or removes). */
const PLAIN = /^[\w@%+=:,./-]+$/;

/** The words of literal text as xargs reads them (blanks and newlines separate); undefined when one is not plain or there are too many. */
export function literalWords(text: string): PipeInput | undefined {
  const words = text.split(/\s+/).filter((each) => each !== "");
  if (words.length > 64 || !words.every((each) => PLAIN.test(each))) return undefined;
  return { kind: "words", words };
}

/** find's tests that narrow what it prints without naming files by a pattern; each takes a value. */
const NARROWING_VALUED = /^-(type|xtype|maxdepth|mindepth|size|mtime|mmin|atime|amin|ctime|cmin|newer|perm|user|group|uid|gid|links|inum)$/;
/** find's words that narrow (or only shape) what it prints, without a value; AND (`-a`) alone. */
const NARROWING = /^-(print|a|and|empty|readable|writable|executable|xdev|mount|nowarn|warn|depth|noleaf|ignore_readdir_race|true)$/;

/**
 * `find ROOTS [-name P | -type f | -maxdepth N | …]`: the names it prints are of files under its
 * roots whose names match every `-name`. Any other word (`-o`, `!`, `(`, `-iname`, `-path`, `-L`,
 * an action, a word known only at run time) leaves them unknown.
 */
export function findInput(words: readonly ShellWord[]): PipeInput | undefined {
  let i = 1;
  for (; i < words.length && /^-[HP]$/.test(words[i]?.value ?? ""); i++);
  const roots: ShellWord[] = [];
  for (; i < words.length; i++) {
    const word = words[i] as ShellWord;
    if (word.value === undefined) return undefined;
    if (/^[-(!]/.test(word.value)) break;
    if (!/^[\w@%+=:,./~-]+$/.test(word.value)) return undefined;
    roots.push(word);
  }
  if (roots.length === 0) roots.push({ text: ".", value: ".", splits: false, tilde: false });
  const names: string[] = [];
  let print0 = false;
  let printed = false;
  for (; i < words.length; i++) {
    const value = words[i]?.value;
    if (value === undefined) return undefined;
    if (value === "-name") {
      const pattern = words[++i]?.value;
      if (pattern === undefined) return undefined;
      names.push(pattern);
    } else if (NARROWING_VALUED.test(value)) {
      if (words[++i]?.value === undefined) return undefined;
    } else if (NARROWING.test(value)) printed ||= value === "-print";
    else if (value === "-print0") print0 = true;
    else return undefined;
  }
  if (print0 && printed) return undefined;
  const trees = roots.map((path): Touch => ({ path, via: "find … | xargs", ...(names.length > 0 && { include: names }), ...(!print0 && { splits: true }) }));
  return { kind: "find", trees, print0 };
}

/** xargs' own options when they hand on its input as it is (`-r`, `-n N`, `-P N`, `-t`, `-0`): whether it reads NUL-separated names; undefined for any other (`-I`, `-d`, `-a`, `-E`). */
export function xargsReadsPlainly(words: readonly ShellWord[]): { nul: boolean } | undefined {
  let nul = false;
  for (let i = 1; i < words.length; i++) {
    const value = words[i]?.value;
    if (value === undefined) return undefined;
    if (value === "--" || !value.startsWith("-")) return i + (value === "--" ? 1 : 0) < words.length ? { nul } : undefined;
    if (/^(-r|--no-run-if-empty|-t|--verbose|-x|--exit)$/.test(value)) continue;
    if (/^(-0|--null)$/.test(value)) nul = true;
    else if (/^(-n|-P|-s|-L)$/.test(value)) i += 1;
    else if (!/^(-[nPsL]\d+|--(max-args|max-procs|max-chars|max-lines)=\d+)$/.test(value)) return undefined;
  }
  return undefined;
}
