import type { Command } from "commander";
import type { Cli, CommandModule } from "../_cli.js";
import { ExitCode } from "../_output.js";

export const schema: CommandModule = {
  register(program: Command, cli: Cli) {
    program
      .command("schema")
      .description("print the JSON Schema of the config file (for $schema in JSON and YAML configs)")
      .action(
        cli.action(async () => {
          const { configJsonSchema } = await import("@toolhost/core/config");
          await cli.out(`${JSON.stringify(configJsonSchema(), null, 2)}\n`);
          return ExitCode.OK;
        }),
      );
  },
};
