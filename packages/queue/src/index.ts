export { default } from "./plugin.js";
export { QueueErrorCode } from "./errors.js";
export { QueueOptionsSchema, type QueueOptions } from "./options.js";
