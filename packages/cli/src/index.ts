export { main } from "./main.js";
export { Cli, UsageError, type CommandModule, type GlobalOptions } from "./_cli.js";
export { ExitCode } from "./_output.js";
/** The policy service `toolhost policy explain` reads: core's contract, re-exported for older imports. */
export type { PolicyExplanation, PolicyService } from "@toolhost/core";
