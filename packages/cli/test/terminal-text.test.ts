// What reaches a terminal from anything untrusted is shown escaped: a tool's description in
// `toolhost list`, its output in `call` and in `agent`'s progress and preview lines, a model's
// text, an error that quotes input. Run in a real pseudo-terminal (util-linux `script`); `--json`
// and a pipe keep the bytes.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startFakeOpenAI, textTurn, toolCallsTurn } from "../../provider-openai/test/_fake-openai.js";
import { HOSTILE } from "./fixtures/hostile-plugin.mjs";
import { inTerminal, project, removeDir, tempDir, toolhost, writeConfig } from "./_helpers.js";

let dir: string;
beforeEach(() => {
  dir = project(tempDir());
  writeConfig(dir, { plugins: ["./plugins/hostile-plugin.mjs"] });
});
afterEach(() => removeDir(dir));

/** The sequences of HOSTILE that a terminal would act on, each as sent. */
const RAW = ["\u001B]0;", "\u0007", "\u001B[2J", "\u001B[H", "\rfaked", "\u001B[K", "\u009B", "\b", "\u202E", "\u202C", "\u2066", "\u2069", "\u001B]8;"];

function expectNoneRaw(output: string): void {
  for (const sequence of RAW) expect(output, `raw ${JSON.stringify(sequence)} in:\n${JSON.stringify(output)}`).not.toContain(sequence);
}

describe("untrusted text on a terminal", () => {
  it("toolhost list shows a description and a parameter's description full of escape sequences escaped", async () => {
    const { code, output } = await inTerminal(["list"], { cwd: dir });
    expect(code).toBe(0);
    expectNoneRaw(output);
    expect(output).toContain("Looks harmless \\x1B]0;pwned-title\\x07 \\x1B[2J\\x1B[H \\x0Dfaked line\\x1B[K \\x9B31mc1-red back\\x08");
    expect(output).toContain("\\u202Eevil-bidi\\u202C \\u2066isolate\\u2069");
  });

  it("toolhost list --json keeps the description as it is (JSON escapes it)", async () => {
    const run = await toolhost(["list", "--json"], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain("\u001B");
    const [tool] = JSON.parse(run.stdout) as { description: string }[];
    expect(tool?.description).toBe(`Looks harmless ${HOSTILE}`);
  });

  it("toolhost call shows the output escaped on a terminal, and as it is through a pipe", async () => {
    const shown = await inTerminal(["call", "hostile"], { cwd: dir });
    expect(shown.code).toBe(0);
    expectNoneRaw(shown.output);
    expect(shown.output).toContain("result \\x1B]0;pwned-title\\x07");
    expect(shown.output).toContain("second line");
    const piped = await toolhost(["call", "hostile"], { cwd: dir });
    expect(piped.stdout).toBe(`result ${HOSTILE}\nsecond line\n`);
  });

  it("an error that quotes input shows it escaped", async () => {
    const { code, output } = await inTerminal(["call", "host\u001B]0;t\u0007ile\u001B[2J"], { cwd: dir });
    expect(code).toBe(2);
    expectNoneRaw(output);
    expect(output).toContain("host\\x1B]0;t\\x07ile\\x1B[2J");
    const missing = await inTerminal(["--config", `none\u001B[2J\u0007.json`, "list"], { cwd: dir });
    expect(missing.code).toBe(2);
    expectNoneRaw(missing.output);
    expect(missing.output).toContain("none\\x1B[2J\\x07.json");
  });

  it("toolhost agent shows the tool's progress, its result's preview and the model's text escaped", async () => {
    const server = await startFakeOpenAI([toolCallsTurn([{ id: "c1", name: "hostile", arguments: { note: "go" } }]), textTurn(`done ${HOSTILE}`)]);
    try {
      writeConfig(dir, {
        plugins: [["@toolhost/provider-openai", { model: "fake-model", baseURL: server.url, maxRetries: 0 }], "./plugins/hostile-plugin.mjs"],
      });
      const { code, output } = await inTerminal(["agent", "run it"], { cwd: dir });
      expect(code, output).toBe(0);
      expectNoneRaw(output);
      expect(output).toContain("Hostile: progress \\x1B]0;pwned-title\\x07");
      expect(output).toMatch(/✓ hostile \(\d+ ms\) {2}result \\x1B\]0;pwned-title\\x07/);
      expect(output).toContain("done \\x1B]0;pwned-title\\x07");
    } finally {
      await server.close();
    }
  });
});
