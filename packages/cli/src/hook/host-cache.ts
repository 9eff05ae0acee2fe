import { createHost, findConfigFile, type Host } from "@toolhost/core/config";
import { cliHostOptions } from "../_defaults.js";
import { HOOK_SERVICES, HookJudge } from "./decide.js";
import { type HostWatch, statesOf, watchHost } from "../_host-watch.js";

const MAX_HOSTS = 32;

/** A host loaded for one working directory, with the state of each file it was made from. */
interface Loaded {
  host: Host;
  judge: HookJudge;
  /** Whether what the host was made from changed since. */
  watch: HostWatch;
  /** Calls given this host that have not been decided yet: it is disposed only after them. */
  busy: number;
  /** Replaced or evicted: disposed once `busy` is 0. */
  retired: boolean;
}

/** What `judgeFor` gives: decides one call, with the host it was given for. */
export type Judge = Pick<HookJudge, "decide">;

/**
 * One loaded config per working directory, for `toolhost hook serve`. Before each use it checks
 * that the host is still what a fresh load would give, and loads anew when not: the config search
 * from that directory finds the same file (a config created nearer, or the one in use removed or
 * renamed, means another), and each file the host was made from (`Host.sources`: the config, the
 * plugins' packages and modules, the policy files and packages of `extends`) is as it was. Both are
 * a few synchronous `stat`s, so a tightened rule judges the very next call. A config that fails to
 * load is not kept: the next call tries again.
 */
export class HostCache {
  readonly #entries = new Map<string, Promise<Loaded>>();

  constructor(readonly configPath: string | undefined) {}

  /** The judge of a call from `cwd`, for one `decide`: a host replaced meanwhile is disposed after it. */
  async judgeFor(cwd: string): Promise<Judge> {
    let known: readonly string[] = [];
    for (;;) {
      const cached = this.#entries.get(cwd);
      if (!cached) break;
      const loaded = await cached.catch(() => undefined);
      // Replaced or dropped while this call waited: look again.
      if (this.#entries.get(cwd) !== cached) continue;
      if (loaded && loaded.watch.changed() === undefined) {
        // Most recently used last: the first entry is the one evicted.
        this.#entries.delete(cwd);
        this.#entries.set(cwd, cached);
        return lease(loaded);
      }
      this.#entries.delete(cwd);
      retire(cached);
      known = loaded?.host.sources ?? [];
      break;
    }
    if (this.#entries.size >= MAX_HOSTS) this.#evictOldest();
    const loading = this.#load(cwd, known);
    this.#entries.set(cwd, loading);
    // A config error is not kept: the next call tries again, after the user fixed the file.
    loading.catch(() => {
      if (this.#entries.get(cwd) === loading) this.#entries.delete(cwd);
    });
    return lease(await loading);
  }

  /**
   * Loads the host for `cwd`. The files the last host was made from (and the config the search
   * finds) are looked at before loading, so a change made while loading shows at the next call;
   * only files new to this host are looked at after.
   */
  async #load(cwd: string, known: readonly string[]): Promise<Loaded> {
    const found = this.configPath === undefined ? findConfigFile(cwd) : undefined;
    const before = statesOf([...known, ...(found ? [found] : [])]);
    // The approvals plugin too, for the calls asked on the page (it taps no hook: it only offers the service).
    const host = await createHost({ ...cliHostOptions(cwd, this.configPath), onlyProviding: [...HOOK_SERVICES, "approvals"] });
    // The server lives on while the hosts run what it allowed: it holds the sandbox's proxy for them.
    return { host, judge: new HookJudge(host, { holds: true }), watch: watchHost(host, cwd, this.configPath, before), busy: 0, retired: false };
  }

  #evictOldest(): void {
    const [oldest] = this.#entries;
    if (!oldest) return;
    this.#entries.delete(oldest[0]);
    retire(oldest[1]);
  }

  async close(): Promise<void> {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    for (const entry of entries) await (await entry.catch(() => undefined))?.host.harness.dispose().catch(() => undefined);
  }
}

/** One use of a host: counted from now (no await between) until its decision is made. */
function lease(loaded: Loaded): Judge {
  loaded.busy += 1;
  let used = false;
  return {
    async decide(hookHost, call, confine, page) {
      if (used) throw new Error("a judge from HostCache decides one call");
      used = true;
      try {
        return await loaded.judge.decide(hookHost, call, confine, page);
      } finally {
        loaded.busy -= 1;
        if (loaded.retired && loaded.busy === 0) void loaded.host.harness.dispose().catch(() => undefined);
      }
    },
  };
}

/** A host no longer kept: disposed now, or after the calls it was given for. */
function retire(entry: Promise<Loaded>): void {
  void entry.then(
    (loaded) => {
      loaded.retired = true;
      if (loaded.busy === 0) return loaded.host.harness.dispose().catch(() => undefined);
      return undefined;
    },
    () => undefined,
  );
}
