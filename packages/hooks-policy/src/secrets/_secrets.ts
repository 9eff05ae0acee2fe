/**
 * The built-in secret formats. The formats are public facts (vendors' documentation, and the rule
 * sets of gitleaks and detect-secrets); the expressions are ours, written for redaction rather than
 * detection: no `\b` at a token's start, so a key glued to other text (`KEY_AKIA…`, `tokghp_…`)
 * is still found, and each pattern starts with a literal where it can, so that 1 MB of ordinary
 * output is scanned in a few milliseconds (`bench/redact`).
 */
import { type Edit, eachMatch, type Redaction } from "./_edits.js";

/** A token recognised by its shape alone, replaced whole. */
interface TokenFormat {
  name: string;
  /** No flags, no capturing groups: the tokens are matched in one pass, as one alternation. */
  pattern: RegExp;
  replacement: string;
}

/**
 * Tokens that start with an upper-case letter, and the others: two alternations cost less than
 * one, since each position of ordinary text passes the first-letter check of fewer branches.
 */
const UPPER_TOKENS: ReadonlyArray<TokenFormat> = [
  { name: "AWS access key", pattern: /(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}/, replacement: "[redacted AWS key]" },
  { name: "Google API key", pattern: /AIza[0-9A-Za-z_-]{35}/, replacement: "[redacted Google API key]" },
  { name: "GitLab runner registration token", pattern: /GR1348941[A-Za-z0-9_-]{20,}/, replacement: "[redacted GitLab token]" },
];

const TOKENS: ReadonlyArray<TokenFormat> = [
  { name: "GitHub token", pattern: /gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255}/, replacement: "[redacted GitHub token]" },
  {
    name: "GitLab token",
    pattern: /gl(?:pat|dt|rt|rtr|ptt|soat|cbt|ffct|imt|agent|oas|ft)-[A-Za-z0-9_-]{20,}/,
    replacement: "[redacted GitLab token]",
  },
  { name: "Slack token", pattern: /xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,}/, replacement: "[redacted Slack token]" },
  { name: "Stripe key", pattern: /(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}|whsec_[A-Za-z0-9]{20,}/, replacement: "[redacted Stripe key]" },
  {
    // OpenAI (`sk-…`, `sk-proj-…`, `sk-svcacct-…`, `sk-admin-…`) and Anthropic (`sk-ant-…`) keys.
    // A bare `sk-` needs 32 characters without a dash, one of them upper case, so that
    // `task-runner-…` and `disk-<hex>` stay.
    name: "API key",
    pattern: /sk-(?:(?:ant|proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|(?=[A-Za-z0-9]{0,200}[A-Z])[A-Za-z0-9]{32,})/,
    replacement: "[redacted API key]",
  },
  { name: "npm token", pattern: /npm_[A-Za-z0-9]{36}/, replacement: "[redacted npm token]" },
];

/** Token formats in one pass; the replacement is the first format that matches the token whole. */
function tokens(formats: ReadonlyArray<TokenFormat>): Redaction {
  const regex = new RegExp(formats.map(({ pattern }) => `(?:${pattern.source})`).join("|"), "g");
  const whole = formats.map(({ pattern, replacement }) => ({ regex: new RegExp(`^(?:${pattern.source})$`), replacement }));
  return eachMatch(regex, ([token]) => ({ replacement: whole.find(({ regex }) => regex.test(token))?.replacement ?? "[redacted]" }));
}

const PRIVATE_KEY = "[redacted private key]";

