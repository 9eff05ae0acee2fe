/** What the first bytes of a file say it is. */
export type Sniffed =
  | { kind: "image"; mimeType: string; type: string }
  | { kind: "binary"; type: string }
  | { kind: "text" };

const startsWith = (head: Uint8Array, bytes: readonly number[], at = 0): boolean =>
  bytes.every((byte, i) => head[at + i] === byte);
const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

const IMAGES: readonly { test: (head: Uint8Array) => boolean; mimeType: string; type: string }[] = [
  { test: (h) => startsWith(h, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), mimeType: "image/png", type: "PNG image" },
  { test: (h) => startsWith(h, [0xff, 0xd8, 0xff]), mimeType: "image/jpeg", type: "JPEG image" },
  { test: (h) => startsWith(h, ascii("GIF87a")) || startsWith(h, ascii("GIF89a")), mimeType: "image/gif", type: "GIF image" },
  { test: (h) => startsWith(h, ascii("RIFF")) && startsWith(h, ascii("WEBP"), 8), mimeType: "image/webp", type: "WebP image" },
];

const BINARIES: readonly { test: (head: Uint8Array) => boolean; type: string }[] = [
  { test: (h) => startsWith(h, ascii("%PDF-")), type: "PDF document" },
  { test: (h) => startsWith(h, [0x50, 0x4b, 0x03, 0x04]), type: "ZIP archive (or a format built on it: docx, jar, …)" },
  { test: (h) => startsWith(h, [0x1f, 0x8b]), type: "gzip archive" },
  { test: (h) => startsWith(h, ascii("BZh")), type: "bzip2 archive" },
  { test: (h) => startsWith(h, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]), type: "xz archive" },
  { test: (h) => startsWith(h, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]), type: "7-Zip archive" },
  { test: (h) => startsWith(h, ascii("ustar"), 257), type: "tar archive" },
  { test: (h) => startsWith(h, [0x7f, 0x45, 0x4c, 0x46]), type: "ELF executable or library" },
  { test: (h) => startsWith(h, [0xcf, 0xfa, 0xed, 0xfe]) || startsWith(h, [0xce, 0xfa, 0xed, 0xfe]), type: "Mach-O executable" },
  { test: (h) => startsWith(h, [0x00, 0x61, 0x73, 0x6d]), type: "WebAssembly module" },
  { test: (h) => startsWith(h, [0xca, 0xfe, 0xba, 0xbe]), type: "Java class file" },
  { test: (h) => startsWith(h, ascii("SQLite format 3\0")), type: "SQLite database" },
  { test: (h) => startsWith(h, ascii("II*\0")) || startsWith(h, ascii("MM\0*")), type: "TIFF image (not supported; convert it to PNG)" },
  { test: (h) => startsWith(h, ascii("BM")) && h.includes(0), type: "BMP image (not supported; convert it to PNG)" },
  { test: (h) => startsWith(h, [0xff, 0xfe]) || startsWith(h, [0xfe, 0xff]), type: "UTF-16 text (convert it to UTF-8)" },
];

/** How many leading bytes `sniff` looks at. */
export const SNIFF_BYTES = 8192;

/** Images by magic bytes; binary by magic bytes or a NUL byte in the first 8 KiB; otherwise text. */
export function sniff(head: Uint8Array): Sniffed {
  for (const image of IMAGES) if (image.test(head)) return { kind: "image", mimeType: image.mimeType, type: image.type };
  for (const binary of BINARIES) if (binary.test(head)) return { kind: "binary", type: binary.type };
  if (head.includes(0)) return { kind: "binary", type: "binary data (it has NUL bytes)" };
  return { kind: "text" };
}
