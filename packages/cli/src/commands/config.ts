import type { Command } from "commander";
import type { Cli, CommandModule } from "../_cli.js";
import { ExitCode } from "../_output.js";

export const config: CommandModule = {
  register(program: Command, cli: Cli) {
    program
      .command("config")
      .description("show the config file in use, each plugin with its version and where it was found, and its tools")
      .action(
        cli.action(async () => {
          const host = await cli.host();
          if (cli.globals.json) {
            const { configPath, workspace, plugins, missing } = host;
            await cli.out(`${JSON.stringify({ configPath: configPath ?? null, workspace, plugins, missing })}\n`);
            return ExitCode.OK;
          }
          const paint = cli.paintOut;
          const lines = [
            `${paint("bold", "config")}     ${host.configPath ?? "none found: using the default plugins"}`,
            `${paint("bold", "workspace")}  ${host.workspace}`,
            "",
            paint("bold", "plugins"),
          ];
          if (host.plugins.length === 0) lines.push("  (none)");
          for (const plugin of host.plugins) {
            lines.push(`  ${plugin.name} ${paint("dim", plugin.version ?? "(no version)")}`);
            lines.push(`    from   ${plugin.resolvedFrom}`);
            lines.push(`    tools  ${plugin.tools.length > 0 ? plugin.tools.join(", ") : "(none)"}`);
          }
          if (host.missing.length > 0) {
            lines.push("", paint("bold", "not installed"));
            for (const name of host.missing) lines.push(`  ${name}  ${paint("dim", `npm i -D ${name}`)}`);
          }
          await cli.out(`${lines.join("\n")}\n`);
          return ExitCode.OK;
        }),
      );
  },
};
