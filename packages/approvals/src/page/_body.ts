import type { IncomingMessage } from "node:http";

/**
 * A request's JSON body, read up to `max` bytes: past it the rest is read and dropped (so the
 * sender gets its answer rather than a reset connection) and the body refused.
 */
export async function readJson(request: IncomingMessage, max: number): Promise<{ value: unknown; bytes: number } | { error: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
    }
  } catch (error) {
    return { error: `the body could not be read (${(error as Error).message})` };
  }
  if (size > max) return { error: `the body is ${size} bytes, over the ${max} the page reads` };
  try {
    return { value: JSON.parse(Buffer.concat(chunks).toString("utf8")), bytes: size };
  } catch (error) {
    return { error: `the body is not JSON (${(error as Error).message})` };
  }
}
