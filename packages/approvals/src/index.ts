export { default } from "./plugin.js";
export { ApprovalsOptionsSchema, type ApprovalsOptions } from "./options.js";
export { serveApprovals, type ApprovalsPageServer, type ApprovalsServeOptions, type PageRules } from "./page/server.js";
export { PageAsker, type AskerOptions } from "./ask/asker.js";
export type * from "./wire.js";
export { pageFilePath, readPageFile, PageFileError, type PageFile } from "./page-file.js";
