import { describe, expect, it } from "vitest";
import { LineReader, readCut } from "../src/index.js";

// What the server and tool-mcp can tell of a message too long to
// read, from the 4 KiB it keeps of its start and the 512 bytes of its end.
describe("readCut", () => {
  it("finds the id as the TypeScript SDK writes it (last) and as others do (first)", () => {
    expect(readCut('{"method":"tools/call","params":{"arguments":{"content":"xxxx', 'xxxx"}},"jsonrpc":"2.0","id":41}')).toEqual({ id: 41, hasMethod: true, isAnswer: false });
    expect(readCut('{"jsonrpc":"2.0","id":"req-7","method":"tools/call","params":{"x":"yyy', "yyy\"}}")).toEqual({ id: "req-7", hasMethod: true, isAnswer: false });
    expect(readCut('{"result":{"content":[{"type":"text","text":"zzz', 'zzz"}]},"jsonrpc":"2.0","id":3}\r')).toEqual({ id: 3, hasMethod: false, isAnswer: true });
  });

  it("does not take an id nested in the message, or written inside a string, for the message's", () => {
    expect(readCut('{"method":"m","params":{"id":5,"text":"a', 'b"}}').id).toBeUndefined();
    expect(readCut('{"method":"m","params":{"text":"\\"id\\":6,', ',\\"id\\":7}"}}').id).toBeUndefined();
    expect(readCut('{"method":"m","params":{"list":[{"id":8}],"t":"', '"x"},"other":{"id":9}}').id).toBeUndefined();
    expect(readCut('{"jsonrpc":"2.0","result":{"blob":"', 'qqq"}}')).toEqual({ id: undefined, hasMethod: false, isAnswer: true });
  });
});

describe("LineReader", () => {
  it("gives lines whole across chunks, and of a longer line only news, then goes on", () => {
    const reader = new LineReader(10, 100);
    reader.push(Buffer.from('{"a":1}\n{"b"'));
    reader.push(Buffer.from(":2}\n0123456789ABCDEF"));
    reader.push(Buffer.from("GHIJ\nnext\n"));
    const events = [];
    for (let event = reader.next(); event !== undefined; event = reader.next()) events.push(event);
    expect(events).toEqual([
      { kind: "line", text: '{"a":1}' },
      { kind: "line", text: '{"b":2}' },
      { kind: "too-long", state: "started", head: "0123456789ABCDEF", tail: "", bytes: 16 },
      { kind: "too-long", state: "ended", head: "0123456789ABCDEF", tail: "0123456789ABCDEFGHIJ", bytes: 20 },
      { kind: "line", text: "next" },
    ]);
  });

  it("reports a line with no end once it passes the discard bound, and reads nothing after", () => {
    const reader = new LineReader(10, 20);
    reader.push(Buffer.from("x".repeat(25)));
    expect(reader.next()).toMatchObject({ kind: "too-long", state: "started" });
    reader.push(Buffer.from("y".repeat(10)));
    expect(reader.next()).toMatchObject({ kind: "too-long", state: "endless", bytes: 35 });
    reader.push(Buffer.from("\nmore\n"));
    expect(reader.next()).toBeUndefined();
  });
});
