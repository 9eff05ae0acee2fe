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
  { name: "JWT", pattern: /eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/, replacement: "[redacted JWT]" },
];

/** Token formats in one pass; the replacement is the first format that matches the token whole. */
function tokens(formats: ReadonlyArray<TokenFormat>): Redaction {
  const regex = new RegExp(formats.map(({ pattern }) => `(?:${pattern.source})`).join("|"), "g");
  const whole = formats.map(({ pattern, replacement }) => ({ regex: new RegExp(`^(?:${pattern.source})$`), replacement }));
  return eachMatch(regex, ([token]) => ({ replacement: whole.find(({ regex }) => regex.test(token))?.replacement ?? "[redacted]" }));
}

const PRIVATE_KEY = "[redacted private key]";

/** A whole block, to its END line, or to the end of the text when the END line was cut off. */
const PRIVATE_KEY_BLOCK = /-----BEGIN ([A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?)-----[\s\S]*?(?:-----END \1-----|$)/g;

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

/**
 * Key material whose BEGIN line was cut off (`sed -n 2,9p`, a read from line 2, a truncated
 * head). Lines inside a block that says it is something else (a certificate, a public key) are
 * content and stay.
 */
function keyLines(text: string, edits: Edit[]): void {
  const edit = (skip: number) => (match: RegExpExecArray) => {
    const begin = text.lastIndexOf("-----BEGIN ", match.index);
    const inBlock = begin !== -1 && text.lastIndexOf("-----END ", match.index) < begin;
    if (inBlock && !/^-----BEGIN [A-Z0-9 ]*PRIVATE/.test(text.slice(begin, begin + 60))) return undefined;
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
    /((?:passw(?:or)?d|secret|token|(?:api|access|secret|private)[_-]?key)["']?\s*[:=]{1,2}\s*)(?:(["'])(?!\$\{|\{\{|%\()[^"'\n]{6,}\2|(?=[^\s"'`,;(){}[\]<>]*\d)[^\s"'`,;(){}[\]<>]{6,})/gi,
    (match) => (match[2] !== undefined ? `${match[2]}[redacted]${match[2]}` : "[redacted]"),
  ],
];

/** The built-in redactions. Each finds its matches in the text as it came (see `_edits.ts`). */
export function builtinRedactions(): Redaction[] {
  return [
    eachMatch(PRIVATE_KEY_BLOCK, () => ({ replacement: PRIVATE_KEY })),
    keyLines,
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
