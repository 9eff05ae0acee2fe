import { describe, expect, it } from "vitest";
import { StreamCapture, streamText } from "../src/_output.js";

function capture(limit: number, ...chunks: string[]): StreamCapture {
  const stream = new StreamCapture(limit);
  for (const chunk of chunks) stream.push(Buffer.from(chunk));
  return stream;
}

const lines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}`);

describe("StreamCapture", () => {
  it("shows nothing for no output", () => {
    const shown = capture(1024).render(undefined);
    expect(shown).toMatchObject({ head: [], tail: [], truncated: false, totalLines: 0 });
    expect(streamText(shown, "n/a")).toBe("");
  });

  it("keeps output of exactly the limit whole, across chunks that split lines", () => {
    const text = `${lines(1, 100).join("\n")}\n`;
    const limit = Buffer.byteLength(text);
    const shown = capture(limit, text.slice(0, 7), text.slice(7, 500), text.slice(500)).render(undefined);
    expect(shown.truncated).toBe(false);
    expect(streamText(shown, "n/a")).toBe(lines(1, 100).join("\n"));
    expect(shown.totalLines).toBe(100);
  });

  it("counts a last line without a newline", () => {
    const shown = capture(1024, "a\nb\nc").render(2);
    expect(shown.totalLines).toBe(3);
    expect(streamText(shown, "NOTE")).toBe("a\n… 1 line left out; NOTE\nc");
  });

  it("one byte over the limit leaves out the middle, whole lines only", () => {
    const text = `${lines(1, 100).join("\n")}\n`;
    const stream = capture(Buffer.byteLength(text) - 1, text);
    expect(stream.overflowed).toBe(true);
    const shown = stream.render(undefined);
    expect(shown.truncated).toBe(true);
    expect(shown.head.at(-1)).toMatch(/^line \d+$/);
    expect(shown.tail[0]).toMatch(/^line \d+$/);
    expect(shown.head.length + shown.tail.length + shown.omittedLines).toBe(100);
    expect(shown.head[0]).toBe("line 1");
    expect(shown.tail.at(-1)).toBe("line 100");
  });

  it("applies the line limit to head and tail when bytes were dropped too", () => {
    const text = `${lines(1, 1000).join("\n")}\n`;
    const shown = capture(1024, ...text.match(/[^]{1,333}/g)!).render(5);
    expect(shown.head).toEqual(["line 1", "line 2", "line 3"]);
    expect(shown.tail).toEqual(["line 999", "line 1000"]);
    expect(shown.omittedLines).toBe(995);
  });

  it("shows a line longer than the whole budget once, cut", () => {
    const shown = capture(1024, `${"z".repeat(5000)}\n`).render(undefined);
    expect(shown.head).toEqual([`${"z".repeat(512)}…`]);
    expect(shown.tail).toEqual([]);
    expect(shown.omittedLines).toBe(0);
    expect(streamText(shown, "NOTE")).toBe(`${"z".repeat(512)}…\n… 3,977 bytes left out; NOTE`);
  });

  it("shows the start of a long line that ends the output, marked", () => {
    const shown = capture(1024, `short\n${"q".repeat(5000)}`).render(undefined);
    expect(shown.head).toEqual(["short", `${"q".repeat(506)}…`]);
    expect(shown.tail).toEqual([]);
    expect(shown.omittedLines).toBe(0);
  });

  it("shows the end of a long line that ends the output when lines come between", () => {
    const shown = capture(1024, `${"p".repeat(600)}\n`, `${lines(1, 100).join("\n")}\n`, "q".repeat(5000)).render(undefined);
    expect(shown.head).toEqual([`${"p".repeat(512)}…`]);
    expect(shown.tail).toEqual([`…${"q".repeat(512)}`]);
    expect(shown.omittedLines).toBe(100);
  });
});
