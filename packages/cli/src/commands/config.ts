import type { PluginSetting } from "@toolhost/core";
import type { ConfigLayer, Host } from "@toolhost/core/config";
import type { Command } from "commander";
import type { Cli, CommandModule } from "../cli.js";
import { shellWord } from "../_defaults.js";
import { ExitCode } from "../_output.js";

export const config: CommandModule = {
  register(program: Command, cli: Cli) {
    program
      .command("config")
      .description("show the config places of each owner (managed, user, project), the config in use, each plugin with its version, where it was found, whose config names it, its tools and the settings it runs with")
      .action(
        cli.action(async () => {
          const host = await cli.host();
          if (cli.globals.json) {
            const { configPath, workspace, plugins, missing, refused, settingsFrom } = host;
            const layers = host.layers.map(({ owner, dir, file, trusted, trustedBy, refused: left }) => ({ owner, dir, file: file ?? null, trusted, trustedBy: trustedBy ?? null, refused: left }));
            await cli.out(`${JSON.stringify({ configPath: configPath ?? null, workspace, layers, settingsFrom, plugins, missing, refused })}\n`);
            return ExitCode.OK;
          }
          await cli.out(`${describeHost(host, cli.paintOut).join("\n")}\n`);
          return ExitCode.OK;
        }),
      );
  },
};

type Paint = Cli["paintOut"];

/** `toolhost config` in words: the places, the settings in force and whose they are, the plugins. */
function describeHost(host: Host, paint: Paint): string[] {
  const dim = (text: string): string => paint("dim", text);
  const lines = [
    `${paint("bold", "config")}     ${host.configPath ?? "none found: using the default plugins"}`,
    `${paint("bold", "workspace")}  ${host.workspace}`,
    "",
    `${paint("bold", "places")} ${dim("(highest owner first)")}`,
    ...host.layers.map((layer) => `  ${layer.owner.padEnd(8)} ${placeText(layer, dim)}`),
  ];
  const settings = Object.entries(host.settingsFrom);
  if (settings.length > 0) {
    const width = Math.max(...settings.map(([name]) => name.length));
    lines.push("", paint("bold", "config settings"));
    for (const [name, owner] of settings) lines.push(`  ${name.padEnd(width)}  ${String(settingOf(host, name))}  ${dim(`(${owner})`)}`);
  }
  lines.push("", paint("bold", "plugins"));
  if (host.plugins.length === 0) lines.push("  (none)");
  for (const plugin of host.plugins) {
    lines.push(`  ${plugin.name} ${dim(plugin.version ?? "(no version)")}`);
    lines.push(`    from   ${plugin.resolvedFrom}`);
    lines.push(`    tools  ${plugin.tools.length > 0 ? plugin.tools.join(", ") : "(none)"}`);
    if (host.layers.some((layer) => layer.owner !== "project" && layer.config !== undefined)) {
      lines.push(`    named  by ${plugin.namedBy.join(", ")}${dim(`; options from ${plugin.optionsFrom}`)}`);
    }
    lines.push(...settingLines(plugin.settings, dim));
  }
  if (host.missing.length > 0) {
    lines.push("", paint("bold", "not installed"));
    for (const name of host.missing) lines.push(`  ${name}  ${dim(`npm i -D ${name}`)}`);
  }
  if (host.refused.length > 0) {
    lines.push("", paint("bold", "refused") + dim(" (every call is refused until these are fixed)"));
    for (const refusal of host.refused) lines.push(`  ${refusal.message} ${dim(`(${refusal.code})`)}`);
  }
  return lines;
}

/** One owner's place: its file, or that there is none, and for the project whether its code may run. */
function placeText(layer: ConfigLayer, dim: (text: string) => string): string {
  if (layer.file === undefined) return `${layer.dir} ${dim(layer.owner === "project" ? "(no config found from here)" : "(no config)")}`;
  if (layer.refused) return `${layer.file} ${dim("(refused: see below)")}`;
  if (layer.owner !== "project") return layer.file;
  return `${layer.file} ${dim(layer.trusted ? `(trusted: ${layer.trustedBy})` : `(not trusted: read, but none of its code runs; "toolhost trust ${shellWord(layer.dir)}" trusts it)`)}`;
}

function settingOf(host: Host, name: string): unknown {
  const [first, second] = name.split(".");
  const config = (host.config ?? {}) as Record<string, unknown>;
  const value = first === undefined ? undefined : config[first];
  return second === undefined ? value : (value as Record<string, unknown> | undefined)?.[second];
}

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
