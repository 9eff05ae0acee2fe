import type { IncomingMessage } from "node:http";

// Reading a stream whole, for the hook's forwarding client (bundled without core: Node built-ins
// only here), `hook serve`, and standard input.

/** A stream's whole text (UTF-8). */
export async function readAll(stream: AsyncIterable<unknown>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * An HTTP message's whole body (UTF-8). Rejects with `tooBig` once it passes `max` bytes (and ends
 * the connection), and when the connection closes before the body's end.
 */
export function readCapped(message: IncomingMessage, max: number, tooBig: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    message.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) {
        chunks.push(chunk);
        return;
      }
      reject(new Error(tooBig));
      message.destroy();
    });
    message.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    message.on("error", reject);
    message.on("close", () => reject(new Error("the connection closed before the body was whole")));
  });
}
