import { ToolhostError, type AgentContext, type AssistantStreamEvent, type Model, type StreamFn } from "@toolhost/core";
import OpenAI, { APIUserAbortError, type ClientOptions } from "openai";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import { type ChatChunk, MessageAssembler } from "./_assemble.js";
import { toChatMessages, toChatTools } from "./convert.js";
import { ProviderErrorCode, describeFailure } from "./errors.js";

/** The endpoint used when neither `baseURL` nor `OPENAI_BASE_URL` names one. */
export const OPENAI_BASE_URL = "https://api.openai.com/v1";

/** How to reach an OpenAI-compatible Chat Completions endpoint, and how to ask it. */
export interface OpenAIStreamOptions {
  /**
   * The endpoint, up to and including `/v1` (`http://127.0.0.1:11434/v1` for Ollama). Default: the
   * `OPENAI_BASE_URL` environment variable, else `https://api.openai.com/v1`.
   */
  baseURL?: string;
  /**
   * The API key, sent as `Authorization: Bearer …`. Default: the environment variable named by
   * `apiKeyEnv`. Required for api.openai.com; a local server (Ollama, llama.cpp, vLLM) needs none,
   * and then no `Authorization` header is sent.
   */
  apiKey?: string;
  /** The environment variable that holds the key when `apiKey` is not given. Default `OPENAI_API_KEY`. */
  apiKeyEnv?: string;
  /** Extra HTTP headers sent with every request (OpenRouter's `HTTP-Referer`, a proxy's token). */
  headers?: Record<string, string>;
  /** Sampling temperature; the server's default when not given. */
  temperature?: number;
  /**
   * The most tokens the model may write in one answer. Sent as `max_completion_tokens` to
   * api.openai.com (its newer models refuse `max_tokens`) and as `max_tokens` elsewhere.
   */
  maxTokens?: number;
  /** How many times a failed request (connection error, 408, 409, 429, 5xx) is retried. Default 2. */
  maxRetries?: number;
  /** How long to wait for the endpoint to start answering, per attempt, in ms. Default 10 minutes. */
  timeoutMs?: number;
}

/**
 * A `StreamFn` for an OpenAI-compatible Chat Completions endpoint.
 *
 * Throws a `ToolhostError` at once (not when streaming) when the options cannot work: code
 * `TOOLHOST_PROVIDER_NO_KEY` when api.openai.com is the endpoint and there is no key, or when
 * `apiKeyEnv` names an unset variable; `TOOLHOST_PROVIDER_BAD_BASE_URL` when `baseURL` is not an
 * http(s) URL. The returned function never throws: every failure is its `done` message.
 */
export function createOpenAIStreamFn(options: OpenAIStreamOptions = {}): StreamFn {
  const baseURL = resolveBaseURL(options.baseURL);
  const isOpenAI = new URL(baseURL).hostname === "api.openai.com";
  const apiKey = resolveApiKey(options, baseURL, isOpenAI);
  const url = `${baseURL.replace(/\/+$/, "")}/chat/completions`;
  const maxRetries = options.maxRetries ?? 2;

  const clientOptions: ClientOptions = {
    baseURL,
    // The SDK insists on a key; with none, a placeholder is given and its header removed below.
    apiKey: apiKey ?? "toolhost-no-key",
    defaultHeaders: { ...(apiKey === undefined ? { Authorization: null } : {}), ...options.headers },
    maxRetries,
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
  };

  return (model, context, { signal } = {}) =>
    streamMessage({ clientOptions, url, isOpenAI, options, timeoutMs: options.timeoutMs }, model, context, signal);
}

interface StreamSetup {
  clientOptions: ClientOptions;
  url: string;
  isOpenAI: boolean;
  options: OpenAIStreamOptions;
  timeoutMs: number | undefined;
}

async function* streamMessage(
  setup: StreamSetup,
  model: Model,
  context: AgentContext,
  signal: AbortSignal | undefined,
): AsyncGenerator<AssistantStreamEvent> {
  const assembler = new MessageAssembler();
  const counted = { attempts: 0, unparsedChunk: undefined as string | undefined };
  const aborted = (): AssistantStreamEvent => ({
    type: "done",
    message: assembler.message(model.id, {
      stopReason: "aborted",
      errorMessage: `Aborted: the request to ${setup.url} was cancelled.`,
    }),
  });
  try {
    if (signal?.aborted) {
      yield aborted();
      return;
    }
    const request = clientOf(setup, counted).chat.completions.create(requestBody(setup, model, context), signal ? { signal } : {});
    const stream = await untilAborted(request, signal);
    if (stream !== undefined) for await (const chunk of stream) yield* assembler.push(chunk as ChatChunk);
    // The SDK ends the iteration quietly when the signal aborts it.
    if (stream === undefined || signal?.aborted) {
      yield aborted();
      return;
    }
    const message = assembler.message(model.id);
    if (counted.attempts > 1) message.retries = counted.attempts - 1;
    yield { type: "done", message };
  } catch (error) {
    if (signal?.aborted || error instanceof APIUserAbortError) {
      yield aborted();
      return;
    }
    const errorMessage = describeFailure(error, { url: setup.url, model: model.id, timeoutMs: setup.timeoutMs, ...counted });
    yield { type: "done", message: assembler.message(model.id, { stopReason: "error", errorMessage }) };
  }
}

