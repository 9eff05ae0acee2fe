export { main } from "./main.js";
export { Cli, type CommandModule, type GlobalOptions } from "./cli.js";
export { UsageError } from "./usage-error.js";
export { ExitCode } from "./exit-code.js";
/** The policy service `toolhost policy explain` reads: core's contract, re-exported for older imports. */
export type { PolicyExplanation, PolicyService } from "@toolhost/core";
