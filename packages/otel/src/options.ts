import { type Static, Type } from "@toolhost/core";

/** The options of `@toolhost/otel`. */
export const OtelOptions = Type.Object(
  {
    // Content sent to the telemetry backend: a project the user has not trusted may turn it off, not on.
    captureContent: Type.Optional(
      Type.Boolean({
        reach: "order",
        order: [false, true],
        description:
          "record each call's arguments and result (gen_ai.tool.call.arguments / .result) and the decision's reason, after hooks.redact; default: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true",
      }),
    ),
    maxContentLength: Type.Integer({
      minimum: 64,
      default: 8192,
      description: "the most characters of each captured argument or result; the rest is cut with a note",
    }),
    toolType: Type.Union([Type.Literal("function"), Type.Literal("extension"), Type.Literal("datastore")], {
      default: "function",
      description: "gen_ai.tool.type of every call (the conventions' kinds; toolhost runs its tools on the agent's side: function)",
    }),
    agentName: Type.String({
      minLength: 1,
      default: "toolhost",
      description: "gen_ai.agent.name of the agent loop's invoke_agent span",
    }),
    agentSpans: Type.Boolean({
      default: true,
      description: "an invoke_agent span for each run of the agent loop, with a chat span for each model turn; the tool calls of a turn are its children",
    }),
  },
  { additionalProperties: false },
);

export type OtelOptions = Static<typeof OtelOptions>;

/** Whether content capture is on: the option, else the conventions' environment variable. */
export function captureContentFrom(options: OtelOptions, env: NodeJS.ProcessEnv = process.env): boolean {
  if (options.captureContent !== undefined) return options.captureContent;
  return env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === "true";
}