/** The SDK's client for one request, counting its attempts and keeping the chunk it could not parse. */
function clientOf(setup: StreamSetup, counted: { attempts: number; unparsedChunk: string | undefined }): OpenAI {
  return new OpenAI({
    ...setup.clientOptions,
    // The SDK logs the chunk it could not parse and then throws a SyntaxError without it; kept
    // here so the error message can quote it. Its other logging stays off unless OPENAI_LOG asks.
    ...sdkLogging((chunk) => {
      counted.unparsedChunk ??= chunk;
    }),
    // Counted here so that an error can say how many attempts the retries made.
    fetch: (input, init) => {
      counted.attempts += 1;
      return fetch(input, init);
    },
  });
}

/**
 * The SDK sees the signal only between attempts: while it waits out a retry's backoff (seconds,
 * or whatever `retry-after` says) an abort would wait too. This answers at once; the request
 * then ends on its own with an abort error, which nobody needs.
 */
async function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (!signal) return promise;
  promise.catch(() => undefined);
  let onAbort: (() => void) | undefined;
  const abort = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, abort]);
  } finally {
    signal.removeEventListener("abort", onAbort!);
  }
}

const LOG_LEVELS = ["error", "warn", "info", "debug"] as const;

function sdkLogging(onUnparsedChunk: (chunk: string) => void): Pick<ClientOptions, "logger" | "logLevel"> {
  const asked = process.env.OPENAI_LOG;
  const forward = LOG_LEVELS.find((level) => level === asked) !== undefined;
  const pass =
    (level: (typeof LOG_LEVELS)[number]) =>
    (message: string, ...rest: unknown[]) => {
      if (forward) console[level](message, ...rest);
    };
  return {
    logLevel: forward ? (asked as (typeof LOG_LEVELS)[number]) : "error",
    logger: {
      error: (message, ...rest) => {
        if (message.startsWith("Could not parse message into JSON") && typeof rest[0] === "string") onUnparsedChunk(rest[0]);
        pass("error")(message, ...rest);
      },
      warn: pass("warn"),
      info: pass("info"),
      debug: pass("debug"),
    },
  };
}

function requestBody(setup: StreamSetup, model: Model, context: AgentContext): ChatCompletionCreateParamsStreaming {
  const { temperature, maxTokens } = setup.options;
  return {
    model: model.id,
    messages: toChatMessages(context),
    ...(context.tools.length > 0 ? { tools: toChatTools(context.tools) } : {}),
    stream: true,
    stream_options: { include_usage: true },
    ...(temperature !== undefined ? { temperature } : {}),
    ...(maxTokens !== undefined ? (setup.isOpenAI ? { max_completion_tokens: maxTokens } : { max_tokens: maxTokens }) : {}),
  };
}

function resolveBaseURL(option: string | undefined): string {
  const baseURL = option || process.env.OPENAI_BASE_URL || OPENAI_BASE_URL;
  let parsed: URL | undefined;
  try {
    parsed = new URL(baseURL);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    const from = option ? "the baseURL option" : "the OPENAI_BASE_URL environment variable";
    throw new ToolhostError(
      ProviderErrorCode.BAD_BASE_URL,
      `@toolhost/provider-openai: ${from} is ${JSON.stringify(baseURL)}, which is not an http(s) URL. Give the endpoint's address up to /v1, e.g. "http://127.0.0.1:11434/v1" for Ollama.`,
    );
  }
  return baseURL;
}

function resolveApiKey(options: OpenAIStreamOptions, baseURL: string, isOpenAI: boolean): string | undefined {
  if (options.apiKey) return options.apiKey;
  const variable = options.apiKeyEnv ?? "OPENAI_API_KEY";
  const fromEnv = process.env[variable];
  if (fromEnv) return fromEnv;
  if (options.apiKeyEnv !== undefined) {
    throw new ToolhostError(
      ProviderErrorCode.NO_KEY,
      `@toolhost/provider-openai: the apiKeyEnv option names the environment variable ${variable}, but it is not set. Set ${variable} to the API key of ${baseURL}, or remove apiKeyEnv.`,
    );
  }
  if (isOpenAI) {
    throw new ToolhostError(
      ProviderErrorCode.NO_KEY,
      `@toolhost/provider-openai: no API key for ${baseURL}. Set the OPENAI_API_KEY environment variable, or give the plugin's apiKey option; for a local server (Ollama, llama.cpp, vLLM) set baseURL to its address instead.`,
    );
  }
  return undefined;
}
