import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentHarness } from "@toolhost/core";
import { describe, expect, it, vi } from "vitest";
import bashPlugin from "../src/index.js";
import { ReadyLauncher } from "../src/sandbox/_launcher.js";
import { cleanupsAfterEach, runBash, tempFolder, textOf } from "./_helpers.js";

// A call hands its trace context (core's `propagate` hook, read through `execution.carrier()`) to
// the programs it runs, in their environment as OpenTelemetry's environment carrier reads it.

const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const cleanup = cleanupsAfterEach();

async function harnessWith(sandbox: "auto" | "off"): Promise<AgentHarness> {
  const { dir, remove } = tempFolder();
  const harness = new AgentHarness({ cwd: dir });
  cleanup.push(remove, () => harness.dispose());
  await harness.use(bashPlugin, { sandbox: sandbox === "auto" ? "required" : "off" });
  harness.hooks.propagate.tap("test-trace", (carrier, ctx) => {
    carrier.traceparent = TRACEPARENT;
    carrier.tracestate = `call=${ctx.toolCall.id}`;
  });
  return harness;
}

describe.each(["off", "auto"] as const)("sandbox %s", (sandbox) => {
  it("puts the call's traceparent and tracestate in the command's environment", async () => {
    const harness = await harnessWith(sandbox);
    const { text, isError } = await runBash(harness, 'printf "%s|%s" "$TRACEPARENT" "$TRACESTATE"');
    expect(isError).toBe(false);
    expect(text.trim()).toBe(`${TRACEPARENT}|call=1`);
  });

  it("adds nothing when no one fills the carrier", async () => {
    const { dir, remove } = tempFolder();
    const harness = new AgentHarness({ cwd: dir });
    cleanup.push(remove, () => harness.dispose());
    await harness.use(bashPlugin, { sandbox: sandbox === "auto" ? "required" : "off" });
    const { text } = await runBash(harness, 'printf "[%s]" "${TRACEPARENT-unset}"');
    expect(text.trim()).toBe(process.env.TRACEPARENT === undefined ? "[unset]" : `[${process.env.TRACEPARENT}]`);
  });
});

describe("sandboxed, minimal root, call after call", () => {
  it("each call sees its own trace context, also through the spare launcher, and one it no longer has is gone", async () => {
    // The spare launcher (bash waiting in the next call's cgroups) is made with the environment of
    // the call before; the next call's differences go with its program. Before, a trace context
    // (new each call) made every spare unusable: each traced call paid the cgroup move's wait.
    const { dir, remove } = tempFolder();
    const harness = new AgentHarness({ cwd: dir });
    cleanup.push(remove, () => harness.dispose());
    await harness.use(bashPlugin, { sandbox: "required", env: { KEPT: "kept" } });
    harness.hooks.propagate.tap("test-trace", (carrier, ctx) => {
      const n = Number(ctx.toolCall.id);
      carrier.traceparent = `00-${String(n).padStart(32, "0")}-00f067aa0ba902b7-01`;
      if (n % 2 === 1) carrier.tracestate = `call=${n}`;
    });
    const started = vi.spyOn(ReadyLauncher.prototype, "start");
    cleanup.push(() => started.mockRestore());
    const seen: string[] = [];
    for (let n = 1; n <= 6; n++) {
      const [result] = await harness.executeToolCalls([
        { id: String(n), name: "bash", arguments: { command: 'printf "%s|%s|%s" "$TRACEPARENT" "${TRACESTATE-none}" "$KEPT"' } },
      ]);
      expect(result?.isError).toBe(false);
      seen.push(textOf(result as never).trim());
      // As an agent calls: a moment between calls, in which the spare gets ready.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(seen).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => `00-${String(n).padStart(32, "0")}-00f067aa0ba902b7-01|${n % 2 === 1 ? `call=${n}` : "none"}|kept`),
    );
    // Every call after the first ran in a spare.
    expect(started.mock.calls.length).toBe(5);
  });

  it("runs no startup file of the host's shell before a call, and the environment is the call's", async () => {
    // The spare launcher is bash with a socket for stdin (Node's pipes are socket pairs): without
    // --norc it read /etc/bash.bashrc and ~/.bashrc as if sshd had started it, outside the sandbox
    // (root's .bashrc here changes PATH), and BASH_ENV's file ran there too. Bash does so only as a
    // top-level shell: SHLVL 0 here, as a host started by a service manager or an IDE has none.
    const { dir, remove } = tempFolder();
    const home = tempFolder();
    cleanup.push(remove, home.remove);
    const marker = join(home.dir, "ran");
    writeFileSync(join(home.dir, ".bashrc"), `echo bashrc >> ${marker}\nexport PATH=/from-bashrc:$PATH\n`);
    writeFileSync(join(home.dir, "bash-env"), `echo bash-env >> ${marker}\n`);
    const harness = new AgentHarness({ cwd: dir });
    cleanup.push(() => harness.dispose());
    await harness.use(bashPlugin, { sandbox: "required", env: { HOME: home.dir, BASH_ENV: join(home.dir, "bash-env"), SHLVL: "0" } });
    const started = vi.spyOn(ReadyLauncher.prototype, "start");
    cleanup.push(() => started.mockRestore());
    const seen: string[] = [];
    for (let n = 1; n <= 4; n++) {
      const [result] = await harness.executeToolCalls([{ id: String(n), name: "bash", arguments: { command: 'printf "%s|%s" "$BASH_ENV" "$PATH"' } }]);
      expect(result?.isError).toBe(false);
      seen.push(textOf(result as never).trim());
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(started.mock.calls.length).toBe(3);
    expect(existsSync(marker)).toBe(false);
    for (const each of seen) {
      expect(each.startsWith(`${join(home.dir, "bash-env")}|`)).toBe(true);
      expect(each).not.toContain("/from-bashrc");
    }
  });
});
