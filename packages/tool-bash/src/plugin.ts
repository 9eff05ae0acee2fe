import { createRequire } from "node:module";
import { definePlugin } from "@toolhost/core";
import { BashToolOptionsSchema } from "./options.js";
import { describeSandbox } from "./sandbox/_use.js";
import { effectiveSettings } from "./sandbox/_settings.js";
import { createBashToolHandle } from "./tool.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

/**
 * The `@toolhost/tool-bash` plugin: registers the `bash` tool, its `cwd` resolved against the
 * harness's, decides at load whether its commands run sandboxed (and warns once when a sandbox
 * was asked for and cannot be had), provides the same sandbox to hosts that hand another agent
 * host a command line (the `"sandbox"` service), and when the harness is disposed ends every
 * command still running and deletes its full-output files. It reports its effective settings (the sandbox as
 * decided, what it confines) for `toolhost config`.
 */
const bashPlugin = definePlugin({
  name: "@toolhost/tool-bash",
  version,
  options: BashToolOptionsSchema,
  async apply(harness, options) {
    const handle = createBashToolHandle(options, {
      baseCwd: harness.cwd,
      fixed: true,
      workspace: harness.workspace,
      policy: () => harness.getService("policy"),
      redact: () => (harness.hooks.redact.isUsed() ? (text) => harness.hooks.redact.call(text) : undefined),
    });
    // Probed now, so that the choice is known at load: said once when a sandbox was asked for and cannot be had.
    const use = await handle.sandbox();
    if (use.kind !== "bwrap" && options.sandbox !== "off") {
      process.emitWarning(`@toolhost/tool-bash: ${describeSandbox(use)}`, { code: use.kind === "refuse" ? "TOOLHOST_BASH_SANDBOX_UNAVAILABLE" : "TOOLHOST_BASH_UNSANDBOXED" });
    }
    harness.registerTool(handle.tool);
    harness.provideService("sandbox", handle.hostShell);
    harness.hooks.dispose.tapPromise("@toolhost/tool-bash", () => handle.dispose());
    return { settings: effectiveSettings(options, use, handle.cwd ?? harness.cwd) };
  },
});

export default bashPlugin;
