/** A block of text, for the model and for people. */
export interface TextContent {
  type: "text";
  text: string;
}

/** An image, base64-encoded, with its MIME type (`image/png`, …). */
export interface ImageContent {
  type: "image";
  data: string;
  mimeType: string;
}

/** What a call or a model turn cost. Tools that call models report it; it is never sent to the model. */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}
