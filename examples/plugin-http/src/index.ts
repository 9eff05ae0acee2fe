import { definePlugin } from "@toolhost/core";
import { ApiCallOptions, createApiCallTool } from "./make-api-call.js";

export { ApiCallOptions, createApiCallTool, type ApiCallDetails } from "./make-api-call.js";

/** Registers `make_api_call`. Options: `headers` sent with every request, `maxResponseChars`. */
export default definePlugin({
  name: "@toolhost/example-plugin-http",
  version: "0.1.0",
  options: ApiCallOptions,
  apply(harness, options) {
    harness.registerTool(createApiCallTool(options));
  },
});
