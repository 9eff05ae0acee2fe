import type { PolicyExplanation, PolicyService, ToolAccess } from "@toolhost/core";
import type { Command } from "commander";
import { type Cli, type CommandModule, UsageError } from "../_cli.js";
import { parseJsonArgument, readStdin } from "../_input.js";
import { ExitCode } from "../_output.js";

/** No policy plugin in the config: nothing to explain. */
export class NoPolicyError extends Error {
  override name = "NoPolicyError";
  readonly code = "TOOLHOST_NO_POLICY";
}

export const policy: CommandModule = {
  register(program: Command, cli: Cli) {
    const group = program.command("policy").description("inspect the configured policy");
    group
      .command("explain")
      .description("show the policy's decision on a call and every rule that matched, part by part")
      .argument("<tool>", 'the tool\'s name, or "-" to read JSON lines { "tool", "args", "cwd"?, "access"? } from standard input')
      .argument("[args]", "the arguments as a JSON object", "{}")
      .addHelpText(
        "after",
        `
With "-", prints one JSON object a line, one for each line read, so a whole transcript
can be checked against a policy; a line's "access" ({ commands, reads, readTrees, writes,
network }) is what the call touches, for a tool this config does not have (another host's).
--json prints the explanation as one JSON object.

Examples:
  toolhost policy explain bash '{"command": "rm -rf build && ls"}'
  jq -c '{tool: .name, args: .arguments}' calls.jsonl | toolhost policy explain -`,
      )
      .action(
        cli.action(async (tool: string, argsText: string) => {
          const args = tool === "-" ? undefined : parseJsonArgument(argsText, tool);
          const host = await cli.host();
          const service = host.harness.getService("policy");
          if (!service || typeof service.explain !== "function") {
            const where = host.configPath ? `to "plugins" in ${host.configPath}` : 'to the "plugins" of a toolhost.config.json (toolhost init writes one)';
            throw new NoPolicyError(
              `No policy plugin is configured, so there is no policy to explain. Add "@toolhost/hooks-policy" ${where}, and install it: npm i -D @toolhost/hooks-policy`,
            );
          }
          if (tool === "-") return explainLines(cli, service, await readStdin((text) => cli.note(text), "calls to explain"));
          const explanation = await service.explain({ tool, args, cwd: cli.globals.cwd });
          await cli.out(cli.globals.json ? `${JSON.stringify(explanation)}\n` : humanText(cli, explanation));
          return ExitCode.OK;
        }),
      );
  },
};

async function explainLines(cli: Cli, service: PolicyService, input: string): Promise<number> {
  let exitCode: number = ExitCode.OK;
  const lines = input.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]?.trim() ?? "";
    if (line === "") continue;
    let output: unknown;
    try {
      const request = JSON.parse(line) as { tool?: unknown; args?: unknown; cwd?: unknown; access?: unknown };
      if (request === null || typeof request !== "object" || typeof request.tool !== "string") {
        throw new UsageError('expected { "tool": string, "args": object, "cwd"?: string, "access"?: object }');
      }
      output = await service.explain({
        tool: request.tool,
        args: request.args ?? {},
        cwd: typeof request.cwd === "string" ? request.cwd : cli.globals.cwd,
        ...(request.access !== undefined && { access: request.access as ToolAccess }),
      });
    } catch (error) {
      exitCode = ExitCode.REFUSED;
      output = { line: i + 1, error: { code: (error as { code?: string }).code ?? "TOOLHOST_USAGE", message: (error as Error).message } };
    }
    await cli.out(`${JSON.stringify(output)}\n`);
  }
  return exitCode;
}

function humanText(cli: Cli, explanation: PolicyExplanation): string {
  const paint = cli.paintOut;
  const color = (decision: string): string =>
    paint(decision === "allow" ? "green" : decision === "deny" ? "red" : "yellow", decision);
  const lines = [`${paint("bold", color(explanation.decision))}  ${explanation.tool}: ${explanation.reason}`];
  for (const part of explanation.parts) {
    lines.push(`  ${color(part.decision)}  ${part.kind} ${paint("bold", part.subject)}${part.note ? paint("dim", `  (${part.note})`) : ""}`);
    if (part.matched.length === 0) lines.push(`      ${paint("dim", "no rule matched: the default decides")}`);
    for (const rule of part.matched) {
      lines.push(`      ${rule.decision.padEnd(5)} ${rule.id}${rule.reason ? paint("dim", `  ${rule.reason}`) : ""}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
