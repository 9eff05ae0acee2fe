// `deniedReads`: what the policy denies to read outside the folders a sandbox confines a call to,
// as the existing paths a sandbox covers (real files in temp folders, a temp HOME).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPolicy, type PolicyOptions } from "../src/index.js";

let base = "";
let ws = "";
let home = "";
const savedHome = process.env.HOME;
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-denied-")));
  ws = join(base, "ws");
  home = join(base, "home");
  mkdirSync(ws);
  mkdirSync(join(home, ".ssh"), { recursive: true });
  writeFileSync(join(home, ".ssh", "id_rsa"), "KEY\n");
  writeFileSync(join(home, "notes.txt"), "fine\n");
  process.env.HOME = home;
});
afterEach(() => {
  process.env.HOME = savedHome;
  rmSync(base, { recursive: true, force: true });
});

const policyOf = (rules: PolicyOptions["rules"]) => createPolicy({ rules }, { cwd: ws, workspace: ws });
const deny = (path: string) => ({ tool: "*", path, decision: "deny" as const });

describe("deniedReads", () => {
  it("names a home folder the policy denies, and a file by itself", async () => {
    const policy = policyOf([deny("~/.ssh/**"), deny(`${home}/notes.txt`), deny("~/.aws/**")]);
    // ~/.aws does not exist: nothing to hide (the sandbox keeps the home folder read-only).
    expect(await policy.deniedReads({ roots: [ws] })).toEqual({ paths: [join(home, ".ssh"), join(home, "notes.txt")], unbounded: [] });
  });

  it("names the real folder when the home folder is reached through a symlink", async () => {
    const link = join(base, "home-link");
    symlinkSync(home, link);
    process.env.HOME = link;
    const policy = policyOf([deny("~/.ssh/**")]);
    expect((await policy.deniedReads({ roots: [ws] })).paths).toEqual([join(home, ".ssh")]);
  });

  it("folds .. in an absolute pattern and follows a symlinked folder to where it leads", async () => {
    mkdirSync(join(base, "vault"));
    writeFileSync(join(base, "vault", "token"), "T\n");
    symlinkSync(join(base, "vault"), join(home, "vault-link"));
    const policy = policyOf([deny(`${ws}/../home/vault-link/**`)]);
    expect((await policy.deniedReads({ roots: [ws] })).paths).toEqual([join(base, "vault")]);
  });

  it("searches a folder for a wildcard after its fixed part (bounded), and names what it finds", async () => {
    for (const user of ["ann", "bob"]) mkdirSync(join(base, "homes", user, ".ssh"), { recursive: true });
    mkdirSync(join(base, "homes", "cy"));
    const policy = policyOf([deny(`${base}/homes/*/.ssh/**`)]);
    const { paths, unbounded } = await policy.deniedReads({ roots: [ws] });
    expect(paths.sort()).toEqual([join(base, "homes", "ann", ".ssh"), join(base, "homes", "bob", ".ssh")]);
    expect(unbounded).toEqual([]);
  });

  it("follows a symlinked folder in the search: a name through it is a name a command can use", async () => {
    mkdirSync(join(base, "mnt", "dan", ".ssh"), { recursive: true });
    mkdirSync(join(base, "homes", "ann", ".ssh"), { recursive: true });
    symlinkSync(join(base, "mnt", "dan"), join(base, "homes", "dan"));
    // A loop is walked once.
    symlinkSync(join(base, "homes"), join(base, "homes", "ann", "loop"));
    const policy = policyOf([deny(`${base}/homes/*/.ssh/**`)]);
    expect((await policy.deniedReads({ roots: [ws] })).paths.sort()).toEqual([join(base, "homes", "ann", ".ssh"), join(base, "mnt", "dan", ".ssh")]);
  });

  it("leaves what lies in the roots to protectedPaths", async () => {
    mkdirSync(join(ws, ".ssh"));
    const policy = policyOf([deny(`${ws}/.ssh/**`), deny("~/.ssh/**")]);
    expect((await policy.deniedReads({ roots: [ws] })).paths).toEqual([join(home, ".ssh")]);
    expect((await policy.deniedReads({ roots: [ws, home] })).paths).toEqual([]);
  });

  it("refuses to hide a folder that holds a root, saying what to do", async () => {
    const policy = policyOf([deny(`${base}/**`)]);
    await expect(policy.deniedReads({ roots: [ws] })).rejects.toThrow(/holds .*ws, a folder commands run in: a sandbox cannot hide it without hiding that folder\. Narrow the deny rule/);
  });

  it("lists what no paths can cover as unbounded", async () => {
    const policy = policyOf([deny(".env"), deny("/*/.ssh/**"), deny("~/.ssh/**"), { tool: "read", decision: "deny" as const, id: "no-reads" }]);
    expect((await policy.deniedReads({ roots: [ws] })).unbounded).toEqual([".env", "/*/.ssh/**", "every read (no-reads)"]);
  });

  it("counts the rules of the tool asked about beside those of every tool, and not those of another tool", async () => {
    const policy = policyOf([
      { tool: "bash", path: "~/.ssh/**", decision: "deny" },
      { tool: "edit", path: `${home}/notes.txt`, decision: "deny" },
    ]);
    expect((await policy.deniedReads({ roots: [ws], tool: "bash" })).paths).toEqual([join(home, ".ssh")]);
    expect((await policy.deniedReads({ roots: [ws] })).paths).toEqual([]);
  });

  it("refuses what is not a list of folders", async () => {
    const policy = policyOf([]);
    for (const bad of [undefined, { roots: "x" }, { roots: [""] }, { roots: ["a\0b"] }]) {
      await expect(policy.deniedReads(bad as never)).rejects.toThrow("deniedReads takes { roots: folders, tool? }");
    }
  });
});

describe("protectedPaths for confined calls", () => {
  it("leaves out what only a sandboxed: false rule denies", async () => {
    writeFileSync(join(ws, "a.key"), "");
    writeFileSync(join(ws, "b.key"), "");
    const policy = policyOf([{ tool: "*", path: "a.key", sandboxed: false, decision: "deny" }, deny("b.key")]);
    expect((await policy.protectedPaths(ws)).denyRead.sort()).toEqual([join(ws, "a.key"), join(ws, "b.key")]);
    expect((await policy.protectedPaths(ws, { confined: true })).denyRead).toEqual([join(ws, "b.key")]);
  });
});
