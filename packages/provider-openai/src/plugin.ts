import { createRequire } from "node:module";
import { definePlugin, ToolhostError, Type, type ModelService, type StreamFn } from "@toolhost/core";
import { ProviderErrorCode } from "./errors.js";
import { createOpenAIStreamFn } from "./stream.js";

export type { ModelService };

// Read, not written here, so that a release bump cannot leave it behind (src/ and dist/ are both one level down).
const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

const options = Type.Object(
  {
    model: Type.String({ minLength: 1, description: "The model name the endpoint knows, e.g. gpt-4o-mini or qwen2.5-coder:7b." }),
    baseURL: Type.Optional(
      // Where the conversation and the API key are sent: only a trusted config may choose it (docs/trust.md).
      Type.String({ description: "The endpoint up to /v1. Default OPENAI_BASE_URL, else https://api.openai.com/v1.", trustedOnly: true }),
    ),
    apiKey: Type.Optional(Type.String({ description: "The API key. Prefer the environment: OPENAI_API_KEY, or apiKeyEnv.", trustedOnly: true })),
    apiKeyEnv: Type.Optional(
      Type.String({ minLength: 1, description: "The environment variable holding the key. Default OPENAI_API_KEY.", trustedOnly: true }),
    ),
    headers: Type.Optional(Type.Record(Type.String(), Type.String(), { description: "Extra HTTP headers for every request.", trustedOnly: true })),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
    maxTokens: Type.Optional(Type.Integer({ minimum: 1, description: "The most tokens the model may write per answer." })),
    maxRetries: Type.Optional(Type.Integer({ minimum: 0, description: "Retries of a failed request. Default 2." })),
    timeoutMs: Type.Optional(
      Type.Integer({ minimum: 1, description: "How long to wait for the endpoint to start answering, per attempt." }),
    ),
  },
  { additionalProperties: false },
);

/**
 * Provides the `"model"` service: `{ model: { id, provider: "openai" }, streamFn, check }`, for any
 * OpenAI-compatible Chat Completions endpoint. A missing key does not stop start-up (a host that
 * lists tools needs no model): `check()` throws it, with code `TOOLHOST_PROVIDER_NO_KEY`, and every
 * stream ends with it as its error. A `baseURL` that is not an http(s) URL fails here.
 */
export default definePlugin({
  name: "@toolhost/provider-openai",
  version,
  options,
  apply(harness, { model, ...streamOptions }) {
    let streamFn: StreamFn;
    let problem: ToolhostError | undefined;
    try {
      streamFn = createOpenAIStreamFn(streamOptions);
    } catch (error) {
      if (!(error instanceof ToolhostError) || error.code !== ProviderErrorCode.NO_KEY) throw error;
      problem = error;
      streamFn = failingStream(error);
    }
    const service: ModelService = {
      model: { id: model, provider: "openai" },
      streamFn,
      check() {
        if (problem) throw problem;
      },
    };
    harness.provideService("model", service);
  },
});

/** A stream that ends at once with the problem as its error: a stream never throws. */
function failingStream(problem: ToolhostError): StreamFn {
  return async function* (model) {
    yield {
      type: "done",
      message: { role: "assistant", content: [], stopReason: "error", errorMessage: problem.message, model: model.id, timestamp: Date.now() },
    };
  };
}
