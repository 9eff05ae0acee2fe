import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { CLI_DIR, type RunResult } from "./_helpers.js";

// The real Claude Code and Gemini CLI (the cli package's devDependencies), run headless against a
// fake model on loopback that asks for the shell calls a test names and keeps what each call gave
// back. Nothing is downloaded at run time: both clients are installed with the package.

const require = createRequire(join(CLI_DIR, "package.json"));
/** Claude Code's native binary, from its platform package (the wrapper's postinstall copies the same file). */
export const CLAUDE = join(dirname(require.resolve("@anthropic-ai/claude-code/package.json")), "bin", "claude.exe");
/** Gemini CLI's bundled entry, run with this Node. */
export const GEMINI = join(dirname(require.resolve("@google/gemini-cli/package.json")), "bundle", "gemini.js");

/** One shell call the model asks for: its command, and for Claude Code the tool's own timeout. */
export interface AskedCall {
  command: string;
  timeoutMs?: number;
}

/** A model on loopback that speaks Anthropic's Messages API (streamed) and Gemini's generateContent. */
export interface FakeModel {
  url: string;
  /** Sets what the next run's model asks for: these shell calls, one a turn, then a plain answer. */
  script(calls: ReadonlyArray<string | AskedCall>): void;
  /** What the model was given back for each call of the last run, in order (the tool results' text). */
  results(): string[];
  close(): Promise<void>;
}

