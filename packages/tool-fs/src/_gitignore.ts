import picomatch from "picomatch";

/** One line of an ignore file, compiled. */
interface Rule {
  /** `!pattern`: what it matches is kept. */
  negative: boolean;
  /** `pattern/`: it matches folders only. */
  folderOnly: boolean;
  /** No slash but a trailing one: it matches a name at any depth, so the last name is enough. */
  nameOnly: boolean;
  test(path: string): boolean;
}

/** An ignore file's rules, relative to its folder: the last that matches decides, as in git. */
export interface IgnoreRules {
  /** `"ignore"`, `"keep"` (a `!` rule matched), or undefined when no rule matches this path itself. */
  verdict(relative: string, isFolder: boolean): "ignore" | "keep" | undefined;
}

const OPTIONS = { dot: true, nobrace: true, noextglob: true, nonegate: true } as const;
/** Longer lines are left out: no real pattern is this long, and a matcher's cost grows with it. */
const MAX_LINE = 4096;

/**
 * Compiles `.gitignore` syntax (git's rules: `#` comments, `!` negation, a trailing `/` for
 * folders, a slash elsewhere anchoring the pattern to the file's folder, `*`, `?`, `[…]`, `**`).
 * A path is judged by itself, never by its parents, as ripgrep judges each entry of its walk:
 * the walk does not enter a folder that is ignored, so its contents are never asked about.
 */
export function compileIgnore(text: string): IgnoreRules {
  const rules: Rule[] = [];
  for (const line of text.split(/\r?\n/)) {
    const rule = compileLine(line);
    if (rule) rules.push(rule);
  }
  return {
    verdict(relative, isFolder) {
      const name = relative.slice(relative.lastIndexOf("/") + 1);
      for (let i = rules.length - 1; i >= 0; i--) {
        const rule = rules[i] as Rule;
        if (rule.folderOnly && !isFolder) continue;
        if (rule.test(rule.nameOnly ? name : relative)) return rule.negative ? "keep" : "ignore";
      }
      return undefined;
    },
  };
}

function compileLine(raw: string): Rule | undefined {
  if (raw.length > MAX_LINE) return undefined;
  let line = withoutTrailingSpaces(raw);
  if (line === "" || line.startsWith("#")) return undefined;
  const negative = line.startsWith("!");
  if (negative) line = line.slice(1);
  else if (line.startsWith("\\!") || line.startsWith("\\#")) line = line.slice(1);
  const folderOnly = line.endsWith("/");
  while (line.endsWith("/")) line = line.slice(0, -1);
  if (line === "") return undefined;
  const anchored = line.includes("/");
  if (line.startsWith("/")) line = line.slice(1);
  // git's `[!a]` is picomatch's `[^a]`; `foo/**` matches what is inside foo, not foo itself.
  let glob = line.replace(/(^|[^\\])\[!/g, "$1[^");
  if (glob.endsWith("/**")) glob += "/*";
  try {
    const test = picomatch(glob, OPTIONS);
    return { negative, folderOnly, nameOnly: !anchored, test };
  } catch {
    // A line git cannot use either matches nothing.
    return undefined;
  }
}

/** Trailing spaces are dropped, but for one escaped with a backslash (`a\ ` is `a` and a space). */
function withoutTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === " ") end--;
  return end < line.length && line[end - 1] === "\\" ? line.slice(0, end + 1) : line.slice(0, end);
}
