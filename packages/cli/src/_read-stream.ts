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

/** A request body as `readBounded` read it: whole, or over the cap (its size so far, and whether it ended). */
export type BoundedBody = { text: string } | { over: number; ended: boolean };

/**
 * An HTTP request's body, kept up to `keep` bytes (0: read and dropped). Past `keep` it goes on
 * reading, and dropping, to the body's end or until `bound` bytes came, so the sender gets an
 * answer rather than a reset connection; at the bound it resolves with `ended: false` and the body
 * goes on flowing (dropped) until the connection ends. Rejects when the connection closes first.
 */
export function readBounded(message: IncomingMessage, keep: number, bound: number): Promise<BoundedBody> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (body: BoundedBody): void => {
      settled = true;
      chunks = [];
      resolve(body);
    };
    message.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (settled) return;
      if (size <= keep) chunks.push(chunk);
      else chunks = [];
      if (size > bound) settle({ over: size, ended: false });
    });
    message.on("end", () => {
      if (settled) return;
      if (size > keep) settle({ over: size, ended: true });
      else {
        settled = true;
        resolve({ text: Buffer.concat(chunks).toString("utf8") });
      }
    });
    message.on("error", (error) => settled || reject(error));
    message.on("close", () => settled || reject(new Error("the connection closed before the body was whole")));
  });
}
