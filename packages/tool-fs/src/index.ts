// The public surface of @toolhost/tool-fs (README, "What the package exports"). `_` files are internal.
export { default, FsPluginOptions } from "./plugin.js";
export { createFsTools } from "./tools.js";
export { createReadTool, ReadParameters, type ReadDetails } from "./read.js";
export { createWriteTool, WriteParameters, type WriteDetails } from "./write.js";
export { createEditTool, EditParameters, type EditDetails } from "./edit.js";
export { createLsTool, LsParameters, type LsDetails } from "./ls.js";
export { createFindTool, FindParameters, type FindDetails } from "./find.js";
export { createGrepTool, GrepParameters, type GrepDetails } from "./grep.js";
export { FsErrorCode } from "./errors.js";
export type { FsToolOptions, ImageInfo, ImageProcessor } from "./options.js";
export { SKIPPED_FOLDERS } from "./skipped.js";
