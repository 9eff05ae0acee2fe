import { type Static, Type, resolvePluginOptions } from "@toolhost/core";

/** The options of the bash tool and of its plugin. */
export const BashToolOptionsSchema = Type.Object(
  {
    cwd: Type.Optional(
      Type.String({
        minLength: 1,
        description: "The folder commands run in; relative to the harness's working directory. Default: that directory.",
      }),
    ),
    timeout: Type.Number({
      minimum: 0,
      default: 120,
      description: "Seconds a command may run before it and every process it started are ended; 0 for no limit. Caps the call's own timeout.",
    }),
    maxStdoutLines: Type.Optional(
      Type.Integer({ minimum: 1, description: "The most stdout lines the model sees (head and tail)." }),
    ),
    maxStderrLines: Type.Optional(
      Type.Integer({ minimum: 1, description: "The most stderr lines the model sees (head and tail)." }),
    ),
    maxOutputBytes: Type.Integer({
      minimum: 1024,
      default: 50 * 1024,
      description: "The most bytes of each stream the model sees (head and tail); the whole output goes to a file.",
    }),
    shell: Type.Optional(
      Type.String({ minLength: 1, description: "The shell that runs `-c <command>`: a name on PATH or a path. Default: bash, else sh." }),
    ),
    env: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: "Variables added to the inherited environment." }),
    ),
    killGraceMs: Type.Integer({
      minimum: 0,
      default: 2000,
      description: "Milliseconds between SIGTERM and SIGKILL when a command is aborted or times out.",
    }),
    executionMode: Type.Union([Type.Literal("sequential"), Type.Literal("parallel")], {
      default: "sequential",
      description: "sequential (default): a bash call runs alone, in the order the model wrote it.",
    }),
  },
  { additionalProperties: false },
);

/** The options of `createBashTool` and of the `@toolhost/tool-bash` plugin, defaults filled. */
export type BashToolConfig = Static<typeof BashToolOptionsSchema>;

/** What `createBashTool` takes: every option may be left out. */
export type BashToolOptions = Partial<BashToolConfig>;

/** Fills defaults and validates, as `harness.use` does; a bad option is a `ToolhostError` naming its path. */
export function resolveBashOptions(options: BashToolOptions | undefined): BashToolConfig {
  return resolvePluginOptions({ name: "@toolhost/tool-bash", options: BashToolOptionsSchema }, options);
}
