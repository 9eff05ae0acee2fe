import { type Static, Type, type AgentTool } from "@toolhost/core";

/** Options of `createApiCallTool`, and of the plugin. */
export const ApiCallOptions = Type.Object(
  {
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: "Headers sent with every request (a call's own headers win)." }),
    ),
    maxResponseChars: Type.Integer({
      minimum: 1,
      default: 100_000,
      description: "Longer response bodies are cut to this many characters in the result's text.",
    }),
  },
  { additionalProperties: false },
);
export type ApiCallOptions = Static<typeof ApiCallOptions>;

const parameters = Type.Object({
  url: Type.String({ format: "uri", description: "The URL to call (http or https)." }),
  method: Type.Optional(Type.Union([Type.Literal("GET"), Type.Literal("POST"), Type.Literal("PUT"), Type.Literal("DELETE")])),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  body: Type.Optional(Type.String({ description: "The request body, sent as it is." })),
});

/** What a `make_api_call` result carries in `details`. */
export interface ApiCallDetails {
  url: string;
  method: string;
  statusCode?: number;
  headers?: Record<string, string>;
  truncated?: boolean;
  error?: string;
}

/** The `make_api_call` tool: one HTTP request; HTTP and network failures come back as error results. */
export function createApiCallTool(
  options: Partial<ApiCallOptions> = {},
): AgentTool<typeof parameters, ApiCallDetails> {
  const maxChars = options.maxResponseChars ?? 100_000;
  return {
    name: "make_api_call",
    label: "Make API Call",
    description: "Make an HTTP request (GET, POST, PUT or DELETE) and return the response body.",
    parameters,
    annotations: { openWorld: true },
    // The one destination a call reaches, so a policy's url and host rules judge it.
    access: (params) => ({ network: [{ url: params.url, method: params.method ?? "GET" }] }),
    async execute(_id, params, signal) {
      const method = params.method ?? "GET";
      const url = new URL(params.url);
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        return failure(`Only http and https URLs can be called, not ${url.protocol}`, { url: params.url, method });
      }
      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers: { ...options.headers, ...params.headers },
          ...(params.body !== undefined ? { body: params.body } : {}),
          signal,
        });
      } catch (error) {
        if (signal.aborted) throw error;
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        const why = cause?.code ?? cause?.message ?? (error as Error).message;
        return failure(`Network error calling ${method} ${params.url}: ${why}`, { url: params.url, method, error: why });
      }
      const text = await response.text();
      const headers = Object.fromEntries(response.headers.entries());
      let body = text;
      if ((headers["content-type"] ?? "").includes("application/json")) {
        try {
          body = JSON.stringify(JSON.parse(text), null, 2);
        } catch {
          // not valid JSON after all: keep the text as it came
        }
      }
      const truncated = body.length > maxChars;
      if (truncated) body = `${body.slice(0, maxChars)}\n… (cut: ${body.length - maxChars} more characters)`;
      const details: ApiCallDetails = { url: params.url, method, statusCode: response.status, headers, truncated };
      if (!response.ok) {
        return {
          content: [{ type: "text", text: `HTTP ${response.status} ${response.statusText}\n${body}` }],
          details,
          isError: true,
        };
      }
      return { content: [{ type: "text", text: body }], details };
    },
  };
}

function failure(text: string, details: ApiCallDetails) {
  return { content: [{ type: "text" as const, text }], details, isError: true };
}
