// Issue 39, the classes own-unseen2 found allowed: a tilde of a named user (`~root/…`, bash expands
// it to that user's home), a variable assigned a tilde (`H=~; cat $H/.npmrc`), a file not there yet
// through a workspace link (judged where the link's folders lead), tar's long options abbreviated
// (`--absolute-na`, bsdtar's `--insecure`), git apply --unsafe-paths, a relative read after a cd to a
// folder known only at run time, an archive extracted into .git (hooks, settings), git settings that
// name a file git reads later (commit.template, core.excludesFile) or run a filter (interactive.diffFilter),
// and GIT_TRACE* set to a path (git appends its trace there); and cd to the repository's top, found as git finds it.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPolicy } from "../src/index.js";
import { decideRecommendedBash, makeWorkspace } from "./_helpers.js";

let ws = "";
let cleanup = () => {};
beforeAll(() => {
  ({ ws, cleanup } = makeWorkspace());
});
afterAll(() => cleanup());

const decide = (command: string, trusted = false) => decideRecommendedBash(ws, command, trusted);

const me = userInfo().username;

describe("never allowed unconfined", () => {
  for (const command of [
    `cat ~${me}/.bash_history`,
    `cat ~${me}/.npmrc`,
    "cat ~nobody/notes.txt",
    "cat ~someone-else/.ssh/id_rsa",
    "cat ~-/x.txt",
    "cat ~+/.env",
    "H=~; cat $H/.bash_history",
    "H=~/.npmrc; cat $H",
    "tar --absolute-na -xf sub/x.tar",
    "tar --abs --ext -f sub/x.tar",
    "bsdtar --insecure -xf sub/x.tar",
    "git apply --unsafe-paths sub/x.diff",
    "git apply --unsafe sub/x.diff",
    'cd "$X" && cat .npmrc',
    "cd ~root/.aws; head credentials",
    "tar -xf sub/h.tar -C .git",
    "tar --extract --file sub/h.tar --dir .git/",
    "unzip -o sub/h.zip -d .git",
    "cd .git && unzip -o ../sub/h.zip",
    "7z x sub/h.7z -o.git/hooks",
    "git config --local interactive.diffFilter 'sh -c id'",
    "git -c interactive.diffFilter='sh -c id' add -p",
    "git config commit.template ~/.ssh/id_rsa",
    "git config --local core.excludesFile ~/.aws/credentials",
    "git -c commit.template=$HOME/.netrc commit",
    "GIT_TRACE2=~/.bashrc git status",
    "GIT_TRACE_PACKET=/tmp/../root/.profile git fetch",
  ]) {
    it(command, () => {
      expect(decide(command).decision).not.toBe("allow");
      expect(decide(command, true).decision).not.toBe("allow");
    });
  }
});

describe("allowed", () => {
  for (const command of ["wc -l ~+/src/a.ts", "tar -xf sub/x.tar", "tar --extract --file=sub/x.tar -C sub/out", "git apply sub/x.diff", "git apply --check sub/x.diff", "H=src; cat $H/a.ts", "cd src && wc -l a.ts", "unzip -l sub/h.zip -d .git", "tar -tf sub/h.tar -C .git", "tar -xf sub/h.tar -C sub/unpacked", "git config commit.template .gitmessage", "GIT_TRACE=1 git status", "git config --get commit.template"]) {
    it(command, () => expect(decide(command).decision).toBe("allow"));
  }
});

describe('cd "$(git rev-parse --show-toplevel)": the folder git would print', () => {
  it("outside a repository git prints nothing and cd stays: the workspace's files are judged there", () => {
    expect(decide('cd "$(git rev-parse --show-toplevel)" && cat package.json').decision).toBe("allow");
    expect(decide('cd "$(git rev-parse --show-toplevel)" && cat .env').decision).toBe("deny");
  });

  it("in a repository whose top is above the workspace, reads are judged there", () => {
    const top = mkdtempSync(join(realpathSync(tmpdir()), "toolhost-top-"));
    try {
      mkdirSync(join(top, ".git"));
      mkdirSync(join(top, "app"));
      writeFileSync(join(top, "notes.txt"), "x\n");
      const policy = createPolicy({ extends: ["recommended"] }, { cwd: join(top, "app"), workspace: join(top, "app"), trustedWorkspace: true });
      const command = 'cd "$(git rev-parse --show-toplevel)" && cat notes.txt';
      const explanation = policy.decide({ tool: "bash", args: { command }, access: { commands: [{ command, cwd: join(top, "app") }] } });
      // The top is outside the workspace, in /tmp: a private place.
      expect(explanation.decision, explanation.reason).not.toBe("allow");
      expect(explanation.reason).toContain(join(top, "notes.txt"));
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });

  it("another substitution as cd's folder is known only at run time", () => {
    expect(decide('cd "$(git rev-parse --git-dir)" && cat config').decision).not.toBe("allow");
  });
});
