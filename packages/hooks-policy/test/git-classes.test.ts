// Issue 39: git's destructive and harmless spellings, git grep's tracked files, find's -exec words
// and parallel's known input, through createPolicy().decide, unconfined (trusted and not) and confined.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPolicy } from "../src/index.js";
import { makeWorkspace } from "./_helpers.js";
import { contained } from "./inventory-classes.js";

let ws = "";
let cleanup = () => {};
beforeAll(() => {
  ({ ws, cleanup } = makeWorkspace());
});
afterAll(() => cleanup());

type Mode = "open" | "trusted" | "confined";
function decide(command: string, mode: Mode, cwd = ws) {
  const policy = createPolicy({ extends: ["recommended"] }, { cwd, workspace: ws, trustedWorkspace: mode === "trusted" });
  return policy.decide({ tool: "bash", args: { command }, access: { commands: [{ command, cwd }], ...(mode === "confined" && { confinement: contained(ws) }) } });
}

/** Asked in every mode: they lose work the sandbox does not protect (it writes the workspace). */
const DISCARDING = [
  "git checkout HEAD -- src/a.ts",
  "git checkout main src/a.ts out.txt",
  "git checkout HEAD src/a.ts",
  "git checkout src/a.ts",
  "git checkout -q main src/a.ts",
  "git checkout --forc main",
  "git checkout -tf main",
  "git checkout -p",
  "git checkout HEAD --pathspec-from-file=list.txt",
  "git checkout '*.ts'",
  "git checkout --unknown main src/a.ts",
  "git restore src/a.ts",
  "git restore --staged --worktree src/a.ts",
  "git restore -S -W src/a.ts",
  "git restore --staged --no-staged src/a.ts",
  "git reset --hard",
  "git reset --har HEAD~1",
  "git reset --merge",
  "git reset --keep HEAD~2",
  "git clean -f",
  "git clean -d",
  "git clean -n --no-dry-run -f",
  "git clean --forc -x",
  "git worktree remove ../wt",
  "git worktree remove -f /tmp/wt",
  "git update-ref -d refs/heads/main",
  "git update-ref --stdin",
  "git update-ref refs/heads/main 0000000000000000000000000000000000000000",
  "git symbolic-ref --delete HEAD",
  "git reflog expire --expire=now --all",
  "git reflog delete HEAD@{1}",
  "git gc --prune=now",
  "git gc --pru=all",
  "git -c gc.pruneExpire=now gc",
  "git -c gc.reflogExpire=now commit -m x",
  "git prune",
  "git repack -a -d",
  "git rm -f src/a.ts",
  "git rm -rf src",
  "git read-tree -u --reset HEAD",
  "git rebase main",
  "git rebase -i HEAD~3",
  "git rebase --skip",
  "git stash drop",
  "parallel git clean -f ::: .",
];

/** Allowed in every mode: a branch switch, what only unstages, lists or previews. */
const HARMLESS = [
  "git checkout main",
  "git checkout -b feature",
  "git checkout -",
  "git checkout --track=direct main",
  "git checkout -U3 main",
  "git switch main",
  "git restore --staged src/a.ts",
  "git restore -S .",
  "git restore --help",
  "git reset",
  "git reset HEAD",
  "git reset -q HEAD -- src/a.ts",
  "git reset --soft HEAD~1",
  "git clean -n",
  "git clean --dry-run -d",
  "git clean -ndfx",
  "git rebase --continue",
  "git rebase --abort",
  "git reflog",
  "git reflog -10",
  "git reflog expire --dry-run --expire=now --all",
  "git gc",
  "git gc --prune",
  "git prune --dry-run",
  "git repack -a -d -k",
  "git rm --cached -rf node_modules",
  "git worktree list",
  "git worktree prune",
  "git stash list",
  "git remote -v",
  "git remote",
  "find . -exec echo -delete \\; -print",
  "find src -name '*.ts' -exec wc -l {} +",
  "parallel find . -name foo ::: ok",
  "parallel echo ::: a b c",
];

describe("git's spellings that discard work or history", () => {
  for (const mode of ["open", "trusted", "confined"] as const) {
    it.each(DISCARDING)(`${mode}: %s asks`, (command) => {
      const explanation = decide(command, mode);
      expect(explanation.decision, explanation.reason).not.toBe("allow");
    });
    it.each(HARMLESS)(`${mode}: %s is allowed`, (command) => {
      const explanation = decide(command, mode);
      expect(explanation.decision, explanation.reason).toBe("allow");
    });
  }
  it("says what is lost and what to do", () => {
    const explanation = decide("git checkout HEAD -- src/a.ts", "open");
    expect(explanation.reason).toContain("kind discards");
    expect(explanation.reason).toContain("their uncommitted changes are lost");
  });
  it.each(["git checkout --unknown -q main", "git reset --frobnicate", "git clean -n --later"])("open: an option the inventory does not know for %s asks, naming it", (command) => {
    const explanation = decide(command, "open");
    expect(explanation.decision).toBe("ask");
    expect(explanation.reason).toMatch(/does not know the option --(unknown|frobnicate|later)/);
  });
  it("a rule of the user's that names the command allows it (a write the layer above decides)", () => {
    const policy = createPolicy({ extends: ["recommended"], rules: [{ tool: "bash", command: "git checkout *", decision: "allow" }] }, { cwd: ws, workspace: ws });
    expect(policy.decide({ tool: "bash", args: { command: "git checkout HEAD -- src/a.ts" }, access: { commands: [{ command: "git checkout HEAD -- src/a.ts", cwd: ws }] } }).decision).toBe("allow");
  });
  it("parallel with no command runs each argument as a command line", () => {
    expect(decide("parallel ::: 'rm -rf /'", "open").decision).toBe("deny");
    expect(decide("parallel ::: 'git reset --hard'", "confined").decision).toBe("ask");
  });
});

describe("git grep reads the files git tracks", () => {
  it("in no repository it is judged as reading every file (git refuses, unless a config sets grep.fallbackToNoIndex)", () => {
    const explanation = decide("git grep -n SECRET", "open");
    expect(explanation.decision).not.toBe("allow");
    expect(explanation.reason).toContain(".env");
  });
  it("in a repository whose index holds .env it asks; when .env is not tracked it is allowed", () => {
    const repo = join(ws, "repo");
    mkdirSync(repo);
    writeFileSync(join(repo, ".env"), "SECRET=1\n");
    writeFileSync(join(repo, "a.ts"), "export {};\n");
    const git = (...args: string[]) => execFileSync("git", ["-C", repo, ...args], { env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_SYSTEM: "/dev/null" } });
    git("init", "-q");
    git("add", "a.ts");
    expect(decide("git grep -n SECRET", "open", repo).decision).toBe("allow");
    expect(decide("git grep --untracked -n SECRET", "open", repo).decision).not.toBe("allow");
    git("add", "-f", ".env");
    const tracked = decide("git grep -n SECRET", "open", repo);
    expect(tracked.decision).not.toBe("allow");
    expect(tracked.reason).toContain(".env");
  });
});
