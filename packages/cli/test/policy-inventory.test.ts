// Issue 33's classes (hooks-policy's test/inventory-classes.ts) through `toolhost policy explain -
// --json`: the built CLI and recommended, each command's access given unconfined and confined (the
// minimal root, the network through the policy's proxy, limits). The CLI's host trusts the
// project's folder today (core's createHost), so the unconfined decisions are those of a trusted
// workspace.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorkspace } from "../../hooks-policy/test/_helpers.js";
import { classWorkspace, contained, INVENTORY_CLASSES } from "../../hooks-policy/test/inventory-classes.js";
import { jsonLines, project, toolhost, writeConfig } from "./_helpers.js";

let dir = "";
let cleanup = () => {};
beforeAll(() => {
  ({ ws: dir, cleanup } = makeWorkspace());
  classWorkspace(dir);
  project(dir);
  writeConfig(dir, { plugins: [["@toolhost/hooks-policy", { extends: ["recommended"] }]] });
});
afterAll(() => cleanup());

for (const each of INVENTORY_CLASSES) {
  describe(`toolhost policy explain: ${each.name}`, () => {
    let open: Array<{ decision?: string; reason?: string }> = [];
    let confined: Array<{ decision?: string; reason?: string; parts?: Array<{ note?: string }> }> = [];
    beforeAll(async () => {
      const lines = (boxed: boolean) =>
        each.cases
          .map((one) => JSON.stringify({ tool: "bash", args: { command: one.command }, access: { commands: [{ command: one.command, cwd: dir }], ...(boxed && { confinement: contained(dir) }) } }))
          .join("\n");
      for (const boxed of [false, true]) {
        const result = await toolhost(["--cwd", dir, "policy", "explain", "-", "--json"], { cwd: dir, input: lines(boxed) });
        expect(result.stderr).toBe("");
        const decisions = jsonLines(result.stdout) as typeof confined;
        expect(decisions).toHaveLength(each.cases.length);
        if (boxed) confined = decisions;
        else open = decisions;
      }
    }, 90_000);

    it.each(each.cases.map((one, index) => ({ ...one, index })))("$command: unconfined (trusted) and confined", ({ index, open: untrusted, trusted, confined: boxed }) => {
      expect(open[index]?.decision, open[index]?.reason).toBe(trusted ?? untrusted);
      expect(confined[index]?.decision, confined[index]?.reason).toBe(boxed);
    });
  });
}

describe("toolhost policy explain says which knowledge decided", () => {
  it("an unknown program: ask, naming it and how to teach it; confined, what of the confinement the decision relied on", async () => {
    const line = (boxed: boolean) => JSON.stringify({ tool: "bash", args: {}, access: { commands: [{ command: "frobnicate --all", cwd: dir }], ...(boxed && { confinement: contained(dir) }) } });
    const result = await toolhost(["--cwd", dir, "policy", "explain", "-", "--json"], { cwd: dir, input: `${line(false)}\n${line(true)}` });
    const [open, boxed] = jsonLines(result.stdout) as Array<{ decision: string; reason: string; parts: Array<{ note?: string }> }>;
    expect(open?.decision).toBe("ask");
    expect(open?.reason).toContain("the inventory does not know frobnicate (teach it: a rule { command: \"frobnicate *\", decision: allow }, or programs: { frobnicate: read-only } in a policy)");
    expect(boxed?.decision).toBe("allow");
    expect(boxed?.parts[0]?.note).toContain("the call runs confined (it can write only inside the workspace, and every connection goes through the policy's proxy)");
    expect(boxed?.parts[0]?.note).toContain("a minimal root (only the system, the workspace exist, no host socket), limits: 512 processes, 8192 MiB of memory");
  }, 60_000);

  it("an embedded command language: sed's `e`", async () => {
    const result = await toolhost(["--cwd", dir, "policy", "explain", "-", "--json"], { cwd: dir, input: JSON.stringify({ tool: "bash", args: {}, access: { commands: [{ command: "sed 's/.*/date/e' out.txt", cwd: dir }] } }) });
    const [explained] = jsonLines(result.stdout) as Array<{ decision: string; reason: string }>;
    expect(explained).toMatchObject({ decision: "ask" });
    expect(explained?.reason).toContain("the sed script runs commands (`e`)");
  }, 60_000);
});
