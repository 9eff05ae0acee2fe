import type { Command } from "commander";
import type { Cli, CommandModule } from "../cli.js";
import { ExitCode } from "../_output.js";
import { parameterLines } from "../_schema-text.js";
import { terminalLine, terminalText } from "../_terminal-text.js";

export const list: CommandModule = {
  register(program: Command, cli: Cli) {
    program
      .command("list")
      .description("list the tools the configured plugins register, with their parameters")
      .action(
        cli.action(async () => {
          const { harness } = await cli.host();
          const tools = harness.tools.map((tool) => ({
            name: tool.name,
            label: tool.label,
            description: tool.description,
            plugin: harness.toolOwner(tool.name)?.replace(/^plugin "(.*)"$/, "$1"),
            executionMode: tool.executionMode ?? "parallel",
            parameters: JSON.parse(JSON.stringify(tool.parameters)) as Record<string, unknown>,
          }));
          if (cli.globals.json) {
            await cli.out(`${JSON.stringify(tools)}\n`);
            return ExitCode.OK;
          }
          if (tools.length === 0) {
            await cli.out("No tools: the config names no plugin that registers one.\n");
            return ExitCode.OK;
          }
          const paint = cli.paintOut;
          const blocks = tools.map((tool) => {
            // Names, descriptions and schemas come from plugins and MCP servers: shown escaped.
            const lines = [`${paint("bold", terminalLine(tool.name))}  ${paint("dim", `(${terminalLine(tool.plugin ?? "")})`)}`, `  ${terminalText(tool.description)}`];
            for (const line of parameterLines(tool.parameters)) lines.push(`    ${terminalLine(line)}`);
            return lines.join("\n");
          });
          await cli.out(`${blocks.join("\n\n")}\n`);
          return ExitCode.OK;
        }),
      );
  },
};
