import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { crc32, deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { createReadTool, FsErrorCode } from "../src/index.js";
import { linesOf, run, tempDir, textOf } from "./_helpers.js";

function numbered(count: number, eol = "\n"): string {
  return Array.from({ length: count }, (_, i) => `line ${i + 1}`).join(eol) + eol;
}

/** A real 1x1 PNG: signature, IHDR, IDAT, IEND with their CRCs. */
function tinyPng(): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.from([0, 255, 0, 0]))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

describe("read", () => {
  it("returns a whole small file with its line count", async () => {
    const root = await tempDir();
    await writeFile(join(root, "f.txt"), numbered(3));
    const result = await run(createReadTool({ cwd: root }), { path: "f.txt" });
    expect(textOf(result)).toBe("line 1\nline 2\nline 3");
    expect(result.details).toEqual({ path: join(root, "f.txt"), linesRead: 3, totalLines: 3, truncated: false });
  });

  it("reads a line range", async () => {
    const root = await tempDir();
    await writeFile(join(root, "f.txt"), numbered(10));
    const result = await run(createReadTool({ cwd: root }), { path: "f.txt", startLine: 4, endLine: 6 });
    expect(linesOf(result)).toBe("line 4\nline 5\nline 6");
    expect(textOf(result)).toBe("line 4\nline 5\nline 6\n\n[Lines 4-6 of 10: 4 more lines follow. Use startLine=7 to continue.]");
    expect(result.details).toMatchObject({ nextStartLine: 7 });
    expect(result.details).toMatchObject({ linesRead: 3, totalLines: 10, truncated: false });
  });

  it("cuts at maxLines and says where to continue", async () => {
    const root = await tempDir();
    await writeFile(join(root, "f.txt"), numbered(50));
    const result = await run(createReadTool({ cwd: root, maxLines: 20 }), { path: "f.txt" });
    expect(textOf(result)).toContain("line 20\n\n[Showing lines 1-20 of 50: the 20-line limit (maxLines). Use startLine=21 to continue.]");
    expect(result.details).toMatchObject({ linesRead: 20, truncated: true, nextStartLine: 21, totalLines: 50 });
    const next = await run(createReadTool({ cwd: root, maxLines: 20 }), { path: "f.txt", startLine: 41 });
    expect(textOf(next)).toBe(numbered(50).split("\n").slice(40, 50).join("\n"));
    expect(next.details).toMatchObject({ truncated: false, linesRead: 10 });
  });

  it("cuts at maxSize bytes, even inside one long line", async () => {
    const root = await tempDir();
    await writeFile(join(root, "long.txt"), `${"x".repeat(5000)}\nsecond\n`);
    const result = await run(createReadTool({ cwd: root, maxSize: 1000 }), { path: "long.txt" });
    expect(textOf(result)).toMatch(/^x{1000}\n\n\[Line 1 is cut/);
    expect(result.details).toMatchObject({ truncated: true, nextStartLine: 2 });
    const rest = await run(createReadTool({ cwd: root, maxSize: 1000 }), { path: "long.txt", startLine: 2 });
    expect(textOf(rest)).toBe("second");
  });

  it("returns the same lines as a plain split, across 1 MiB chunk boundaries", async () => {
    const root = await tempDir();
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const all = Array.from({ length: 40_000 }, (_, i) => `${i + 1}:${"abcdefghij".repeat(Math.floor(random() * 20))}`);
    await writeFile(join(root, "f.txt"), all.join("\n")); // no final newline
    for (const maxSize of [64 * 1024 * 1024, 1024 * 1024 - 1]) {
      const read = createReadTool({ cwd: root, maxSize, maxLines: 100_000 });
      for (let k = 0; k < 12; k++) {
        const start = 1 + Math.floor(random() * all.length);
        const end = Math.min(all.length + 5, start + Math.floor(random() * 50));
        const result = await run(read, { path: "f.txt", startLine: start, endLine: end });
        expect(linesOf(result)).toBe(all.slice(start - 1, end).join("\n"));
        expect(result.details.linesRead).toBe(Math.min(end, all.length) - start + 1);
        expect(result.details.truncated).toBe(false);
      }
      const last = await run(read, { path: "f.txt", startLine: all.length });
      expect(textOf(last)).toBe(all[all.length - 1]);
      expect(last.details).toMatchObject({ linesRead: 1, totalLines: all.length, truncated: false });
    }
  });

  it("pages through a big file by remembered line starts, and forgets them when the file changes", async () => {
    const root = await tempDir();
    const make = (tag: string): string[] =>
      Array.from({ length: 300_000 }, (_, i) => `${tag} ${i + 1} ${"-".repeat((i * 7) % 45)}`);
    let all = make("first");
    await writeFile(join(root, "big.txt"), `${all.join("\n")}\n`);
    const read = createReadTool({ cwd: root });
    const check = async (start: number, count: number): Promise<void> => {
      const result = await run(read, { path: "big.txt", startLine: start, endLine: start + count - 1 });
      expect(linesOf(result)).toBe(all.slice(start - 1, start - 1 + count).join("\n"));
    };
    for (const start of [250_000, 250_100, 70_000, 131_073, 131_072, 196_609, 299_990, 1, 65_537]) await check(start, 20);
    // Same size, but a dash of line 10 becomes a newline, so every later line moves down one: the
    // remembered positions must not be used.
    all = make("first");
    const split = (all[9] as string).lastIndexOf("-");
    all.splice(9, 1, (all[9] as string).slice(0, split), (all[9] as string).slice(split + 1));
    await writeFile(join(root, "big.txt"), `${all.join("\n")}\n`);
    for (const start of [70_000, 250_000, 5]) await check(start, 20);
    all = all.map((line) => `${line}+`);
    await writeFile(join(root, "big.txt"), `${all.join("\n")}\n`);
    for (const start of [299_999, 200_000]) await check(start, 2);
  }, 60_000);

  it("does not call a read cut when maxLines ends exactly at the last line", async () => {
    const root = await tempDir();
    await writeFile(join(root, "f.txt"), numbered(20));
    const result = await run(createReadTool({ cwd: root, maxLines: 20 }), { path: "f.txt" });
    expect(result.details).toMatchObject({ linesRead: 20, totalLines: 20, truncated: false });
    expect(textOf(result)).not.toContain("[Showing");
  });

  it("shows CRLF files with plain newlines and drops the BOM", async () => {
    const root = await tempDir();
    await writeFile(join(root, "crlf.txt"), `\uFEFF${numbered(3, "\r\n")}`);
    const result = await run(createReadTool({ cwd: root }), { path: "crlf.txt" });
    expect(textOf(result)).toBe("line 1\nline 2\nline 3");
  });

  it("reads an empty file", async () => {
    const root = await tempDir();
    await writeFile(join(root, "empty.txt"), "");
    const result = await run(createReadTool({ cwd: root }), { path: "empty.txt" });
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toBe("[The file is empty.]");
    expect(result.details).toMatchObject({ linesRead: 0, totalLines: 0 });
  });

  it("refuses a range past the end or reversed, with the file's length", async () => {
    const root = await tempDir();
    await writeFile(join(root, "f.txt"), numbered(5));
    const past = await run(createReadTool({ cwd: root }), { path: "f.txt", startLine: 9 });
    expect(past.details.code).toBe(FsErrorCode.BAD_RANGE);
    expect(textOf(past)).toContain("which has 5 lines");
    const reversed = await run(createReadTool({ cwd: root }), { path: "f.txt", startLine: 4, endLine: 2 });
    expect(reversed.details.code).toBe(FsErrorCode.BAD_RANGE);
  });

  it("throws when its signal is aborted, as the kernel expects", async () => {
    const root = await tempDir();
    await writeFile(join(root, "f.txt"), numbered(3));
    const read = createReadTool({ cwd: root });
    await expect(read.execute("id", { path: "f.txt" }, AbortSignal.abort(), () => {}, undefined)).rejects.toThrow();
  });

  it("suggests ls for a folder", async () => {
    const root = await tempDir();
    const result = await run(createReadTool({ cwd: root }), { path: "." });
    expect(result.details.code).toBe(FsErrorCode.IS_DIRECTORY);
    expect(textOf(result)).toContain("Use ls");
  });

  it("returns a PNG as image content, base64 with its MIME type", async () => {
    const root = await tempDir();
    const png = tinyPng();
    await writeFile(join(root, "dot.png"), png);
    const result = await run(createReadTool({ cwd: root }), { path: "dot.png" });
    const image = result.content.find((block) => block.type === "image");
    expect(image).toEqual({ type: "image", data: png.toString("base64"), mimeType: "image/png" });
    expect(result.details).toMatchObject({ mimeType: "image/png", size: png.length });
  });

  it("recognizes JPEG, GIF and WebP by their bytes, whatever the name", async () => {
    const root = await tempDir();
    const kinds: [string, Buffer][] = [
      ["image/jpeg", Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0])],
      ["image/gif", Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1")],
      ["image/webp", Buffer.concat([Buffer.from("RIFF"), Buffer.from([26, 0, 0, 0]), Buffer.from("WEBPVP8L")])],
    ];
    for (const [mimeType, bytes] of kinds) {
      await writeFile(join(root, "picture.bin"), bytes);
      const result = await run(createReadTool({ cwd: root }), { path: "picture.bin" });
      expect(result.content[1]).toMatchObject({ type: "image", mimeType });
    }
  });

  it("passes images through imageProcessor", async () => {
    const root = await tempDir();
    await writeFile(join(root, "dot.png"), tinyPng());
    const seen: string[] = [];
    const read = createReadTool({
      cwd: root,
      imageProcessor: (image, info) => {
        seen.push(`${info.path} ${info.mimeType}`);
        return { type: "text", text: `an image of ${image.length} bytes` };
      },
    });
    const result = await run(read, { path: "dot.png" });
    expect(seen).toEqual(["dot.png image/png"]);
    expect(textOf(result)).toContain(`an image of ${tinyPng().length} bytes`);
  });

  it("refuses an image larger than maxSize", async () => {
    const root = await tempDir();
    await writeFile(join(root, "big.png"), Buffer.concat([tinyPng(), Buffer.alloc(4096)]));
    const result = await run(createReadTool({ cwd: root, maxSize: 1024 }), { path: "big.png" });
    expect(result.details.code).toBe(FsErrorCode.TOO_LARGE);
    expect(textOf(result)).toMatch(/PNG image of 4,1\d\d bytes, more than the 1,024-byte limit/);
  });

  it("refuses other binary files, saying their size and type", async () => {
    const root = await tempDir();
    await writeFile(join(root, "blob.dat"), Buffer.from([1, 2, 3, 0, 4, 5]));
    const blob = await run(createReadTool({ cwd: root }), { path: "blob.dat" });
    expect(blob.details).toMatchObject({ code: FsErrorCode.BINARY_FILE, size: 6 });
    expect(textOf(blob)).toContain("binary file (binary data (it has NUL bytes), 6 bytes)");
    const elf = await run(createReadTool({ cwd: "/", roots: ["/"] }), { path: process.execPath });
    expect(elf.details.code).toBe(FsErrorCode.BINARY_FILE);
    expect(textOf(elf)).toContain("ELF executable");
  });
});
