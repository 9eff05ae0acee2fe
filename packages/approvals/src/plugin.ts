import { createRequire } from "node:module";
import { definePlugin, type PluginReport } from "@toolhost/core";
import { pageFilePath } from "./page-file.js";
import { PageAsker } from "./ask/asker.js";
import { ApprovalsOptionsSchema } from "./options.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };
const NAME = "@toolhost/approvals";

/**
 * The `@toolhost/approvals` plugin: offers the service `"approvals"`, through which the front ends
 * of this host put an ask they have no one for on the user's approvals page (`toolhost approvals
 * serve`): the CLI without a terminal, `mcp serve` for a client that cannot elicit, a hook set to
 * `--on-ask page`, an AI SDK application that says so. It taps no hook: where a person is at hand
 * (a terminal) they are asked, and a worker never asks.
 */
const approvalsPlugin = definePlugin({
  name: NAME,
  version,
  options: ApprovalsOptionsSchema,
  apply(harness, options, context): PluginReport {
    const file = pageFilePath();
    const configPath = context?.layers.find((layer) => layer.owner === "project")?.file;
    const asker = new PageAsker(harness, { file, timeoutMs: options.timeout * 1000, configPath });
    harness.provideService("approvals", asker);
    const page = asker.page();
    return {
      settings: {
        page: page === undefined ? `none running (${file} names none: toolhost approvals serve starts one)` : `${page.url} (pid ${page.pid})`,
        timeout: `${options.timeout} s`,
      },
    };
  },
});

export default approvalsPlugin;
