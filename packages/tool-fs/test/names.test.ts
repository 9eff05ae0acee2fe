import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentHarness, type ToolAccess } from "@toolhost/core";
import fsPlugin, { createFsTools, FsErrorCode } from "../src/index.js";
import { byName, linesOf, run, tempDir, textOf } from "./_helpers.js";

describe("paths a model types", () => {
  const cases: [string, string, string][] = [
    ["NFD on disk, NFC typed", "cafe\u0301.txt", "caf\u00e9.txt"],
    ["NFC on disk, NFD typed", "caf\u00e9.txt", "cafe\u0301.txt"],
    ["U+202F before AM (macOS screenshots)", "Screenshot 10.00\u202fAM.txt", "Screenshot 10.00 AM.txt"],
    ["a non-breaking space", "my\u00a0notes.txt", "my notes.txt"],
    ["a typographic apostrophe", "Bob\u2019s plan.txt", "Bob's plan.txt"],
  ];
  for (const [what, onDisk, typed] of cases) {
    it(`uses the one name that differs only invisibly (${what}) and says so`, async () => {
      const root = await tempDir();
      await writeFile(join(root, onDisk), "content\n");
      const { read } = byName(createFsTools({ cwd: root }));
      const result = await run(read, { path: typed });
      expect(result.isError).toBeUndefined();
      expect(linesOf(result)).toBe("content");
      expect(textOf(result)).toContain(`does not exist; used ${JSON.stringify(onDisk)}`);
      expect(result.details.path).toBe(join(root, onDisk));
    });
  }

  it("in a folder name too, for edit and ls", async () => {
    const root = await tempDir();
    await mkdir(join(root, "Bob\u2019s"));
    await writeFile(join(root, "Bob\u2019s", "f.txt"), "a\n");
    const { edit, ls } = byName(createFsTools({ cwd: root }));
    expect(textOf(await run(ls, { path: "Bob's" }))).toContain("f.txt");
    const edited = await run(edit, { path: "Bob's/f.txt", oldText: "a", newText: "b" });
    expect(edited.isError).toBeUndefined();
    expect(textOf(edited)).toContain("used");
  });

  it("lists several look-alikes with their code points instead of guessing", async () => {
    const root = await tempDir();
    await writeFile(join(root, "Bob\u2019s.txt"), "1\n");
    await writeFile(join(root, "Bob\u02bcs.txt"), "2\n");
    const { read } = byName(createFsTools({ cwd: root }));
    const result = await run(read, { path: "Bob's.txt" });
    expect(result.details.code).toBe(FsErrorCode.NOT_FOUND);
    expect(textOf(result)).toContain("U+2019");
    expect(textOf(result)).toContain("U+02BC");
  });

  it("write creates the name as typed: it never guesses for a new file", async () => {
    const root = await tempDir();
    await writeFile(join(root, "Bob\u2019s.txt"), "1\n");
    const { write } = byName(createFsTools({ cwd: root }));
    const result = await run(write, { path: "Bob's.txt", content: "2\n" });
    expect(result.details).toMatchObject({ created: true, path: join(root, "Bob's.txt") });
  });

  it("declares the name it will really use, so a policy judges that file", async () => {
    const root = await tempDir();
    await writeFile(join(root, "Bob\u2019s.env"), "SECRET=1\n");
    const harness = new AgentHarness({ cwd: root });
    await harness.use(fsPlugin, {});
    const declared: (ToolAccess | undefined)[] = [];
    harness.hooks.beforeToolCall.tap("test:recorder", (ctx) => {
      declared.push(ctx.access);
      return undefined;
    });
    await harness.executeToolCalls([{ id: "1", name: "read", arguments: { path: "Bob's.env" } }]);
    expect(declared).toEqual([{ reads: [join(root, "Bob\u2019s.env")] }]);
  });
});
