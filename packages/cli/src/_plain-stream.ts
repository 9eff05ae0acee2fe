import { colorEnabled } from "./_output.js";

/** Select Graphic Rendition: colors and text styles; not the cursor moves a prompt redraws with. */
const STYLES = /\u001B\[[0-9;:]*m/g;

/**
 * The stream a prompt library writes to, without colors and styles where the stream gets none
 * (NO_COLOR, TERM=dumb): @clack/prompts styles with Node's `util.styleText`, which on Node 20
 * ignores NO_COLOR, so a cancelled question came out struck through and dimmed regardless.
 */
export function promptOutput(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  if (colorEnabled(stream)) return stream;
  return new Proxy(stream, {
    get(target, key) {
      if (key === "write") {
        return (chunk: unknown, ...rest: unknown[]) =>
          (target.write as (...args: unknown[]) => boolean)(typeof chunk === "string" ? chunk.replace(STYLES, "") : chunk, ...rest);
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
