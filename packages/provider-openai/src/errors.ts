import { describeError } from "@toolhost/core";
import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";

/** Stable codes of the errors this package throws (as `ToolhostError.code`). */
export const ProviderErrorCode = Object.freeze({
  /** The OpenAI endpoint needs a key and none was given. */
  NO_KEY: "TOOLHOST_PROVIDER_NO_KEY",
  /** `baseURL` is not an http(s) URL. */
  BAD_BASE_URL: "TOOLHOST_PROVIDER_BAD_BASE_URL",
} as const);

/** What the stream knew about the request when it failed. */
export interface RequestFacts {
  url: string;
  model: string;
  attempts: number;
  timeoutMs: number | undefined;
  /** The data of the chunk that was not JSON, when the SDK said which. */
  unparsedChunk?: string | undefined;
}

const EXCERPT = 500;

/** A message that says what the endpoint answered (status, body excerpt, URL) and what to do. */
export function describeFailure(error: unknown, facts: RequestFacts): string {
  const where = `the model endpoint ${facts.url}`;
  const tries = facts.attempts > 1 ? ` (after ${facts.attempts} attempts)` : "";
  if (error instanceof APIConnectionTimeoutError) {
    const limit = facts.timeoutMs !== undefined ? ` within ${facts.timeoutMs} ms` : "";
    return `Timed out: ${where} did not start answering${limit}${tries}. Check that the server is up, or raise timeoutMs.`;
  }
  if (error instanceof APIConnectionError) {
    return `Could not reach ${where}${tries}: ${causes(error)}. Check baseURL and that the server is running.`;
  }
  if (error instanceof APIError) {
    const excerpt = bodyExcerpt(error);
    if (error.status === undefined) {
      return `Stream error: ${where} sent an error in the middle of its answer: ${excerpt}`;
    }
    return `HTTP ${error.status} from ${where}${tries}: ${excerpt}${hint(error.status, facts.model)}`;
  }
  if (error instanceof SyntaxError) {
    const chunk = facts.unparsedChunk !== undefined ? `: ${JSON.stringify(excerpt(facts.unparsedChunk, 200))}` : "";
    return `Malformed stream: ${where} sent a chunk that is not valid JSON (${error.message})${chunk}. Check that baseURL is an OpenAI-compatible Chat Completions endpoint.`;
  }
  return `The stream from ${where} failed: ${causes(error)}. Try again; if it keeps happening, check the server's logs.`;
}

function bodyExcerpt(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  let text: string;
  if (body && typeof body.message === "string") text = body.message;
  else if (body !== undefined && body !== null) text = JSON.stringify(body);
  else text = error.message.replace(/^\d{3} /, "");
  return excerpt(text.trim() || "(empty body)", EXCERPT);
}

function excerpt(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}… (${text.length} characters)` : text;
}

function hint(status: number, model: string): string {
  if (status === 401 || status === 403) return ". Check the API key (the apiKey option, or the OPENAI_API_KEY environment variable).";
  if (status === 404) return `. Check baseURL (it usually ends in /v1) and that the server has the model "${model}".`;
  if (status === 429) return ". The endpoint is limiting requests: wait and try again, or lower the rate.";
  if (status >= 500) return ". The server failed: try again later, or check its logs.";
  return "";
}

/** "fetch failed: connect ECONNREFUSED 127.0.0.1:9" rather than just "Connection error." */
function causes(error: unknown): string {
  return describeError(error);
}
