import { globsOf, type PathAnchors } from "../paths/_paths.js";
import type { CompiledRule } from "./_rules.js";

/** Characters that make a glob: a pattern without them is a literal name or path. */
const GLOB = /[*?[\]{}()!+@\\]/;

/**
 * Path rules sorted by what a path must hold for them to match, so that a path is compared with
 * the few rules that can match it, not every one (recommended has some seventy): a name at any
 * depth by the path's segments (`.env`; `*.pem` by the segment's ending), an anchored pattern by
 * its literal beginning (`~/.ssh/`, `/etc/shadow`), kept by the first folder it names. What a rule
 * matches is still its own glob's to say.
 */
export class PathIndex {
  readonly #byName = new Map<string, CompiledRule[]>();
  /** `*SUFFIX` names, by SUFFIX. */
  readonly #bySuffix = new Map<string, CompiledRule[]>();
  /** Anchored patterns by the first folder of their beginning (`/etc/ssh/` under `etc`). */
  readonly #byTop = new Map<string, Array<[string, CompiledRule]>>();
  readonly #others: CompiledRule[] = [];

  constructor(
    readonly rules: readonly CompiledRule[],
    anchors: PathAnchors,
  ) {
    for (const rule of rules) this.#add(rule, anchors);
  }

  #add(rule: CompiledRule, anchors: PathAnchors): void {
    const pattern = rule.rule.path;
    if (pattern === undefined) {
      // A `control` rule's matcher is core's list, a few map look-ups a path: it is asked of every path.
      if (rule.path !== undefined) this.#others.push(rule);
      return;
    }
    const name = pattern.endsWith("/") && pattern.length > 1 ? pattern.slice(0, -1) : pattern;
    if (!name.includes("/")) {
      const suffix = /^\*([^/*?[\]{}()!+@\\]+)$/.exec(name)?.[1];
      if (!GLOB.test(name)) push(this.#byName, name, rule);
      else if (suffix !== undefined) push(this.#bySuffix, suffix, rule);
      else this.#others.push(rule);
      return;
    }
    for (const glob of globsOf(pattern, anchors)) {
      const at = glob.search(GLOB);
      const prefix = at === -1 ? glob : glob.slice(0, at);
      const top = /^\/([^/]+)\//.exec(prefix)?.[1] ?? (prefix.startsWith("/") && !prefix.slice(1).includes("/") && prefix.length > 1 ? prefix.slice(1) : undefined);
      if (top === undefined) this.#others.push(rule);
      else push(this.#byTop, top, [prefix, rule]);
    }
  }

  /** The rules that match `path`, in the order they are written. */
  matching(path: string): CompiledRule[] {
    const known = this.#matched.get(path);
    if (known !== undefined) return known.length === 0 ? [] : [...known];
    const hits = this.#match(path);
    if (this.#matched.size >= MAX_MATCHED) this.#matched.clear();
    this.#matched.set(path, hits);
    return hits.length === 0 ? [] : [...hits];
  }

  /**
   * What `matching` found, by path: a call judges the same path against the same index again and
   * again (as named and real, by its commands' words and redirects, call after call), and what
   * matches depends only on the path and the rules (every rule's matcher is a glob, a place or a
   * control file: nothing on disk). Each caller gets its own copy.
   */
  readonly #matched = new Map<string, readonly CompiledRule[]>();

  #match(path: string): CompiledRule[] {
    const found: CompiledRule[] = [...this.#others];
    let start = 0;
    let first = true;
    while (start <= path.length) {
      let end = path.indexOf("/", start);
      if (end === -1) end = path.length;
      if (end > start) {
        const segment = path.slice(start, end);
        if (first) this.#anchored(path, segment, found);
        first = false;
        for (const rule of this.#byName.get(segment) ?? []) found.push(rule);
        if (this.#bySuffix.size > 0) this.#suffixed(segment, found);
      }
      start = end + 1;
    }
    if (found.length === 0) return found;
    const hits = found.filter((rule, index) => found.indexOf(rule) === index && (rule.path as (path: string) => boolean)(path));
    return hits.length > 1 ? hits.sort((a, b) => a.order - b.order) : hits;
  }

  #anchored(path: string, top: string, found: CompiledRule[]): void {
    for (const [prefix, rule] of this.#byTop.get(top) ?? []) {
      if (path.startsWith(prefix) || (prefix.endsWith("/") && path.length === prefix.length - 1 && prefix.startsWith(path))) found.push(rule);
    }
  }

  /** `*.pem` matches a segment ending with `.pem`: each ending of the segment that starts with a dot, and the whole, is looked up. */
  #suffixed(segment: string, found: CompiledRule[]): void {
    for (const [suffix, rules] of this.#bySuffix) if (segment.endsWith(suffix)) found.push(...rules);
  }

  /** Whether a rule matches `path`. */
  any(path: string): boolean {
    return this.matching(path).length > 0;
  }
}

/** How many paths an index remembers what it matched for, at most (then it starts again). */
const MAX_MATCHED = 4096;

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
