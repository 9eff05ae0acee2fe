import type { PluginSetting } from "@toolhost/core";
import type { Command } from "commander";
import type { Cli, CommandModule } from "../cli.js";
import { ExitCode } from "../_output.js";

export const config: CommandModule = {
  register(program: Command, cli: Cli) {
    program
      .command("config")
      .description("show the config file in use, each plugin with its version, where it was found, its tools and the settings it runs with")
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
            lines.push(...settingLines(plugin.settings, (text) => paint("dim", text)));
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

/** A plugin's reported settings (already redacted by the host), one a line, names aligned. */
function settingLines(settings: Record<string, PluginSetting>, dim: (text: string) => string): string[] {
  const names = Object.keys(settings);
  if (names.length === 0) return [];
  const width = Math.max(...names.map((name) => name.length));
  return ["    settings", ...names.map((name) => `      ${name.padEnd(width)}  ${settingText(settings[name] ?? null, dim)}`)];
}

function settingText(value: PluginSetting, dim: (text: string) => string): string {
  if (value === null) return dim("(none)");
  if (Array.isArray(value)) return value.length > 0 ? value.join(", ") : dim("(none)");
  return String(value).replace(/\r?\n/g, " ⏎ ");
}
