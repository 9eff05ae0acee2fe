import { createHash } from "node:crypto";
import { chmodSync, chownSync, linkSync, lstatSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isPackageStoreCopy, packageStoreFolders, projectStoreFolder } from "../src/index.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temporary HOME with a pnpm store (v10) and a project whose node_modules/.pnpm links into it. */
function storeAndProject(): { home: string; store: string; project: string; stored: (content: string, exec?: boolean) => { inStore: string; linked: string } } {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "core-store-")));
  made.push(home);
  const store = join(home, ".local", "share", "pnpm", "store");
  const project = join(home, "project");
  mkdirSync(join(project, "node_modules", ".pnpm"), { recursive: true });
  let count = 0;
  const stored = (content: string, exec = false) => {
    const hex = createHash("sha512").update(content).digest("hex");
    const folder = join(store, "v10", "files", hex.slice(0, 2));
    mkdirSync(folder, { recursive: true, mode: 0o755 });
    const inStore = join(folder, `${hex.slice(2)}${exec ? "-exec" : ""}`);
    writeFileSync(inStore, content);
    count += 1;
    const linked = join(project, "node_modules", ".pnpm", `file-${count}.js`);
    linkSync(inStore, linked);
    return { inStore, linked };
  };
  return { home, store, project, stored };
}

const env = (home: string) => ({ HOME: home, XDG_DATA_HOME: undefined, XDG_CACHE_HOME: undefined, PNPM_HOME: undefined });

describe("package stores (isPackageStoreCopy)", () => {
  it("proves a pnpm store copy: named by the SHA-512 of its content, the same file, in a store of this user", () => {
    const { home, stored } = storeAndProject();
    const stores = packageStoreFolders(env(home));
    expect(stores).toContain(join(home, ".local", "share", "pnpm", "store"));
    const plain = stored("module.exports = 1;\n");
    const exec = stored("#!/usr/bin/env node\n", true);
    expect(isPackageStoreCopy(plain.linked, lstatSync(plain.linked), stores)).toBe(true);
    expect(isPackageStoreCopy(exec.linked, lstatSync(exec.linked), stores)).toBe(true);
  });

  it("refuses the rest: a file linked under a name that is not its hash, a changed copy, a file of one name, a store others can write or another user owns, no store", () => {
    const { home, store, project, stored } = storeAndProject();
    const stores = packageStoreFolders(env(home));
    // A secret linked into the store under the hash of something else.
    const secret = join(home, "secret.txt");
    writeFileSync(secret, "TOKEN=abc\n");
    const decoy = createHash("sha512").update("public").digest("hex");
    mkdirSync(join(store, "v10", "files", decoy.slice(0, 2)), { recursive: true });
    linkSync(secret, join(store, "v10", "files", decoy.slice(0, 2), decoy.slice(2)));
    const link = join(project, "node_modules", ".pnpm", "secret.js");
    linkSync(secret, link);
    expect(isPackageStoreCopy(link, lstatSync(link), stores)).toBe(false);
    // A store copy changed in place: its name is no longer its hash (and the proof is made again: the change time moved).
    const changed = stored("original\n");
    expect(isPackageStoreCopy(changed.linked, lstatSync(changed.linked), stores)).toBe(true);
    writeFileSync(changed.linked, "changed\n");
    expect(isPackageStoreCopy(changed.linked, lstatSync(changed.linked), stores)).toBe(false);
    // One name only.
    const single = join(project, "single.js");
    writeFileSync(single, "x");
    expect(isPackageStoreCopy(single, lstatSync(single), stores)).toBe(false);
    // Not in any store asked about.
    const copy = stored("elsewhere\n");
    expect(isPackageStoreCopy(copy.linked, lstatSync(copy.linked), ["/nonexistent/store"])).toBe(false);
  });

  it("trusts no store that another user can write or owns", () => {
    const { home, store, stored } = storeAndProject();
    const stores = packageStoreFolders(env(home));
    const open = stored("group-writable\n");
    const folder = join(store, "v10", "files", createHash("sha512").update("group-writable\n").digest("hex").slice(0, 2));
    chmodSync(folder, 0o775);
    expect(isPackageStoreCopy(open.linked, lstatSync(open.linked), stores)).toBe(false);
    const owned = stored("owned by nobody\n");
    const other = join(store, "v10", "files", createHash("sha512").update("owned by nobody\n").digest("hex").slice(0, 2));
    chownSync(other, 65534, 65534);
    expect(isPackageStoreCopy(owned.linked, lstatSync(owned.linked), stores)).toBe(false);
  });

  it("reads a project's storeDir from node_modules/.modules.yaml", () => {
    const { project, store } = storeAndProject();
    writeFileSync(join(project, "node_modules", ".modules.yaml"), `{\n  "layoutVersion": 5,\n  "storeDir": "${join(store, "v10")}",\n  "virtualStoreDir": ".pnpm"\n}\n`);
    expect(projectStoreFolder(project)).toBe(join(store, "v10"));
    expect(projectStoreFolder(join(project, "none"))).toBeUndefined();
  });
});
