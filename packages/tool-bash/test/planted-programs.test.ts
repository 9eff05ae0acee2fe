import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runIsolated, tempFolder } from "./_helpers.js";

// The host never runs what a call can write: a call plants `bwrap`, `mkfifo`, `nsenter`,
// `prlimit`, `bash` and `sh` in the workspace's node_modules/.bin, where `npx`, `npm exec` and
// `pnpm exec` put PATH's first folder; the next calls still run the system's programs. Each
// planted program writes its name to a folder outside the sandbox (which the sandbox does not
// show) and then runs the real one: its name there means the host ran it.

const PLANTED = ["bwrap", "mkfifo", "nsenter", "prlimit", "bash", "sh"];

let scratch: { dir: string; remove: () => void };
let witness: string;
beforeEach(() => {
  scratch = tempFolder();
  chmodSync(scratch.dir, 0o755);
  // Outside /tmp (the sandbox's own there) and writable by both uids.
  witness = mkdtempSync("/var/tmp/tool-bash-planted-");
  chmodSync(witness, 0o777);
});
afterEach(() => {
  scratch.remove();
  rmSync(witness, { recursive: true, force: true });
});

function plantedWorkspace(owner: number): { workspace: string; bin: string } {
  const workspace = join(scratch.dir, `ws-${owner}`);
  const bin = join(workspace, "node_modules", ".bin");
  mkdirSync(bin, { recursive: true });
  for (const name of PLANTED) {
    const real = `/usr/bin/${name}`;
    writeFileSync(join(bin, name), `#!/usr/bin/sh\n{ echo ran > ${witness}/${name}; } 2>/dev/null\nexec ${real} "$@"\n`, { mode: 0o755 });
  }
  if (owner !== 0) for (const path of [workspace, join(workspace, "node_modules"), bin, ...PLANTED.map((name) => join(bin, name))]) chownSync(path, owner, owner);
  return { workspace, bin };
}

describe.each([
  ["root", 0],
  ["nobody", 65534],
] as const)("programs planted on PATH, as %s", { timeout: 120_000 }, (_uid, owner) => {
  it("are never run by the host: bwrap, mkfifo, nsenter and prlimit are the system's", () => {
    const { workspace, bin } = plantedWorkspace(owner);
    const PATH = `${bin}:${process.env.PATH}`;
    const home: Record<string, string> = owner === 0 ? {} : { HOME: workspace, XDG_CACHE_HOME: join(workspace, ".cache") };
    // The process's PATH (as `npx toolhost` sets it) and the tool's own env option alike.
    const run = (options: Record<string, unknown>) =>
      runIsolated(scratch.dir, { workspace, options: { sandbox: "required", env: { PATH }, ...options }, commands: ["echo confined > out.txt && cat out.txt", "echo second"] }, { nobody: owner !== 0, env: { PATH, ...home } });
    for (const ran of [run({}), run({ network: "proxy" }), run({ root: "host" })]) {
      expect(ran.results.map((result) => result.text)).toEqual(["confined", "second"]);
      expect(ran.results[0]?.sandbox).toMatchObject({ enforced: true, backend: expect.stringMatching(/\(\/usr\/bin\/bwrap\)$/) });
    }
    // The shell the sandbox runs may be the planted one (it runs inside, confined): nothing it wrote reached this folder.
    expect(readdirSync(witness)).toEqual([]);
  });
});
