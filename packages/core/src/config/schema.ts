import { type Static, Type } from "@sinclair/typebox";

const PluginOptions = Type.Object({}, { additionalProperties: true, description: "The plugin's options; its own schema says what it takes." });

/** One plugin of the config: a package name or a relative path, alone or with its options. */
export const PluginEntrySchema = Type.Union(
  [
    Type.String({ minLength: 1, description: 'A package name ("toolhost-plugin-weather") or a path relative to the config file ("./plugins/my-tool.mjs").' }),
    Type.Tuple([Type.String({ minLength: 1 }), PluginOptions], { description: "[name, options]" }),
  ],
  { description: 'A plugin: "name", or ["name", { ...options }].' },
);

/** The config file's schema. Unknown keys are an error. */
export const ConfigSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String({ description: "The JSON Schema of this file, for editor completion." })),
    toolExecution: Type.Optional(
      Type.Union([Type.Literal("parallel"), Type.Literal("sequential")], {
        description: '"parallel" (default): the calls of a batch run concurrently; "sequential": one at a time, in order.',
      }),
    ),
    maxConcurrency: Type.Optional(Type.Integer({ minimum: 1, description: "The most calls of one batch that run at once." })),
    toolTimeoutMs: Type.Optional(
      Type.Integer({ minimum: 1, description: "A call that takes longer ends with a timed-out error result." }),
    ),
    plugins: Type.Array(PluginEntrySchema, { description: "The plugins to load, in order. Only these are imported." }),
    agent: Type.Optional(
      Type.Object(
        {
          systemPrompt: Type.Optional(Type.String({ description: "The system prompt of the agent loop." })),
          maxTurns: Type.Optional(Type.Integer({ minimum: 1, description: "The most model turns of the agent loop." })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, title: "toolhost config" },
);

/** What a toolhost config file holds (`toolhost.config.{json,yaml,yml,js,mjs,ts}`). */
export type ToolhostConfig = Static<typeof ConfigSchema>;

/** One entry of `plugins`. */
export type PluginEntry = Static<typeof PluginEntrySchema>;

/** Gives a `toolhost.config.ts` (or `.js`/`.mjs`) its types; returns the config as it is. */
export function defineConfig(config: ToolhostConfig): ToolhostConfig {
  return config;
}

/** The JSON Schema of the config file, for `$schema` in JSON and YAML configs. */
export function configJsonSchema(): Record<string, unknown> {
  // A round trip through JSON drops TypeBox's symbol keys, leaving plain JSON Schema.
  const schema = JSON.parse(JSON.stringify(ConfigSchema)) as Record<string, unknown>;
  return { $schema: "http://json-schema.org/draft-07/schema#", ...schema };
}
