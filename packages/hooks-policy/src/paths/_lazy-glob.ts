import picomatch from "picomatch";

/**
 * `picomatch(glob, { dot: true, nocase })`, compiled when a text first could match it. A policy has
 * a few dozen globs (its path rules, the names of secret environment variables) and a call asks
 * about one or two paths, and compiling a glob costs far more than matching it (the `recommended`
 * preset's path globs and the default `redactEnv` were ~10 ms of every hook's start). So the words
 * every match must contain are read from the glob first, and a text that lacks one of them is no
 * match without compiling.
 *
 * The only errors picomatch throws for a string, with these options, are for an empty glob and its
 * length: such a glob is compiled at once, so a policy with one still fails to load, with
 * picomatch's message. A glob that fails later to compile throws at the match, which the policy
 * turns into a deny.
 */
export function lazyGlob(glob: string, { nocase = false } = {}): (text: string) => boolean {
  const options = { dot: true, nocase };
  if (glob === "" || glob.length > picomatch.constants.MAX_LENGTH) picomatch(glob, options);
  // Case-insensitively, a letter of a word is matched by its two cases only: the glob's regex has
  // the `i` flag without `u`, where no other character folds to an ASCII letter.
  const found = literalsOf(glob);
  const fold = (word: string) => (nocase ? word.toLowerCase() : word);
  const words = found.words.map(fold);
  const ending = found.ending === undefined ? undefined : fold(found.ending);
  let matcher: ((text: string) => boolean) | undefined;
  return (text) => {
    const folded = fold(text);
    // picomatch lets a path end with a slash (`x.env/`), so an ending may be followed by one.
    if (ending !== undefined && !folded.endsWith(ending) && !folded.endsWith(`${ending}/`)) return false;
    if (words.some((word) => !folded.includes(word))) return false;
    matcher ??= picomatch(glob, options);
    return matcher(text);
  };
}

/** Characters that picomatch always matches as themselves, outside groups. */
const PLAIN = /[A-Za-z0-9._-]/;
/** Characters that make a group, an alternative or a negation, where a word need not be matched at all. */
const GROUPING = /[[\]{}()!+@,|]/;

/**
 * The runs of plain characters (with a letter or digit: `./` is a prefix picomatch drops) that
 * every text the glob matches contains, and the one it ends with when the glob ends with plain
 * characters (`*_TOKEN`, the `.env` of a name pattern). None when the glob has groups, braces, classes or a
 * negation, where a word may be optional: then every text is matched by the compiled glob.
 */
export function literalsOf(glob: string): { words: string[]; ending: string | undefined } {
  const words: string[] = [];
  let word = "";
  const end = () => {
    if (/[A-Za-z0-9]/.test(word)) words.push(word);
    word = "";
  };
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === "\\") {
      // An escaped character is itself, but stays out of the words: the words only need to be safe.
      end();
      i++;
    } else if (GROUPING.test(char)) {
      return { words: [], ending: undefined };
    } else if (PLAIN.test(char)) {
      word += char;
    } else {
      end();
    }
  }
  const last = word;
  end();
  return { words, ending: /[A-Za-z0-9]/.test(last) ? last : undefined };
}
