import { type Static, Type } from "@toolhost/core";

/** `@toolhost/approvals`' options in a config. */
export const ApprovalsOptionsSchema = Type.Object(
  {
    timeout: Type.Integer({
      minimum: 1,
      maximum: 86_400,
      default: 300,
      description: "How long an ask waits on the page for a person, in seconds; then the call is refused, saying so.",
    }),
  },
  { additionalProperties: false },
);

export type ApprovalsOptions = Static<typeof ApprovalsOptionsSchema>;