/** `-----BEGIN … PRIVATE KEY-----` (PEM, OpenSSH, PGP's `… KEY BLOCK`), and SSH2's `---- BEGIN … ----`. */
const BEGIN_PRIVATE = /-{4,5} ?BEGIN ([A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?) ?-{4,5}/g;
/** After a BEGIN line whose END was cut off: the rest of its line and the lines that look like key material (base64, armor headers, blank). */
const KEY_TAIL = /[^\n]*(?:\r?\n(?:[A-Za-z0-9+/=]*|[A-Za-z-]+: [^\n]*)(?=\r?\n|$))*(?:\r?\n[A-Za-z0-9+/=]+)?/y;

/**
 * Private key blocks (PEM, OpenSSH, PGP), each to its END line. When the END line was cut off:
 * the key material after the BEGIN line, so that code which only names a BEGIN line keeps the
 * lines after it. Linear: an END line that is not there is looked for once per type.
 */
function privateKeyBlocks(text: string, edits: Edit[]): void {
  const missing = new Set<string>();
  BEGIN_PRIVATE.lastIndex = 0;
  for (let begin = BEGIN_PRIVATE.exec(text); begin !== null; begin = BEGIN_PRIVATE.exec(text)) {
    const type = begin[1] as string;
    const after = begin.index + begin[0].length;
    let end = -1;
    if (!missing.has(type)) {
      const endLine = begin[0].replace("BEGIN", "END");
      const at = text.indexOf(endLine, after);
      if (at === -1) missing.add(type);
      else end = at + endLine.length;
    }
    if (end === -1) {
      KEY_TAIL.lastIndex = after;
      end = after + (KEY_TAIL.exec(text)?.[0].length ?? 0);
    }
    edits.push({ start: begin.index, end, replacement: PRIVATE_KEY });
    BEGIN_PRIVATE.lastIndex = end;
  }
}

/**
 * JWTs: found by their payload (`.eyJ`, a literal, fast to find and never inside a run of token
 * characters), then the header is the `eyJ…` before the dot. Looking for `eyJ` first would scan
 * a long run of token characters once per `eyJ` in it.
 */
const JWT_PAYLOAD = /\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
/** A letter, digit, `_` or `-`: a character of a JWT segment. */
function isTokenChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 45;
}
function jwts(text: string, edits: Edit[]): void {
  JWT_PAYLOAD.lastIndex = 0;
  for (let payload = JWT_PAYLOAD.exec(text); payload !== null; payload = JWT_PAYLOAD.exec(text)) {
    let start = payload.index;
    while (start > 0 && isTokenChar(text.charCodeAt(start - 1))) start -= 1;
    const header = text.indexOf("eyJ", start);
    if (header === -1 || payload.index - header < 8) continue;
    edits.push({ start: header, end: payload.index + payload[0].length, replacement: "[redacted JWT]" });
  }
}

const B64 = "A-Za-z0-9+/";
/** Indentation, or a line number as `cat -n` (`     2\t`) and numbered listings (`  2| `, `2: `) print it. */
const PREFIX = String.raw`[ \t]*(?:\d+(?:\t|[:|] ?))?`;
/**
 * A line of key material in PEM shape: 64 base64 characters (PEM, PGP armor, PuTTY) or 70
 * (OpenSSH), at least one of them outside the hex digits, so that SHA-256 sums one per line are
 * not taken for a key.
 */
const KEY_LINE = String.raw`${PREFIX}(?=[0-9a-fA-F]{0,69}[g-zG-Z+/])[${B64}]{64}(?:[${B64}]{6})?(?=\r?\n|$)`;
const KEY_LAST_LINE = String.raw`${PREFIX}[${B64}]{1,69}={0,2}(?=\r?\n|$)`;
/** Two or more such lines, and the short last line of the block. */
const KEY_RUN = String.raw`${KEY_LINE}(?:\r?\n${KEY_LINE})+(?:\r?\n${KEY_LAST_LINE})?`;
/** A run after a newline (a literal start is fast to find), and a run at the very start of the text. */
const KEY_LINES = new RegExp(String.raw`\n${KEY_RUN}`, "g");
const KEY_LINES_FIRST = new RegExp(String.raw`^${KEY_RUN}`, "g");

const ARMOR_LINE = /-----(BEGIN|END) ([A-Z0-9 ]{1,40})-----/g;

