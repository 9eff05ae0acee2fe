import type { CommandModule } from "../cli.js";
import { agent } from "./agent.js";
import { approvals } from "./approvals.js";
import { call } from "./call.js";
import { config } from "./config.js";
import { hook } from "./hook.js";
import { init } from "./init.js";
import { list } from "./list.js";
import { mcp } from "./mcp.js";
import { policy } from "./policy.js";
import { run } from "./run.js";
import { schema } from "./schema.js";
import { trust } from "./trust.js";
import { worker } from "./worker.js";

/** Every command, in the order `toolhost --help` lists them. Add a command here. */
export const commands: readonly CommandModule[] = [list, call, run, agent, config, trust, init, schema, policy, hook, worker, mcp, approvals];
