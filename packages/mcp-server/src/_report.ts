const MAX_UNREAD = 1024 * 1024;
const MAX_MESSAGE = 1000;

/**
 * Reports the SDK's out-of-band errors on stderr (a client's stray answers, a broken stream), a
 * line each, cut to 1,000 characters with control characters escaped. A client can cause these at
 * will, so when the reader of stderr falls 1 MiB behind they are counted instead of written.
 */
export function stderrReporter(stream: NodeJS.WritableStream & { writableLength: number } = process.stderr): (error: Error) => void {
  let dropped = 0;
  return (error) => {
    if (stream.writableLength > MAX_UNREAD) {
      dropped += 1;
      return;
    }
    const message = String(error?.message ?? error);
    const text = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message;
    const note = dropped > 0 ? ` (${dropped} more errors were not shown)` : "";
    dropped = 0;
    stream.write(`toolhost mcp: ${escapeControls(text)}${note}\n`);
  };
}

function escapeControls(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
