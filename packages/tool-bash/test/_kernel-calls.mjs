// Runs bash calls through tool-bash's sandbox (the built package), in a process of its own, so that
// a test can run it as root and as a second uid (setpriv). Reads { workspace, options, commands }
// from the JSON file named on the command line; prints one JSON line per call: its text, whether it
// failed, and the sandbox's details.
import { readFileSync } from "node:fs";
import { AgentHarness } from "@toolhost/core";
import bashPlugin from "../dist/index.js";

const { workspace, options, commands } = JSON.parse(readFileSync(process.argv[2], "utf8"));
const harness = new AgentHarness({ cwd: workspace, workspace });
await harness.use(bashPlugin, { sandbox: "required", ...options });
for (const [index, command] of commands.entries()) {
  const [result] = await harness.executeToolCalls([{ id: String(index + 1), name: "bash", arguments: { command } }]);
  const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
  console.log(JSON.stringify({ text, isError: result.isError === true, enforced: result.details?.sandbox?.enforced === true }));
}
await harness.dispose();
