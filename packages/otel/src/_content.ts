import type { AgentToolResult, HarnessHooks } from "@toolhost/core";

/*
 * What a span may hold of a call's content, when the user opted in: JSON, passed through the
 * harness's `redact` hook once more as a whole (the kernel redacted each string of the event; a
 * redactor that reads `"password": "…"` needs the key beside the value), and cut.
 */

const WITHHELD = "[withheld: redaction failed]";

/** A value as a bounded, redacted JSON text for an attribute. */
export function contentText(redact: HarnessHooks["redact"], value: unknown, max: number): string {
  let text: string;
  try {
    text = JSON.stringify(value, (_key, each: unknown) => (typeof each === "bigint" ? `${each}n` : each)) ?? "null";
  } catch {
    text = "[unserializable]";
  }
  if (redact.isUsed()) {
    try {
      const redacted: unknown = redact.call(text);
      if (typeof redacted !== "string") return WITHHELD;
      text = redacted;
    } catch {
      return WITHHELD;
    }
  }
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

/** What a result's content says, for `gen_ai.tool.call.result`: text blocks as they are, images by type and size only. */
export function resultValue(result: AgentToolResult): unknown {
  return result.content.map((block) =>
    block.type === "text" ? { type: "text", text: block.text } : { type: "image", mimeType: block.mimeType, base64Length: block.data.length },
  );
}
