export { createServerFactory, type McpServeOptions } from "./server.js";
export { serveToolsOverStdio, type RunningServer } from "./stdio.js";
export { serveToolsOverHttp, isLoopback, type HttpServeOptions, type RunningHttpServer } from "./http.js";
export { clientConfig, CLIENT_HOSTS, type ClientHost, type ServeEndpoint } from "./client-config.js";
export { DEFAULT_LIMITS as DEFAULT_SERVE_LIMITS, type ServeLimits } from "./limits.js";
export { McpServeErrorCode } from "./errors.js";
