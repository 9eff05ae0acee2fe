import type { KindRole } from "../inventory/_kinds.js";
import type { ParsedArguments } from "../shell/_options.js";
import type { ShellWord } from "../shell/_words.js";

/** What the inventory says of a command (`_knowledge.ts`'s `CommandKnowledge`), as far as these judgments read and change it. */
interface Known {
  kind: KindRole;
  note: string;
  atLeastAsk?: string;
}

/*
 * The media, document and data tools whose arguments do more than their rows can say (issue 39):
 * ffmpeg's protocols, devices and filters, ImageMagick's coders and `@file`s, pandoc's and TeX's
 * code on the command line, the tools that rewrite their files in place, SQL that attaches other
 * files, and the downloads that write where the download names. Each asks (at least) when what it
 * finds reads, writes or runs beyond the paths the policy judges; otherwise the row's kind stands.
 */

const ASKS: KindRole = { kind: "unknown" };
const CODE: KindRole = { kind: "runs-code", role: "interpreter" };
const BUILD: KindRole = { kind: "runs-code", role: "build" };

const asks = <T extends Known>(known: T, why: string): T => ({ ...known, kind: ASKS, note: `${known.note}; but ${why}`, atLeastAsk: why });
const as = <T extends Known>(known: T, kind: KindRole, why: string): T => ({ ...known, kind, note: `${known.note}; but ${why}` });

/** A word that names a protocol or a coder before a colon (`http:`, `concat:`, `text:`, `subfile,,start,0:`), not a time (`00:10`) nor an option's value (`scale=640:-1`). */
const PREFIXED = /^([a-zA-Z][a-zA-Z0-9_+.,-]*):/;

