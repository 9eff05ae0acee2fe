import { createHost, findConfigFile, type Host } from "@toolhost/core/config";
import { cliHostOptions } from "./_defaults.js";
import { HookJudge } from "./_hook-decide.js";
import { type HostWatch, statesOf, watchHost } from "./_host-watch.js";

const MAX_HOSTS = 32;

/** A host loaded for one working directory, with the state of each file it was made from. */
interface Loaded {
  host: Host;
  judge: HookJudge;
  /** Whether what the host was made from changed since. */
  watch: HostWatch;
}

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

  async judgeFor(cwd: string): Promise<HookJudge> {
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
        return loaded.judge;
      }
      this.#entries.delete(cwd);
      dispose(cached);
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
    return (await loading).judge;
  }

  /**
   * Loads the host for `cwd`. The files the last host was made from (and the config the search
   * finds) are looked at before loading, so a change made while loading shows at the next call;
   * only files new to this host are looked at after.
   */
  async #load(cwd: string, known: readonly string[]): Promise<Loaded> {
    const found = this.configPath === undefined ? findConfigFile(cwd) : undefined;
    const before = statesOf([...known, ...(found ? [found] : [])]);
    const host = await createHost({ ...cliHostOptions(cwd, this.configPath), onlyProviding: "policy" });
    return { host, judge: new HookJudge(host), watch: watchHost(host, cwd, this.configPath, before) };
  }

  #evictOldest(): void {
    const [oldest] = this.#entries;
    if (!oldest) return;
    this.#entries.delete(oldest[0]);
    dispose(oldest[1]);
  }

  async close(): Promise<void> {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    for (const entry of entries) await (await entry.catch(() => undefined))?.host.harness.dispose().catch(() => undefined);
  }
}

function dispose(entry: Promise<Loaded>): void {
  entry.then((loaded) => loaded.host.harness.dispose()).catch(() => undefined);
}
