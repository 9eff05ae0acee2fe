// Issue 33's classes through the library and a real harness, unconfined (trusted and not) and
// confined, with the connection a confined call's proxy asks about.
import { AgentHarness, type AgentTool, type ToolAccess, Type } from "@toolhost/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import policyPlugin, { createPolicy } from "../src/index.js";
import { makeWorkspace } from "./_helpers.js";
import { classWorkspace, contained, type Expect, INVENTORY_CLASSES, type InventoryCase } from "./inventory-classes.js";

let ws = "";
let cleanup = () => {};
beforeAll(() => {
  ({ ws, cleanup } = makeWorkspace());
  classWorkspace(ws);
});
afterAll(() => cleanup());

type Mode = "open" | "trusted" | "confined";
const expected = (one: InventoryCase, mode: Mode): Expect => (mode === "confined" ? one.confined : mode === "trusted" ? (one.trusted ?? one.open) : one.open);

function accessOf(command: string, mode: Mode): ToolAccess {
  return { commands: [{ command, cwd: ws }], ...(mode === "confined" && { confinement: contained(ws) }) };
}

for (const each of INVENTORY_CLASSES) {
  describe(`${each.name}, through createPolicy().decide`, () => {
    for (const mode of ["open", "trusted", "confined"] as const) {
      it.each(each.cases.map((one) => [one.command, expected(one, mode)] as const))(`${mode}: %s → %s`, (command, decision) => {
        const policy = createPolicy({ extends: ["recommended"] }, { cwd: ws, workspace: ws, trustedWorkspace: mode === "trusted" });
        const explanation = policy.decide({ tool: "bash", args: { command }, access: accessOf(command, mode) });
        expect(explanation.decision, explanation.reason).toBe(decision);
      });
    }
    const connecting = each.cases.filter((one) => one.connects !== undefined);
    if (connecting.length > 0) {
      it.each(connecting.map((one) => [one.command, one.connects as string] as const))("confined: %s connects to %s, which is asked about", (command, destination) => {
        const policy = createPolicy({ extends: ["recommended"] }, { cwd: ws, workspace: ws });
        const connection = policy.decideConnection({ tool: "bash", args: { command }, access: { network: [{ url: destination }] } });
        expect(connection.decision, connection.reason).toBe("ask");
        // Judged as the URL a tunnel reaches, as a URL parser writes it (no :443).
        expect(connection.parts[0]?.subject).toBe(new URL(`https://${destination}/`).href);
      });
    }
  });

  describe(`${each.name}, through a real AgentHarness`, () => {
    for (const mode of ["open", "trusted", "confined"] as const) {
      it(`${mode}: runs the allowed calls and refuses the others, saying why`, async () => {
        const runs: string[] = [];
        const harness = new AgentHarness({ cwd: ws, workspace: ws, tools: [declaringBash(runs, mode)] });
        await harness.use(policyPlugin, { extends: ["recommended"] }, { layers: [{ owner: "project", trusted: mode === "trusted", options: { extends: ["recommended"] } }] });
        const calls = each.cases.map((one, index) => ({ id: String(index), name: "bash", arguments: { command: one.command } }));
        const results = await harness.executeToolCalls(calls, { toolExecution: "sequential" });
        const got = results.map((result) => {
          const details = result.details as { code?: string };
          return result.isError ? (details.code === "TOOLHOST_BLOCKED" ? "deny" : details.code === "TOOLHOST_NOT_APPROVED" ? "ask" : `error ${details.code}`) : "allow";
        });
        expect(Object.fromEntries(each.cases.map((one, index) => [one.command, got[index]]))).toEqual(Object.fromEntries(each.cases.map((one) => [one.command, expected(one, mode)])));
        expect(runs).toHaveLength(each.cases.filter((one) => expected(one, mode) === "allow").length);
      });
    }
  });
}

/** A bash-like tool: it declares its command (and, confined, tool-bash's sandbox) and records that it ran. */
function declaringBash(runs: string[], mode: Mode): AgentTool {
  return {
    name: "bash",
    label: "bash",
    description: "test bash",
    parameters: Type.Object({ command: Type.String() }),
    access: (params: { command: string }) => accessOf(params.command, mode),
    async execute(_id: string, params: { command: string }) {
      runs.push(params.command);
      return { content: [{ type: "text", text: "ran" }], details: {} };
    },
  } as AgentTool;
}
