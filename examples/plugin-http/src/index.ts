import { createRequire } from "node:module";
import { definePlugin } from "@toolhost/core";
import { ApiCallOptions, createApiCallTool } from "./make-api-call.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

export { ApiCallOptions, createApiCallTool, type ApiCallDetails } from "./make-api-call.js";

/** Registers `make_api_call`. Options: `headers` sent with every request, `maxResponseChars`. */
export default definePlugin({
  name: "@toolhost/example-plugin-http",
  version,
  options: ApiCallOptions,
  apply(harness, options) {
    harness.registerTool(createApiCallTool(options));
  },
});
