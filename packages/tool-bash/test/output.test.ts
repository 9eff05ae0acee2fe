import { describe, expect, it } from "vitest";
import { MAX_LINE_CHARS, StreamCapture, WORD_LIMIT, streamText } from "../src/_output.js";

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

  it("shows a line longer than the whole budget once, cut at a space, the cut word left out", () => {
    const shown = capture(1024, `${"zzzz ".repeat(1000)}\n`).render(undefined);
    expect(shown.head).toEqual([`${"zzzz ".repeat(102)}…`]);
    expect(shown.tail).toEqual([]);
    expect(shown.omittedLines).toBe(0);
    // 5,001 bytes, of which 510 are shown: the notice counts every other byte.
    expect(streamText(shown, "NOTE")).toBe(`${"zzzz ".repeat(102)}…\n… 4,491 bytes left out; NOTE`);
  });

  it("leaves out whole a word the cut falls in, up to WORD_LIMIT characters; a longer run is cut", () => {
    const word = capture(1024, `${"z".repeat(5000)}\n`).render(undefined);
    expect(word.head).toEqual(["…"]);
    expect(streamText(word, "NOTE")).toBe("…\n… 5,001 bytes left out; NOTE");
    const run = capture(4 * WORD_LIMIT, `${"y".repeat(3 * WORD_LIMIT)}\n`).render(undefined);
    expect(run.head).toEqual([`${"y".repeat(MAX_LINE_CHARS)}… [line cut: ${(3 * WORD_LIMIT - MAX_LINE_CHARS).toLocaleString("en-US")} more characters]`]);
  });

  it("shows the start of a long line that ends the output, marked", () => {
    const shown = capture(1024, `short\n${"qqq ".repeat(1250)}`).render(undefined);
    expect(shown.head).toEqual(["short", `${"qqq ".repeat(126)}…`]);
    expect(shown.tail).toEqual([]);
    expect(shown.omittedLines).toBe(0);
  });

  it("shows the end of a long line that ends the output when lines come between, without its first, cut word", () => {
    const shown = capture(1024, `${"ppp ".repeat(150)}\n`, `${lines(1, 100).join("\n")}\n`, "qqq ".repeat(1250)).render(undefined);
    expect(shown.head).toEqual([`${"ppp ".repeat(128)}…`]);
    expect(shown.tail).toEqual([`…${" qqq".repeat(127)} `]);
    expect(shown.omittedLines).toBe(100);
    expect(streamText(shown, "NOTE")).toMatch(/\n… [\d,]+ bytes left out \(100 lines among them\); NOTE\n/);
  });
});
