import { definePlugin } from "@toolhost/core";
import { BashToolOptionsSchema } from "./_options.js";
import { createBashToolHandle } from "./tool.js";

/**
 * The `@toolhost/tool-bash` plugin: registers the `bash` tool, its `cwd` resolved against the
 * harness's, and ends every command still running when the harness is disposed.
 */
const bashPlugin = definePlugin({
  name: "@toolhost/tool-bash",
  version: "0.1.0",
  options: BashToolOptionsSchema,
  apply(harness, options) {
    const handle = createBashToolHandle(options, harness.cwd, true);
    harness.registerTool(handle.tool);
    harness.hooks.dispose.tapPromise("@toolhost/tool-bash", () => handle.dispose());
  },
});

export default bashPlugin;
