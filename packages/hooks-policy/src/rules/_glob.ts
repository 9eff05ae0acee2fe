/**
 * Globs on single words (tool names, command words, argument values): `*` any run of characters
 * (`/` included, since a word is not a path), `?` one character, `\x` the character x itself.
 * `**` is the same as `*` here. Returns an anchored RegExp.
 */
export function wordGlob(glob: string, flags = ""): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === "\\" && i + 1 < glob.length) {
      source += escapeRegExp(glob[++i] as string);
    } else if (char === "*") {
      while (glob[i + 1] === "*") i++;
      source += "[\\s\\S]*";
    } else if (char === "?") {
      source += "[\\s\\S]";
    } else {
      source += escapeRegExp(char);
    }
  }
  return new RegExp(`^${source}$`, flags);
}

/** Whether a word glob matches every word (so it needs no comparison). */
export function matchesEverything(glob: string): boolean {
  return /^\*+$/.test(glob);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** A glob list on tool names, compiled once. */
export function toolMatcher(tool: string | string[]): (name: string) => boolean {
  const list = Array.isArray(tool) ? tool : [tool];
  // Most rules are for every tool (`*`): no expression to make for each of them.
  if (list.some(matchesEverything)) return () => true;
  const globs = list.map((glob) => wordGlob(glob));
  return (name) => globs.some((glob) => glob.test(name));
}