/** Where the blocks that say they are something other than a private key (certificates, public keys) lie. */
function publicBlocks(text: string): Array<[number, number]> {
  const blocks: Array<[number, number]> = [];
  let open = -1;
  ARMOR_LINE.lastIndex = 0;
  for (let line = ARMOR_LINE.exec(text); line !== null; line = ARMOR_LINE.exec(text)) {
    if (line[1] === "BEGIN") open = (line[2] as string).includes("PRIVATE") ? -1 : line.index;
    else if (open !== -1) {
      blocks.push([open, line.index + line[0].length]);
      open = -1;
    }
  }
  return blocks;
}

/**
 * Key material whose BEGIN line was cut off (`sed -n 2,9p`, a read from line 2, a truncated
 * head). Lines inside a block that says it is something else (a certificate, a public key) are
 * content and stay.
 */
function keyLines(text: string, edits: Edit[]): void {
  let blocks: Array<[number, number]> | undefined;
  let next = 0;
  const edit = (skip: number) => (match: RegExpExecArray) => {
    blocks ??= publicBlocks(text);
    while (next < blocks.length && (blocks[next] as [number, number])[1] <= match.index) next += 1;
    const block = blocks[next];
    if (block !== undefined && block[0] <= match.index) return undefined;
    return { skip, replacement: PRIVATE_KEY };
  };
  eachMatch(KEY_LINES_FIRST, edit(0))(text, edits);
  eachMatch(KEY_LINES, edit(1))(text, edits);
}

/**
 * Patterns that keep their context (a header's name, a URL's user, a variable's name) and mask
 * the value: group 1 is kept, the rest of the match is replaced.
 */
const IN_CONTEXT: ReadonlyArray<[RegExp, string | ((match: RegExpExecArray) => string)]> = [
  [/(Private-Lines: *\d+\r?\n)(?:[A-Za-z0-9+/=]+(?:\r?\n|$))+/g, `${PRIVATE_KEY}\n`], // PuTTY key files
  [/(hooks\.slack\.com\/(?:services|workflows)\/)[A-Za-z0-9_/-]{20,}/g, "[redacted]"],
  [/(bearer\s+)[A-Za-z0-9._~+/-]{16,}=*/gi, "[redacted token]"],
  [/(authorization["']?\s*[:=]\s*["']?(?:basic|token|digest)\s+)[^\s"'\\]{8,}/gi, "[redacted]"],
  [/(:\/\/[^\s:/@?#]{0,256}:)[^\s@/?#]{1,256}@/g, "[redacted]@"], // passwords in URLs
  // `password=…`, `"api_key": "…"`, `client_secret: …`. A quoted value is a secret; an unquoted
  // one only when it holds a digit, so code (`token: string`, `apiKey = process.env.API_KEY`,
  // `secret = crypto.randomBytes(32)`) stays readable.
  [
    /((?:passw(?:or)?d|secret|token|(?:api|access|secret|private)[_-]?key)["']?\s*[:=]{1,2}\s*)(?:(["'])(?!\$\{|\{\{|%\()[^"'\n]{6,256}\2|(?=[^\s"'`,;(){}[\]<>]{0,100}\d)[^\s"'`,;(){}[\]<>]{6,})/gi,
    (match) => (match[2] !== undefined ? `${match[2]}[redacted]${match[2]}` : "[redacted]"),
  ],
];

/** The built-in redactions. Each finds its matches in the text as it came (see `_edits.ts`). */
export function builtinRedactions(): Redaction[] {
  return [
    privateKeyBlocks,
    keyLines,
    jwts,
    tokens(UPPER_TOKENS),
    tokens(TOKENS),
    ...IN_CONTEXT.map(([regex, replacement]) =>
      eachMatch(regex, (match) => ({
        skip: match[1]?.length ?? 0,
        replacement: typeof replacement === "string" ? replacement : replacement(match),
      })),
    ),
  ];
}
