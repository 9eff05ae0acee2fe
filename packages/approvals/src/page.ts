/*
 * `@toolhost/approvals/page`: the page server's side, for `toolhost approvals serve` (and an
 * application serving the page itself). Apart from the plugin's entry, so that a process that
 * only asks through the page loads none of the server.
 */
export { serveApprovals, type ApprovalsPageServer, type ApprovalsServeOptions, type PageRules } from "./page/server.js";
export { pageFilePath, readPageFile, PageFileError, type PageFile } from "./page-file.js";
export type * from "./wire.js";