/** Starts the fake model on 127.0.0.1 (a free port). */
export async function startFakeModel(): Promise<FakeModel> {
  let calls: AskedCall[] = [];
  let seen: string[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      try {
        const answered = answer(request, response, body, calls);
        if (answered) seen = answered;
      } catch (error) {
        response.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: String(error) } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    script(given) {
      calls = given.map((call) => (typeof call === "string" ? { command: call } : call));
      seen = [];
    },
    results: () => [...seen],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Answers one request; returns the tool results the conversation holds when it is the agent's own turn. */
function answer(request: IncomingMessage, response: ServerResponse, body: string, calls: AskedCall[]): string[] | undefined {
  const url = request.url ?? "";
  const json = (value: unknown): void => void response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(value));
  if (url.startsWith("/v1/messages/count_tokens")) return json({ input_tokens: 10 }), undefined;
  if (url.startsWith("/v1/messages")) return anthropic(JSON.parse(body) as AnthropicRequest, response, calls);
  if (url.includes(":countTokens")) return json({ totalTokens: 10 }), undefined;
  if (url.includes(":generateContent") || url.includes(":streamGenerateContent")) return gemini(JSON.parse(body) as GeminiRequest, url, response, calls);
  response.writeHead(404).end();
  return undefined;
}

/** Each message an id of its own: Claude Code takes a repeated id for more of the same message. */
let messageCount = 0;

type Block = { type: string; text?: string; content?: unknown };
interface AnthropicRequest {
  model: string;
  stream?: boolean;
  tools?: Array<{ name: string }>;
  messages: Array<{ role: string; content: string | Block[] }>;
}

function blocksText(content: unknown): string {
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.map((block: Block) => (block.type === "text" ? (block.text ?? "") : "")).join("\n") : "";
}

function anthropic(request: AnthropicRequest, response: ServerResponse, calls: AskedCall[]): string[] | undefined {
  const agent = (request.tools ?? []).some((tool) => tool.name === "Bash");
  const results = request.messages.flatMap((message) => (Array.isArray(message.content) ? message.content.filter((block) => block.type === "tool_result") : []));
  const next = agent ? calls[results.length] : undefined;
  const content = next
    ? [{ type: "tool_use", id: `toolu_${results.length + 1}`, name: "Bash", input: { command: next.command, description: "a call the test asks for", ...(next.timeoutMs && { timeout: next.timeoutMs }) } }]
    : [{ type: "text", text: "done" }];
  const stop = next ? "tool_use" : "end_turn";
  const message = { id: `msg_${++messageCount}`, type: "message", role: "assistant", model: request.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
  if (!request.stream) {
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ...message, content, stop_reason: stop }));
  } else {
    const events: Array<[string, Record<string, unknown>]> = [["message_start", { message }]];
    for (const [index, block] of content.entries()) {
      const started = block.type === "tool_use" ? { ...block, input: {} } : { type: "text", text: "" };
      const delta = block.type === "tool_use" ? { type: "input_json_delta", partial_json: JSON.stringify((block as { input: unknown }).input) } : { type: "text_delta", text: (block as { text: string }).text };
      events.push(["content_block_start", { index, content_block: started }], ["content_block_delta", { index, delta }], ["content_block_stop", { index }]);
    }
    events.push(["message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } }], ["message_stop", {}]);
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.end(events.map(([type, data]) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`).join(""));
  }
  return agent ? results.map((block) => blocksText(block.content)) : undefined;
}

interface GeminiRequest {
  tools?: Array<{ functionDeclarations?: Array<{ name: string }> }>;
  contents?: Array<{ parts?: Array<{ functionResponse?: { response?: { output?: unknown; error?: unknown } } }> }>;
}

function gemini(request: GeminiRequest, url: string, response: ServerResponse, calls: AskedCall[]): string[] | undefined {
  const agent = (request.tools ?? []).some((tool) => (tool.functionDeclarations ?? []).some((declared) => declared.name === "run_shell_command"));
  const results = (request.contents ?? []).flatMap((content) => (content.parts ?? []).flatMap((part) => (part.functionResponse ? [part.functionResponse.response ?? {}] : [])));
  const next = agent ? calls[results.length] : undefined;
  // Gemini CLI's own side requests (its router, its next-speaker check) read JSON from the text.
  const parts = next ? [{ functionCall: { name: "run_shell_command", args: { command: next.command, description: "a call the test asks for" } } }] : [{ text: agent ? "done" : '{"reasoning":"done","next_speaker":"user","model_choice":"flash"}' }];
  const chunk = { candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 } };
  if (url.includes(":streamGenerateContent")) response.writeHead(200, { "content-type": "text/event-stream" }).end(`data: ${JSON.stringify(chunk)}\n\n`);
  else response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(chunk));
  return agent ? results.map((result) => String(result.output ?? result.error ?? JSON.stringify(result))) : undefined;
}

/** Runs a client to its end: exit code, output. */
export function runClient(file: string, args: string[], options: { cwd: string; env: Record<string, string | undefined> }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** What the clients need besides the hook: no update checks, no telemetry, the fake model, a home of the test's own. */
export function clientEnv(home: string, model: FakeModel): Record<string, string | undefined> {
  return {
    HOME: home,
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: "sk-test-not-a-key",
    GOOGLE_GEMINI_BASE_URL: model.url,
    GEMINI_API_KEY: "test-not-a-key",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    GEMINI_TELEMETRY_ENABLED: "false",
    NO_COLOR: "1",
    // The test process's own choices must not reach the hooks the clients run.
    TOOLHOST_HOOK_SERVER: undefined,
    TOOLHOST_HOOK_TOKEN: undefined,
  };
}

/** Gemini CLI's user settings for a headless run on an API key, with the folder trusted, merged into what is there (the hook). */
export function geminiSettings(home: string): void {
  const file = join(home, ".gemini", "settings.json");
  const existing = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : {};
  mkdirSync(dirname(file), { recursive: true });
  const settings = { ...existing, security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } }, privacy: { usageStatisticsEnabled: false } };
  writeFileSync(file, JSON.stringify(settings, null, 2));
}

/** Claude Code's transcript lines of the run in `project` (its hooks' outputs included), parsed. */
export function claudeTranscript(home: string): Array<Record<string, unknown>> {
  const projects = join(home, ".claude", "projects");
  if (!existsSync(projects)) return [];
  const lines: Array<Record<string, unknown>> = [];
  for (const folder of readdirSync(projects)) {
    for (const file of readdirSync(join(projects, folder)).filter((name) => name.endsWith(".jsonl"))) {
      for (const line of readFileSync(join(projects, folder, file), "utf8").split("\n")) if (line.trim() !== "") lines.push(JSON.parse(line) as Record<string, unknown>);
    }
  }
  return lines;
}
