// Loads tool-bash (the built package) in a process of its own and runs bash calls, so that a test
// can give that process a machine of its own: a private mount namespace where the system's bwrap
// is missing or broken, or a PATH full of planted programs. Reads { workspace, options, commands,
// access } from the JSON file named on the command line; prints one JSON object: the process's
// warnings while the tool loaded, each call's text, code and sandbox details, and (when asked)
// what the tool declares for the command `access`.
import { readFileSync } from "node:fs";
import { AgentHarness } from "@toolhost/core";
import bashPlugin from "../dist/index.js";

const { workspace, options, commands, access } = JSON.parse(readFileSync(process.argv[2], "utf8"));
const warnings = [];
process.on("warning", (warning) => warnings.push({ message: warning.message, code: warning.code }));
const harness = new AgentHarness({ cwd: workspace, workspace });
await harness.use(bashPlugin, options);
await new Promise((resolve) => setTimeout(resolve, 50)); // warnings are emitted on the next tick
const results = [];
for (const [index, command] of commands.entries()) {
  const [result] = await harness.executeToolCalls([{ id: String(index + 1), name: "bash", arguments: { command } }]);
  const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
  results.push({ text, isError: result.isError === true, code: result.details?.code, sandbox: result.details?.sandbox });
}
const declared = access === undefined ? undefined : await harness.getTool("bash")?.access?.({ command: access }, { cwd: workspace, workspace });
await harness.dispose();
console.log(JSON.stringify({ warnings, results, access: declared }));