/** ffmpeg's formats that read or write only the file named (containers, raw streams, image sequences). */
const FFMPEG_FORMATS = /^(mp4|mov|m4a|m4v|3gp|matroska|mkv|webm|mp3|mp2|wav|w64|flac|ogg|oga|opus|aac|adts|ac3|eac3|mpegts|mpeg|vob|avi|flv|asf|wmv|gif|apng|webp|image2|mjpeg|rawvideo|s16le|s16be|s24le|s32le|f32le|f64le|u8|alaw|mulaw|null|yuv4mpegpipe|h264|hevc|h265|av1|ivf|obu|m4b|ipod|psp|mxf|nut|framemd5|framecrc|md5|crc|hash|ffmetadata|srt|ass|webvtt|caf|aiff|au|amr|wv|tta|dts|truehd|mlp|aptx|sbc|rm)$/;
/** ffmpeg's filters that open files, load code or listen: movie sources, commands, plugins, subtitles, text from a file, statistics and models written or read. */
const FFMPEG_FILTERS = /(^|[\s,;[\]'"=])(a?movie|a?sendcmd|a?zmq|ladspa|lv2|frei0r(_src)?|subtitles|ass|drawtext|a?metadata|signature|vidstab\w*|psnr|ssim|libvmaf|vmaf\w*|ocr|sr|dnn_\w+|libplacebo|lut1d|lut3d|haldclut|arnndn|coreimage\w*|sofalizer|afir|headphone|lensfun|bm3d)\s*($|[=,;[@])|\b(file|filename|stats_file|textfile|fontfile|model|log_path)\s*=/;

function ffmpeg(words: readonly ShellWord[]): string | undefined {
  for (let i = 1; i < words.length; i++) {
    const word = words[i] as ShellWord;
    const text = word.value;
    if (text === undefined) return `${word.text} is known only at run time (ffmpeg's inputs, outputs and filters may read, write or reach the network)`;
    if (text.startsWith("-/")) return `${text} reads the option's value from a file the policy does not follow`;
    const format = /^-f$/.test(text) ? words[i + 1]?.value : undefined;
    if (/^-f$/.test(text) && (format === undefined || !FFMPEG_FORMATS.test(format))) return `-f ${format ?? words[i + 1]?.text ?? ""} is a device, a network format or a format that opens the files a list names (a capture of the screen, microphone or camera, tee, concat, hls)`;
    if (!text.startsWith("-") && PREFIXED.test(text)) return `${text} names a protocol (${PREFIXED.exec(text)?.[1]}:), which reads from the network, a device or other files than the one named`;
    if (FFMPEG_FILTERS.test(text)) return `${text} is a filter that opens files, loads code or takes commands`;
  }
  return undefined;
}

/** ImageMagick's coders that make an image of nothing but their argument, and the image formats. */
const MAGICK_CODERS = /^(png|png8|png24|png32|png48|png64|jpg|jpeg|jpe|jxl|gif|webp|avif|heic|heif|bmp|bmp2|bmp3|tif|tiff|tiff64|ppm|pgm|pbm|pnm|pam|ico|cur|tga|rgb|rgba|rgbo|gray|graya|cmyk|cmyka|mono|xpm|xbm|psd|miff|dds|exr|hdr|jp2|j2k|xc|canvas|gradient|radial-gradient|plasma|pattern|logo|rose|wizard|granite|netscape|null|hald|label|caption|info|histogram|sixel|farbfeld|qoi)$/i;
/** Inputs that draw other files or run their own language: vector and page formats (the project's files), MSL / MVG / text (asked). */
const MAGICK_CODE_FILES = /\.(msl|mvg|txt|text)$/i;
const MAGICK_PAGES = /\.(svg|svgz|ps|eps|epsf|epsi|ai|pdf|xps|pcl|html?)$/i;

function magick(program: string, words: readonly ShellWord[], args: ParsedArguments): { kind: KindRole; why: string } | undefined {
  const operands = args.operands;
  const last = operands[operands.length - 1];
  const inputs = /^(mogrify|identify)$/.test(program) ? operands : operands.filter((each) => each !== last);
  for (const word of words.slice(1)) {
    const text = word.value;
    if (text === undefined) return { kind: ASKS, why: `${word.text} is known only at run time (ImageMagick's coders and @files read, write or run)` };
    if (/^([a-zA-Z0-9-]+:)?\|/.test(text)) return { kind: CODE, why: `${text} runs a command (ImageMagick's pipe coder)` };
    if (/(^|:)@/.test(text)) return { kind: ASKS, why: `${text} reads the file after @, which the policy does not follow` };
    const coder = PREFIXED.exec(text)?.[1];
    if (coder !== undefined && coder.length > 1 && !MAGICK_CODERS.test(coder)) return { kind: ASKS, why: `${text} names ImageMagick's coder ${coder}:, which reads, writes or runs what the policy does not follow` };
    if (text.includes("%[filename:")) return { kind: ASKS, why: `${text} names its output by the image's properties, which the policy does not follow` };
  }
  const draw = words.findIndex((each) => each.value === "-draw");
  if (draw !== -1 && /\b(image|text|@)\b|url\(/i.test(words[draw + 1]?.value ?? "")) return { kind: ASKS, why: "-draw with an image or a text may read any file" };
  for (const input of inputs) {
    const value = input.value ?? "";
    if (MAGICK_CODE_FILES.test(value)) return { kind: ASKS, why: `${value} is read as ImageMagick's scripting, drawing or text format, which opens the files it names` };
    if (MAGICK_PAGES.test(value)) return { kind: BUILD, why: `${value} is drawn by its own language (which may read other files): the project's file, as its build is` };
  }
  return undefined;
}

/** In-place rewrites of tools whose row judges their operands as reads. */
const IN_PLACE: Readonly<Record<string, RegExp>> = { mlr: /^-I$/, miller: /^-I$/, xq: /^(-i|--in-place)$/, tomlq: /^(-i|--in-place)$/ };

/** SQL that opens or writes other files than the database: ATTACH, VACUUM INTO, extensions. */
const OTHER_FILES_SQL = /\b(attach|vacuum\s+into|load_extension|readfile|writefile|edit|fts3_tokenizer)\b/i;

/** A TeX engine given TeX code instead of a file (`pdflatex '\input{/etc/passwd}'`). */
const TEX = /^(pdflatex|latex|xelatex|lualatex|tex|etex|pdftex|luatex|xetex)(-dev)?$/;

/** What the arguments of these tools change of the row's kind; `known` when nothing. */
export function toolArguments<T extends Known>(known: T, program: string, words: readonly ShellWord[], args: ParsedArguments, isWorkspaceRoot: (folder: string) => boolean): T {
  if (program === "dc") {
    const why = dc(words);
    return why === undefined ? known : as(known, CODE, why);
  }
  if (program === "ffmpeg" || program === "ffprobe") {
    const why = ffmpeg(words);
    return why === undefined ? known : asks(known, why);
  }
  if (/^(magick|convert|montage|composite|compare|mogrify|identify)$/.test(program)) {
    const found = magick(program, words, args);
    if (found === undefined) return known;
    return found.kind === ASKS ? asks(known, found.why) : as(known, found.kind, found.why);
  }
  const inPlace = IN_PLACE[program];
  if (inPlace && words.some((each) => inPlace.test(each.value ?? ""))) return asks(known, `${program} ${words.find((each) => inPlace.test(each.value ?? ""))?.value} rewrites its files in place, which the policy judges only as reads`);
  if (program === "pandoc") {
    const lua = words.find((each) => /\.lua$/i.test(each.value ?? ""));
    if (lua) return as(known, CODE, `${lua.value} is a Lua reader, writer or filter: pandoc runs it`);
  }
  if (TEX.test(program)) {
    const code = args.operands.find((each) => each.value === undefined || /[\\&]/.test(each.value));
    if (code) return as(known, CODE, `${code.value ?? code.text} is TeX code given on the command line, not the project's file`);
  }
  if (program === "sqlite-utils" && known.kind.role === "interpreter") return asks(known, "it runs the Python code given on its command line");
  if (program === "sqlite-utils" && words.some((each) => each.value === undefined || OTHER_FILES_SQL.test(each.value))) {
    return asks(known, "its SQL attaches, writes or loads other files than the database");
  }
  if (program === "gh" && known.kind.role === "remote" && args.operands[1]?.value === "download") {
    const dir = optionValue(words, ["-D", "--dir", "-O", "--output"]);
    if (dir === undefined || isWorkspaceRoot(dir)) {
      return as(known, { kind: "network", role: "client" }, "it writes the files the download names into the workspace's root, where they may replace the project's files: give it -D with a folder");
    }
  }
  if ((program === "pip" || program === "pip3") && args.operands[0]?.value === "download") {
    const binary = optionValue(words, ["--only-binary"]);
    if (binary === ":all:" && optionValue(words, ["--no-binary"]) === undefined && !words.some((each) => each.value === undefined)) {
      return as(known, { kind: "read-only", role: "remote" }, "pip download --only-binary=:all: fetches wheels and builds or runs none of them (read-only:remote)");
    }
  }
  return known;
}

/** The value of the first of these options, spelled `-D DIR`, `--dir=DIR` or `-DDIR`. */
function optionValue(words: readonly ShellWord[], options: readonly string[]): string | undefined {
  for (let i = 1; i < words.length; i++) {
    const text = words[i]?.value;
    if (text === undefined) continue;
    for (const option of options) {
      if (text === option) return words[i + 1]?.value ?? "";
      if (text.startsWith(`${option}=`)) return text.slice(option.length + 1);
      if (/^-[A-Za-z]$/.test(option) && text.startsWith(option) && text.length > 2) return text.slice(2);
    }
  }
  return undefined;
}

/** dc runs a shell command at `!`: only `-e` expressions without one read; a file or standard input is code the policy does not read. */
function dc(words: readonly ShellWord[]): string | undefined {
  let expressions = 0;
  for (let i = 1; i < words.length; i++) {
    const text = words[i]?.value;
    const value = text === "-e" || text === "--expression" ? words[++i]?.value : text?.startsWith("--expression=") ? text.slice(13) : text?.startsWith("-e") ? text.slice(2) : undefined;
    if (value === undefined) return `dc runs the code of ${words[i]?.text ?? "its standard input"}, where ! runs a shell command`;
    if (value.includes("!")) return `dc's ! in ${JSON.stringify(value)} runs a shell command`;
    expressions += 1;
  }
  return expressions === 0 ? "dc runs the code on its standard input, where ! runs a shell command" : undefined;
}
