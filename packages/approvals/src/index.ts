export { default } from "./plugin.js";
export { ApprovalsOptionsSchema, type ApprovalsOptions } from "./options.js";
export { PageAsker, type AskerOptions } from "./ask/asker.js";
export { pageFilePath } from "./page-file.js";
export type * from "./wire.js";
