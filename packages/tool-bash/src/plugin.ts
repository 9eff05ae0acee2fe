import { createRequire } from "node:module";
import { definePlugin } from "@toolhost/core";
import { BashToolOptionsSchema } from "./_options.js";
import { createBashToolHandle } from "./tool.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

/**
 * The `@toolhost/tool-bash` plugin: registers the `bash` tool, its `cwd` resolved against the
 * harness's, and ends every command still running when the harness is disposed.
 */
const bashPlugin = definePlugin({
  name: "@toolhost/tool-bash",
  version,
  options: BashToolOptionsSchema,
  apply(harness, options) {
    const handle = createBashToolHandle(options, harness.cwd, true);
    harness.registerTool(handle.tool);
    harness.hooks.dispose.tapPromise("@toolhost/tool-bash", () => handle.dispose());
  },
});

export default bashPlugin;
