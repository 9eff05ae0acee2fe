// Hard links in the writable folders under the minimal root: a file whose other name lies outside
// what the call may read reads as empty, unless it is proven a package-store copy (pnpm's); beyond
// the bounds the call runs and its notes say the links were only declared. Real bubblewrap, real
// pnpm stores (a temporary one, and this machine's through a real `pnpm install --offline`).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentHarness } from "@toolhost/core";
import { beforeEach, describe, expect, it } from "vitest";
import bashPlugin from "../src/index.js";
import { cleanupsAfterEach, runBash as bash, tempFolder } from "./_helpers.js";

let ws: string;
let outside: string;
const cleanups = cleanupsAfterEach();
beforeEach(() => {
  ws = realpathSync(tempFolder().dir);
  // On the same file system as the workspace (a hard link needs it), and not shown by the minimal root.
  outside = realpathSync(mkdtempSync(join("/tmp", "tool-bash-links-outside-")));
  cleanups.push(() => rmSync(ws, { recursive: true, force: true }), () => rmSync(outside, { recursive: true, force: true }));
});

async function harnessWith(options: Record<string, unknown> = {}): Promise<AgentHarness> {
  const harness = new AgentHarness({ cwd: ws, workspace: ws });
  await harness.use(bashPlugin, { sandbox: "required", ...options });
  cleanups.push(() => harness.dispose());
  return harness;
}

/** A pnpm-style store under `$PNPM_HOME/store` (this process's environment, as the host's), holding `content` by its SHA-512. */
function storeFile(pnpmHome: string, content: string): string {
  const hex = createHash("sha512").update(content).digest("hex");
  const folder = join(pnpmHome, "store", "v10", "files", hex.slice(0, 2));
  mkdirSync(folder, { recursive: true });
  const path = join(folder, hex.slice(2));
  writeFileSync(path, content);
  return path;
}

describe("hard links under the minimal root", { timeout: 120_000 }, () => {
  it("shows a proven pnpm-store copy and covers a link to any other file outside", async () => {
    const pnpmHome = join(outside, "pnpm");
    const previous = process.env.PNPM_HOME;
    process.env.PNPM_HOME = pnpmHome;
    cleanups.push(() => {
      if (previous === undefined) delete process.env.PNPM_HOME;
      else process.env.PNPM_HOME = previous;
    });
    const stored = storeFile(pnpmHome, "module.exports = 'from the store';\n");
    mkdirSync(join(ws, "node_modules", ".pnpm", "pkg@1.0.0", "node_modules", "pkg"), { recursive: true });
    const index = join(ws, "node_modules", ".pnpm", "pkg@1.0.0", "node_modules", "pkg", "index.js");
    linkSync(stored, index);
    writeFileSync(join(outside, "private.txt"), "PRIVATE_CONTENT_41\n");
    linkSync(join(outside, "private.txt"), join(ws, "looks-harmless.txt"));
    // The secret linked into the store under another file's hash is no store copy.
    const decoy = storeFile(pnpmHome, "decoy\n");
    rmSync(decoy);
    linkSync(join(outside, "private.txt"), decoy);
    const harness = await harnessWith();
    const result = await bash(harness, `node -e "console.log(require('${index}'))"; cat looks-harmless.txt; echo end`);
    expect(result.text).toContain("from the store");
    expect(result.text).not.toContain("PRIVATE_CONTENT_41");
    expect(result.details.sandbox.hardLinks).toMatchObject({ files: 2, storeCopies: 1, hidden: [join(ws, "looks-harmless.txt")] });
  });

  it("beyond the bound of covered files, the call still runs and its notes say the links are only declared", async () => {
    for (let index = 0; index < 300; index += 1) {
      writeFileSync(join(outside, `f${index}.txt`), `outside ${index}\n`);
      linkSync(join(outside, `f${index}.txt`), join(ws, `f${index}.txt`));
    }
    const harness = await harnessWith();
    const result = await bash(harness, "cat f0.txt");
    expect(result.isError).toBe(false);
    expect(result.text).toContain("outside 0");
    expect(result.text).toContain("[sandbox: 300 files in the writable folders are hard links to files elsewhere, and this call did not cover them: 300 of them are no package-store copies, more than the 256 the sandbox covers.");
    expect(result.details.sandbox.hardLinks).toMatchObject({ files: 300, hidden: [], declaredOnly: expect.stringContaining("more than the 256") });
  });

  it("a real pnpm install (offline, from this machine's store) works in the sandbox: its files are shown, its build runs", async () => {
    writeFileSync(join(ws, "package.json"), JSON.stringify({ name: "t", version: "1.0.0", private: true, dependencies: { picomatch: "*" }, scripts: { build: "node build.js" } }));
    writeFileSync(join(ws, "build.js"), "const pm = require('picomatch'); require('fs').writeFileSync('out.txt', String(pm.isMatch('a.js', '*.js')));\n");
    execFileSync("pnpm", ["install", "--offline", "--silent"], { cwd: ws, stdio: "pipe", timeout: 60_000 });
    const harness = await harnessWith();
    const result = await bash(harness, "head -c 200 node_modules/picomatch/package.json; echo; node build.js && cat out.txt");
    expect(result.isError).toBe(false);
    expect(result.text).toContain('"name": "picomatch"');
    expect(result.text.trim().endsWith("true")).toBe(true);
    expect(result.details.sandbox.hardLinks?.hidden).toEqual([]);
    expect(result.details.sandbox.hardLinks?.storeCopies).toBeGreaterThan(0);
    expect(result.details.sandbox.hardLinks?.declaredOnly).toBeUndefined();
  });
});
