/**
 * The built-in secret formats. The formats are public facts (vendors' documentation, and the rule
 * sets of gitleaks and detect-secrets); the expressions are ours, written for redaction rather than
 * detection: no `\b` at a token's start, so a key glued to other text (`KEY_AKIA…`, `tokghp_…`)
 * is still found, and each pattern starts with a literal where it can, so that 1 MB of ordinary
 * output is scanned in a few milliseconds (`bench/redact`).
 */

/** One built-in: what it finds, and what stands in its place (a string with `$1`, or a function). */
export interface SecretFormat {
  name: string;
  regex: RegExp;
  replacement: string | ((match: string, ...groups: Array<string | undefined>) => string);
}

const B64 = "A-Za-z0-9+/";
/**
 * A line of key material in PEM shape: 64 base64 characters (PEM, PGP armor, PuTTY) or 70
 * (OpenSSH), at least one of them outside the hex digits so that SHA-256 sums one per line are not
 * taken for a key. A line may carry a line-number prefix (`cat -n`, `  12| `) or indentation.
 */
const PREFIX = String.raw`[ \t]*(?:\d+(?:\t|[:|] ?))?`;
const KEY_LINE = String.raw`${PREFIX}(?=[0-9a-fA-F]{0,69}[g-zG-Z+/])(?:[${B64}]{70}|[${B64}]{64})(?:\r?\n|$)`;
const KEY_LAST_LINE = String.raw`${PREFIX}[${B64}]{1,69}={0,2}(?:\r?\n|$)`;

const PRIVATE_KEY = "[redacted private key]";

export const SECRET_FORMATS: ReadonlyArray<SecretFormat> = [
  {
    // A whole block, to its END line, or to the end of the text when the END line was cut off.
    name: "private key block",
    regex: /-----BEGIN ([A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?)-----[\s\S]*?(?:-----END \1-----|$)/g,
    replacement: PRIVATE_KEY,
  },
  {
    // Key material whose BEGIN line was cut off (`sed -n 2,9p`, a read from line 2, a truncation):
    // two or more full lines in PEM shape. Blocks that say what they are and are not private
    // (certificates, public keys) are matched first and left as they are.
    name: "private key lines",
    regex: new RegExp(
      String.raw`(-----BEGIN (?![A-Z0-9 ]*PRIVATE)[A-Z0-9 ]{1,40}-----[\s\S]*?-----END [A-Z0-9 ]{1,40}-----)|^(?:${KEY_LINE}){2,}(?:${KEY_LAST_LINE})?`,
      "gm",
    ),
    replacement: (match, publicBlock) => (publicBlock !== undefined ? match : `${PRIVATE_KEY}${/\r?\n$/.exec(match)?.[0] ?? ""}`),
  },
  {
    name: "PuTTY private key",
    regex: /(Private-Lines: *\d+\r?\n)(?:[A-Za-z0-9+/=]+(?:\r?\n|$))+/g,
    replacement: `$1${PRIVATE_KEY}\n`,
  },
  { name: "AWS access key", regex: /(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}/g, replacement: "[redacted AWS key]" },
  { name: "GitHub token", regex: /gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255}/g, replacement: "[redacted GitHub token]" },
  {
    name: "GitLab token",
    regex: /gl(?:pat|dt|rt|rtr|ptt|soat|cbt|ffct|imt|agent|oas|ft)-[A-Za-z0-9_-]{20,}|GR1348941[A-Za-z0-9_-]{20,}/g,
    replacement: "[redacted GitLab token]",
  },
  { name: "Slack token", regex: /xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,}/g, replacement: "[redacted Slack token]" },
  { name: "Slack webhook", regex: /(hooks\.slack\.com\/(?:services|workflows)\/)[A-Za-z0-9_/-]{20,}/g, replacement: "$1[redacted]" },
  { name: "Stripe key", regex: /(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}|whsec_[A-Za-z0-9]{20,}/g, replacement: "[redacted Stripe key]" },
  {
    // OpenAI (`sk-…`, `sk-proj-…`, `sk-svcacct-…`, `sk-admin-…`) and Anthropic (`sk-ant-…`) keys.
    // A bare `sk-` needs 32 characters without a dash, one of them upper case, so that `task-runner-…`
    // and `disk-<hex>` stay.
    name: "API key",
    regex: /sk-(?:(?:ant|proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|(?=[A-Za-z0-9]{0,200}[A-Z])[A-Za-z0-9]{32,})/g,
    replacement: "[redacted API key]",
  },
  { name: "npm token", regex: /npm_[A-Za-z0-9]{36}/g, replacement: "[redacted npm token]" },
  { name: "Google API key", regex: /AIza[0-9A-Za-z_-]{35}/g, replacement: "[redacted Google API key]" },
  { name: "JWT", regex: /eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, replacement: "[redacted JWT]" },
  { name: "bearer token", regex: /(bearer\s+)[A-Za-z0-9._~+/-]{16,}=*/gi, replacement: "$1[redacted token]" },
  {
    name: "authorization header",
    regex: /((?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:basic|token|digest)\s+)[^\s"'\\]{8,}/gi,
    replacement: "$1[redacted]",
  },
  { name: "URL password", regex: /(:\/\/[^\s:/@?#]*:)[^\s@/?#]+@/g, replacement: "$1[redacted]@" },
  {
    // `password=…`, `"api_key": "…"`, `client_secret: …`. A quoted value is a secret; an unquoted
    // one only when it holds a digit, so code (`token: string`, `apiKey = process.env.API_KEY`,
    // `secret = crypto.randomBytes(32)`) is left readable.
    name: "secret assignment",
    regex:
      /((?:password|passwd|secret|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token|access[_-]?token|token)["']?\s*[:=]{1,2}\s*)(?:(["'])(?!\[redacted|\$\{|\{\{|%\()([^"'\n]{6,})\2|(?!\[redacted)(?=[^\s"'`,;(){}[\]<>]*\d)[^\s"'`,;(){}[\]<>]{6,})/gi,
    replacement: (_match, key, quote) => (quote !== undefined ? `${key}${quote}[redacted]${quote}` : `${key}[redacted]`),
  },
];
