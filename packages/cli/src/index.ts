export { main } from "./main.js";
export { Cli, UsageError, type CommandModule, type GlobalOptions } from "./_cli.js";
export { ExitCode } from "./_output.js";
export type { PolicyExplanation, PolicyService } from "@toolhost/core";
