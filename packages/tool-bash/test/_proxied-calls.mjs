// Runs bash calls through tool-bash's proxied sandbox (the built package) and the real hooks-policy,
// in a process of its own, so that a test can give that process a hosts file of its own (a mount
// namespace): the proxy resolves names as this process does. Reads { workspace, policy, commands }
// from the JSON file named on the command line; prints one JSON line per call: its text and the
// proxy's record of its connections.
import { readFileSync } from "node:fs";
import { AgentHarness } from "@toolhost/core";
import policyPlugin from "@toolhost/hooks-policy";
import bashPlugin from "../dist/index.js";

const { workspace, policy, commands } = JSON.parse(readFileSync(process.argv[2], "utf8"));
const harness = new AgentHarness({ cwd: workspace, workspace });
await harness.use(bashPlugin, { sandbox: "required", network: "proxy" });
await harness.use(policyPlugin, policy);
for (const [index, command] of commands.entries()) {
  const [result] = await harness.executeToolCalls([{ id: String(index + 1), name: "bash", arguments: { command } }]);
  const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
  console.log(JSON.stringify({ text, connections: result.details?.sandbox?.connections ?? [] }));
}
await harness.dispose();
