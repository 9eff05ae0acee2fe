// Any refusal exits 2, whatever the tool's own code: a call that ended before its tool ran (a
// tool's access declaration refused it: tool-fs's outside-the-root), or a result that says
// `refused: true`; an error of the tool itself exits 1.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { project, removeDir, tempDir, toolhost, writeConfig } from "./_helpers.js";

let dir: string;
beforeEach(() => {
  dir = project(tempDir());
  writeConfig(dir, { plugins: ["./plugins/refusing-plugin.mjs", "@toolhost/tool-fs"] });
});
afterEach(() => removeDir(dir));

describe("exit codes of toolhost call", () => {
  it("exits 2 when the tool's access declaration refuses the call (its own code), with the refusal on stderr", async () => {
    const run = await toolhost(["call", "guarded", '{"path": "/etc/passwd"}'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("Refused: /etc/passwd is outside the folder.");
  });

  it("exits 2 for tool-fs's outside-the-root", async () => {
    const run = await toolhost(["call", "read", '{"path": "/etc/hostname"}'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("outside the root");
  });

  it("exits 2 when the result of a running tool says refused", async () => {
    const run = await toolhost(["call", "guarded", '{"path": "locked"}'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Refused: locked is locked");
  });

  it("exits 1 for an error of the tool, with its text on stdout, and 0 when done", async () => {
    const broken = await toolhost(["call", "guarded", '{"path": "broken"}'], { cwd: dir });
    expect(broken.code).toBe(1);
    expect(broken.stdout).toBe("it broke\n");
    const done = await toolhost(["call", "guarded", '{"path": "notes"}'], { cwd: dir });
    expect(done.code).toBe(0);
    expect(done.stdout).toBe("read notes\n");
  });
});
