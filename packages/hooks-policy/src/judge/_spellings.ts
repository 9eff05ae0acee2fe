import { existingReal, expandTilde, type PathAnchors, resolvePath as resolve } from "../paths/_paths.js";
import type { ShellCommandPart } from "../shell/_parse.js";
import type { ShellWord } from "../shell/_words.js";

/*
 * The root and the home folder however a command spells them: `//`, `/.`, `/usr/..`, `"$HOME"`,
 * `$X` after `X=/`, `.` after `cd /`, a link to them, and `*` in them. Deny and ask rules of the
 * programs that delete what they are given are matched against these spellings too, so that a
 * deny of `rm -rf /` is never an ask, whatever the spelling.
 */

/** Programs whose operands are paths they delete (`rm`) or delete under (`find -delete`). */
const DELETERS = new Set(["rm", "find", "shred", "unlink", "rmdir"]);

/** The command's words with every operand that names `/` or the home folder written `/` or `~` (`/*`, `~/*` for what is in them); undefined when none does. */
export function foldedOperands(part: ShellCommandPart, cwds: ReadonlyArray<string | undefined>, anchors: PathAnchors): ShellWord[] | undefined {
  const name = part.words[0]?.value;
  if (name === undefined || !DELETERS.has(name.slice(name.lastIndexOf("/") + 1))) return undefined;
  const cwd = cwds[Math.min(part.cdCount, cwds.length - 1)];
  if (cwd === undefined) return undefined;
  let changed = false;
  const words = part.words.map((word, index) => {
    if (index === 0) return word;
    const folded = fold(word, cwd, anchors);
    if (folded === undefined || folded === word.value) return word;
    changed = true;
    return { text: word.text, value: folded, splits: false, tilde: false };
  });
  return changed ? words : undefined;
}

/** `/`, `~`, `/*` or `~/*` when the word names the root, the home folder or everything in one; undefined otherwise. */
function fold(word: ShellWord, cwd: string, anchors: PathAnchors): string | undefined {
  if (word.value !== undefined) {
    if (word.value.startsWith("-")) return undefined;
    return whichRoot(expand(word.value, word.tilde, anchors), cwd, anchors);
  }
  const pattern = word.pattern;
  if (pattern === undefined) return undefined;
  const star = /^(.*?)\/?\*$/.exec(pattern);
  if (!star) return undefined;
  const folder = star[1] === "" ? (pattern.startsWith("/") ? "/" : ".") : (star[1] as string);
  const root = whichRoot(expand(folder, word.tilde, anchors), cwd, anchors);
  return root === undefined ? undefined : `${root}/*`.replace("//", "/");
}

function expand(value: string, tilde: boolean, anchors: PathAnchors): string {
  return tilde && value.startsWith("~") ? (expandTilde(value, anchors.homes[0] as string, anchors.homes[0] as string) ?? value) : value;
}

function whichRoot(value: string, cwd: string, anchors: PathAnchors): string | undefined {
  if (value === "" || value.includes("\0")) return undefined;
  const lexical = resolve(cwd, value);
  const real = existingReal(lexical);
  for (const path of [lexical, real]) {
    if (path === "/") return "/";
    if (path !== undefined && anchors.homes.includes(path)) return "~";
  }
  return undefined;
}
