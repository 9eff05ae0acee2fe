export { default, type ModelService } from "./plugin.js";
export { createOpenAIStreamFn, OPENAI_BASE_URL, type OpenAIStreamOptions } from "./stream.js";
export { toChatMessages, toChatTools } from "./convert.js";
export { ProviderErrorCode } from "./errors.js";
