import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentHarness } from "@toolhost/core";
import { createHost } from "@toolhost/core/config";
import { describe, expect, it } from "vitest";
import fsPlugin, { createReadTool, FsErrorCode } from "../src/index.js";
import { run, tempDir, textOf } from "./_helpers.js";

/** A project: `top.txt` at its root, `sub/here.txt` in the subfolder a host is started in. */
async function project(): Promise<{ root: string; sub: string }> {
  const root = await tempDir();
  const sub = join(root, "packages", "app");
  await mkdir(sub, { recursive: true });
  await writeFile(join(root, "top.txt"), "top\n");
  await writeFile(join(sub, "here.txt"), "here\n");
  return { root, sub };
}

async function call(harness: AgentHarness, name: string, args: Record<string, unknown>) {
  const [result] = await harness.executeToolCalls([{ id: "1", name, arguments: args }]);
  if (!result) throw new Error("no result");
  return result as unknown as { content: { type: string; text?: string }[]; details: Record<string, unknown>; isError: boolean };
}

describe("started in a subfolder, the roots are the workspace", () => {
  it("by default the root is the harness's workspace; relative paths still resolve against cwd", async () => {
    const { root, sub } = await project();
    const harness = new AgentHarness({ cwd: sub, workspace: root });
    await harness.use(fsPlugin, {});
    expect(textOf(await call(harness, "read", { path: "here.txt" }))).toContain("here");
    const up = await call(harness, "read", { path: "../../top.txt" });
    expect(up.isError).toBe(false);
    expect(textOf(up)).toContain("top");
    expect(textOf(await call(harness, "ls", {}))).toBe("here.txt");
    const outside = await call(harness, "read", { path: "../../../x.txt" });
    expect(outside.details.code).toBe(FsErrorCode.OUTSIDE_ROOTS);
    expect(textOf(outside)).toContain(`outside the root ${root}`);
  });

  it("relative roots and ${workspace} in the options resolve against the workspace, not cwd", async () => {
    const { root, sub } = await project();
    await mkdir(join(root, "docs"));
    await writeFile(join(root, "docs", "guide.md"), "guide\n");
    const dot = new AgentHarness({ cwd: sub, workspace: root });
    await dot.use(fsPlugin, { roots: ["."] });
    expect((await call(dot, "read", { path: "../../top.txt" })).isError).toBe(false);
    const docs = new AgentHarness({ cwd: sub, workspace: root });
    await docs.use(fsPlugin, { roots: ["${workspace}/docs"] });
    expect(textOf(await call(docs, "read", { path: "../../docs/guide.md" }))).toContain("guide");
    expect((await call(docs, "read", { path: "here.txt" })).details.code).toBe(FsErrorCode.OUTSIDE_ROOTS);
  });

  it("a host made from a config file in the project's folder, started in a subfolder, has the project as root", async () => {
    const { root, sub } = await project();
    await writeFile(join(root, "toolhost.config.json"), JSON.stringify({ plugins: ["@toolhost/tool-fs"] }));
    // The config names the package; it is found from this package's own folder (its built dist).
    const packageFolder = join(dirname(fileURLToPath(import.meta.url)), "..");
    const host = await createHost({ cwd: sub, resolveFrom: [packageFolder] });
    try {
      expect(host.workspace).toBe(root);
      const [result] = await host.harness.executeToolCalls([{ id: "1", name: "read", arguments: { path: "../../top.txt" } }]);
      expect(result?.isError).toBe(false);
      expect(textOf(result as never)).toContain("top");
    } finally {
      await host.harness.dispose();
    }
  });

  it("the factories take workspace too; without it the root is cwd, as before", async () => {
    const { root, sub } = await project();
    expect((await run(createReadTool({ cwd: sub, workspace: root }), { path: "../../top.txt" })).isError).toBeFalsy();
    const alone = await run(createReadTool({ cwd: sub }), { path: "../../top.txt" });
    expect(alone.details.code).toBe(FsErrorCode.OUTSIDE_ROOTS);
  });
});
