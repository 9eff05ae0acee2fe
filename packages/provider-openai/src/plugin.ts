import { createRequire } from "node:module";
import { definePlugin, Type, type ModelService } from "@toolhost/core";
import { createOpenAIStreamFn } from "./stream.js";

export type { ModelService };

// Read, not written here, so that a release bump cannot leave it behind (src/ and dist/ are both one level down).
const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

const options = Type.Object(
  {
    model: Type.String({ minLength: 1, description: "The model name the endpoint knows, e.g. gpt-4o-mini or qwen2.5-coder:7b." }),
    baseURL: Type.Optional(
      Type.String({ description: "The endpoint up to /v1. Default OPENAI_BASE_URL, else https://api.openai.com/v1." }),
    ),
    apiKey: Type.Optional(Type.String({ description: "The API key. Prefer the environment: OPENAI_API_KEY, or apiKeyEnv." })),
    apiKeyEnv: Type.Optional(
      Type.String({ minLength: 1, description: "The environment variable holding the key. Default OPENAI_API_KEY." }),
    ),
    headers: Type.Optional(Type.Record(Type.String(), Type.String(), { description: "Extra HTTP headers for every request." })),
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
 * Provides the `"model"` service: `{ model: { id, provider: "openai" }, streamFn }`, for any
 * OpenAI-compatible Chat Completions endpoint. A missing key for api.openai.com fails here, at
 * start-up, with code `TOOLHOST_PROVIDER_NO_KEY`.
 */
export default definePlugin({
  name: "@toolhost/provider-openai",
  version,
  options,
  apply(harness, { model, ...streamOptions }) {
    const service: ModelService = {
      model: { id: model, provider: "openai" },
      streamFn: createOpenAIStreamFn(streamOptions),
    };
    harness.provideService("model", service);
  },
});
