#!/usr/bin/env node
// A Vercel AI SDK agent with toolhost's tools, on any OpenAI-compatible Chat Completions endpoint:
//
//   OPENAI_BASE_URL=http://localhost:11434/v1 MODEL=qwen2.5-coder node agent.mjs "Which files are largest here?"
//
// The tools and the policy are the project's toolhost config (toolhost.config.json in the working
// folder or above), or, without one, tool-fs, tool-bash and hooks-policy's `recommended` preset.
// When the policy asks, the SDK's approval request is shown here and your answer goes back to the
// SDK (and through it to toolhost's approve stage). With OTEL_EXPORTER_OTLP_ENDPOINT set, every
// tool call is an OpenTelemetry span under this run's span (see docs/observability.md).
import { dirname } from "node:path";
import { createInterface } from "node:readline/promises";
import { fileURLToPath } from "node:url";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { trace } from "@opentelemetry/api";
import { toolhostTools } from "@toolhost/ai-sdk";
import { createHost } from "@toolhost/core/config";
import otelPlugin, { startOtlpFromEnvironment } from "@toolhost/otel";
import { stepCountIs, streamText } from "ai";

const question = process.argv.slice(2).join(" ").trim();
if (!question) {
  console.error('Usage: OPENAI_BASE_URL=… [OPENAI_API_KEY=…] [MODEL=…] node agent.mjs "your question"');
  process.exit(2);
}

const otlp = await startOtlpFromEnvironment({ serviceName: "toolhost-ai-sdk-agent", warn: (message) => console.error(`otel: ${message}`) });
const host = await createHost({
  // Plugins are found from the config's folder, then from this example's own node_modules.
  resolveFrom: [{ dir: dirname(fileURLToPath(import.meta.url)), what: "the example's folder" }],
  defaultPlugins: ["@toolhost/tool-fs", "@toolhost/tool-bash", ["@toolhost/hooks-policy", { extends: ["recommended"] }], "@toolhost/otel"],
});
const { harness } = host;
// A project's config replaces the defaults above: without @toolhost/otel in it, the exporters would
// send no span of a call. With them running, the plugin is applied here (a config that names it sets its options).
if (otlp && !host.plugins.some((plugin) => plugin.name === "@toolhost/otel")) await harness.use(otelPlugin, {});
const tools = toolhostTools(host);
const provider = createOpenAICompatible({
  name: "openai-compatible",
  baseURL: process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1",
  apiKey: process.env.OPENAI_API_KEY,
  includeUsage: true,
});
const model = provider(process.env.MODEL ?? "gpt-4o-mini");
const terminal = createInterface({ input: process.stdin, output: process.stderr });
const controller = new AbortController();
process.once("SIGINT", () => controller.abort());

/** Shows an approval request with the policy's reason and asks; the answer for the SDK. */
async function answer(request) {
  const { toolName, input } = request.toolCall;
  const explained = await harness.getService("policy")?.explain({ tool: toolName, args: input });
  const why = explained ? ` (${explained.reason})` : "";
  const reply = await terminal.question(`\nAllow ${toolName} ${JSON.stringify(input)}?${why} [y/N] `);
  const approved = /^y(es)?$/i.test(reply.trim());
  return { type: "tool-approval-response", approvalId: request.approvalId, approved, reason: approved ? "approved at the terminal" : "refused at the terminal" };
}

/** One round with the model: streams its text and the tool calls, returns the approval requests it ended with. */
async function round(messages) {
  const result = streamText({
    model,
    tools,
    messages,
    system: "You are a careful assistant working in the user's project. Use the tools to look before you answer. When a tool call is refused, do not retry it; say what you would have done.",
    stopWhen: stepCountIs(20),
    abortSignal: controller.signal,
  });
  const requests = [];
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") process.stdout.write(part.text);
    else if (part.type === "tool-call") console.error(`\n→ ${part.toolName} ${JSON.stringify(part.input)}`);
    else if (part.type === "tool-result" && !part.preliminary) console.error(`← ${part.toolName}: ${summary(part.output)}`);
    else if (part.type === "tool-error") console.error(`✗ ${part.toolName}: ${String(part.error?.message ?? part.error).split("\n")[0]}`);
    else if (part.type === "tool-approval-request") requests.push(part);
    else if (part.type === "error") throw part.error;
  }
  messages.push(...(await result.response).messages);
  return requests;
}

function summary(output) {
  const text = (output?.content ?? []).map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join(" ");
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

let exitCode = 0;
try {
  await trace.getTracer("toolhost-ai-sdk-agent").startActiveSpan("agent run", async (span) => {
    try {
      const messages = [{ role: "user", content: question }];
      for (let turn = 0; turn < 10; turn++) {
        const requests = await round(messages);
        if (requests.length === 0) break;
        const answers = [];
        for (const request of requests) answers.push(await answer(request));
        messages.push({ role: "tool", content: answers });
      }
      process.stdout.write("\n");
    } finally {
      span.end();
    }
  });
} catch (error) {
  console.error(`\n${controller.signal.aborted ? "aborted" : `failed: ${error?.message ?? error}`}`);
  exitCode = controller.signal.aborted ? 130 : 1;
} finally {
  terminal.close();
  await harness.dispose();
  await otlp?.shutdown();
}
process.exit(exitCode);
