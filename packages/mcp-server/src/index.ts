export { createServerFactory, type McpServeOptions } from "./_server.js";
export { serveToolsOverStdio, type RunningServer } from "./_stdio.js";
export { serveToolsOverHttp, isLoopback, type HttpServeOptions, type RunningHttpServer } from "./_http.js";
export { clientConfig, CLIENT_HOSTS, type ClientHost, type ServeEndpoint } from "./_client-config.js";
