import type { Command } from "commander";
import { CLI_DIR, type Cli, type CommandModule } from "../cli.js";
import { CONFIG_HINTS, KNOWN_PLUGINS } from "../_defaults.js";
import { ExitCode } from "../_output.js";
import { NARROW_ONLY_MARK, nestedParameterLines, TRUSTED_ONLY_MARK } from "../_schema-text.js";
import { terminalLine } from "../_terminal-text.js";

export const schema: CommandModule = {
  register(program: Command, cli: Cli) {
    program
      .command("schema")
      .description("print the JSON Schema of the config file, or the options a plugin takes")
      .argument("[plugin]", "a plugin's package name or path, as in the config's plugins")
      .addHelpText(
        "after",
        `
Without a plugin, prints the config file's JSON Schema (for $schema in JSON and YAML configs).
With one, finds it as the config would (from the config file's folder, then the CLI's), without
applying it, and lists its options; --json prints their JSON Schema.

Examples:
  toolhost schema @toolhost/hooks-policy
  toolhost schema ./plugins/my-tool.mjs --json`,
      )
      .action(
        cli.action(async (name: string | undefined) => {
          const { configJsonSchema, findPlugin, userConfigDir } = await import("@toolhost/core/config");
          if (name === undefined) {
            await cli.out(`${JSON.stringify(configJsonSchema(), null, 2)}\n`);
            return ExitCode.OK;
          }
          const found = await findPlugin(name, {
            cwd: cli.globals.cwd,
            resolveFrom: [{ dir: CLI_DIR, what: "the toolhost CLI's install location" }],
            knownPlugins: KNOWN_PLUGINS,
            hints: CONFIG_HINTS,
          });
          const options = found.plugin.options ? (JSON.parse(JSON.stringify(found.plugin.options)) as Record<string, unknown>) : undefined;
          if (cli.globals.json) {
            await cli.out(`${JSON.stringify({ plugin: found.plugin.name, version: found.version ?? null, file: found.file, options: options ?? null }, null, 2)}\n`);
            return ExitCode.OK;
          }
          const paint = cli.paintOut;
          // A plugin's name and its options' descriptions are the plugin's words: shown escaped.
          const lines = [`${paint("bold", terminalLine(found.plugin.name))} ${paint("dim", terminalLine(`${found.version ?? "(no version)"}  ${found.file}`))}`];
          if (options === undefined) lines.push("  takes no options");
          else for (const line of nestedParameterLines(options)) lines.push(`  ${terminalLine(line)}`);
          if (lines.some((line) => line.includes(TRUSTED_ONLY_MARK))) {
            lines.push(
              "",
              `${TRUSTED_ONLY_MARK}: the option runs code, or sends what it is given where it says. It is taken from the managed config, your own (${userConfigDir()}), or a project folder you trust ("toolhost trust"); a project config you have not trusted that sets it has the plugin refused.`,
            );
          }
          if (lines.some((line) => line.includes(NARROW_ONLY_MARK))) {
            lines.push(
              "",
              `${NARROW_ONLY_MARK}: the option widens what calls reach (folders, network, limits, the sandbox). A project config you have not trusted may set it only as narrow as the config below it (your own, ${userConfigDir()}, else the default shown); set wider, the plugin is refused with the trust command ("toolhost trust").`,
            );
          }
          await cli.out(`${lines.join("\n")}\n`);
          return ExitCode.OK;
        }),
      );
  },
};
