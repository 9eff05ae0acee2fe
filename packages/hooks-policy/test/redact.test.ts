import { createHash, generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DEFAULT_REDACT_ENV, Redactor } from "../src/index.js";

// Secrets are put together at run time, so no literal in this file looks like a live key.
const alnum = (length: number, seed = 7) => {
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let out = "";
  for (let i = 0; i < length; i++) out += chars[(i * 31 + seed * 17 + ((i * i) % 13)) % chars.length];
  return out;
};
const base64Lines = (bytes: number, width: number) => randomBytes(bytes).toString("base64").match(new RegExp(`.{1,${width}}`, "g")) ?? [];

const SECRETS = {
  aws: `AKIA${"IOSFODNN7EXAMPLE".slice(0, 16)}`,
  awsSession: `ASIA${alnum(16).toUpperCase()}`,
  githubClassic: `ghp_${alnum(36)}`,
  githubOAuth: `gho_${alnum(36, 3)}`,
  githubFineGrained: `github_pat_11${alnum(20)}_${alnum(59, 5)}`,
  gitlab: `glpat-${alnum(20, 9)}`,
  slack: `xoxb-123456789012-1234567890123-${alnum(24)}`,
  stripe: `sk_${"live"}_${alnum(24, 4)}`,
  openaiProject: `sk-proj-${alnum(48, 2)}-${alnum(20)}`,
  openaiLegacy: `sk-${alnum(20, 6)}T3BlbkFJ${alnum(20, 8)}`,
  anthropic: `sk-ant-api03-${alnum(93, 1)}AA`,
  google: `AIza${alnum(35, 11)}`,
  npm: `npm_${alnum(36, 12)}`,
  jwt: `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${alnum(43, 13)}`,
};

const redactor = new Redactor([], true);
const redact = (text: string) => redactor.text(text);

function expectGone(out: string, ...secrets: string[]) {
  for (const secret of secrets) expect(out, `"${secret.slice(0, 24)}…" should be gone`).not.toContain(secret);
  expect(out).toContain("[redacted");
}

describe("built-in token formats", () => {
  it.each(Object.entries(SECRETS))("%s: alone, in a sentence, glued to word characters, quoted", (_name, secret) => {
    for (const text of [secret, `the key is ${secret}.`, `KEY_${secret}`, `tok${secret}x`, `"${secret}"`, `export X='${secret}'`]) {
      expectGone(redact(text), secret);
    }
  });

  it("each format says what it replaced", () => {
    expect(redact(`a ${SECRETS.aws} b`)).toBe("a [redacted AWS key] b");
    expect(redact(SECRETS.githubFineGrained)).toBe("[redacted GitHub token]");
    expect(redact(SECRETS.gitlab)).toBe("[redacted GitLab token]");
    expect(redact(SECRETS.slack)).toBe("[redacted Slack token]");
    expect(redact(SECRETS.stripe)).toBe("[redacted Stripe key]");
    expect(redact(SECRETS.anthropic)).toBe("[redacted API key]");
    expect(redact(SECRETS.google)).toBe("[redacted Google API key]");
    expect(redact(SECRETS.jwt)).toBe("[redacted JWT]");
  });

  it("headers, URLs and assignments keep their names and lose their values", () => {
    const basic = Buffer.from("admin:correct horse").toString("base64");
    const opaque = alnum(40, 14);
    expect(redact(`curl -H "Authorization: Bearer ${opaque}" https://x`)).toBe('curl -H "Authorization: Bearer [redacted token]" https://x');
    expect(redact(`authorization: bearer ${opaque}`)).toBe("authorization: bearer [redacted token]");
    expect(redact(`-H 'Authorization: Basic ${basic}'`)).toBe("-H 'Authorization: Basic [redacted]'");
    expect(redact(`Authorization: token ${opaque}`)).toBe("Authorization: token [redacted]");
    expect(redact("git clone https://deploy:pa55w0rd-x@git.example.com/r.git")).toBe("git clone https://deploy:[redacted]@git.example.com/r.git");
    expect(redact("redis://:hunter2hunter2@cache:6379/0")).toBe("redis://:[redacted]@cache:6379/0");
    expect(redact("DB_PASSWORD=hunter2hunter2")).toBe("DB_PASSWORD=[redacted]");
    expect(redact('{"client_secret": "correct horse battery"}')).toBe('{"client_secret": "[redacted]"}');
    expect(redact("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")).toBe("aws_secret_access_key = [redacted]");
  });
});

describe("private keys", () => {
  const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pkcs8 = rsa.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const pkcs1 = rsa.privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  const ec = generateKeyPairSync("ec", { namedCurve: "P-384" }).privateKey.export({ type: "sec1", format: "pem" }).toString();
  const bodyOf = (pem: string) => pem.split("\n").filter((line) => line !== "" && !line.startsWith("-----"));

  it("whole blocks of any kind, to the END line or to the end of a cut text", () => {
    for (const pem of [pkcs8, pkcs1, ec]) {
      const out = redact(`before\n${pem}after\n`);
      expect(out).toBe("before\n[redacted private key]\nafter\n");
      const cut = redact(`before\n${pem.slice(0, 200)}`);
      expect(cut).toBe("before\n[redacted private key]");
    }
  });

  it("code that names a BEGIN line keeps the lines after it", () => {
    const code = "if (pem.startsWith('-----BEGIN RSA PRIVATE KEY-----')) {\n  return parseRsa(pem);\n}\nreturn parseOther(pem);";
    const out = redact(code);
    expect(out).toBe("if (pem.startsWith('[redacted private key]\n  return parseRsa(pem);\n}\nreturn parseOther(pem);");
  });

  it("a key inside JSON (a cloud service account file)", () => {
    const json = JSON.stringify({ type: "service_account", private_key_id: "0123456789abcdef", private_key: pkcs8, client_email: "bot@example.iam" }, null, 2);
    const out = redact(json);
    for (const line of bodyOf(pkcs8)) expect(out).not.toContain(line);
    expect(out).toContain('"private_key": "[redacted');
    expect(out).toContain('"private_key_id": "0123456789abcdef"');
    expect(out).toContain('"client_email": "bot@example.iam"');
  });

  it("SSH2 (RFC 4716) private key files", () => {
    const ssh2 = ["---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----", 'Comment: "me"', ...base64Lines(600, 70), "---- END SSH2 ENCRYPTED PRIVATE KEY ----"].join("\n");
    expect(redact(`a\n${ssh2}\nb`)).toBe("a\n[redacted private key]\nb");
  });

  it("PGP private key blocks", () => {
    const block = ["-----BEGIN PGP PRIVATE KEY BLOCK-----", "", ...base64Lines(1200, 64), "=n8Zq", "-----END PGP PRIVATE KEY BLOCK-----"].join("\n");
    const out = redact(`gpg --export-secret-keys -a\n${block}\ndone`);
    expect(out).toBe("gpg --export-secret-keys -a\n[redacted private key]\ndone");
  });

  it("key material without its BEGIN line: sed -n 2,4p, a read from line 2, cat -n, a cut head", () => {
    const body = bodyOf(pkcs8);
    const cases = [
      body.slice(0, 3).join("\n"), // sed -n 2,4p
      body.slice(0, 2).join("\n"), // two lines
      `${body.join("\n")}\n-----END PRIVATE KEY-----\n`, // read from line 2
      body.map((line, i) => `${String(i + 2).padStart(6)}\t${line}`).join("\n"), // cat -n
      body.map((line, i) => `${String(i + 2).padStart(4)}| ${line}`).join("\n"), // numbered listing
      `[output truncated: 40 lines dropped]\n${body.slice(-8).join("\n")}\n-----END PRIVATE KEY-----`, // the tail of a cut
      body.slice(0, 5).join("\r\n"), // CRLF
      base64Lines(400, 70).join("\n"), // OpenSSH's 70-column lines
    ];
    for (const text of cases) {
      const out = redact(text);
      for (const line of body.concat(text.split(/\r?\n/))) {
        const material = line.replace(/^[\s\d|]*\t?/, "").trim();
        if (material.length >= 64 && /^[A-Za-z0-9+/]+$/.test(material)) expect(out, text.slice(0, 80)).not.toContain(material);
      }
      expect(out).toContain("[redacted private key]");
    }
  });

  it("a certificate stays and the headerless key after it goes", () => {
    const cert = ["-----BEGIN CERTIFICATE-----", ...base64Lines(900, 64), "-----END CERTIFICATE-----"].join("\n");
    const body = bodyOf(pkcs8);
    const out = redact(`${cert}\n${body.slice(3, 9).join("\n")}\n${cert}`);
    expect(out).toBe(`${cert}\n[redacted private key]\n${cert}`);
  });

  it("PuTTY key files keep their public part and lose the private lines", () => {
    const ppk = ["PuTTY-User-Key-File-3: ssh-ed25519", "Encryption: none", "Comment: me", "Public-Lines: 2", "AAAAC3NzaC1lZDI1NTE5AAAAIOdU", "vGbPCDa", "Private-Lines: 1", "AAAAIHcUzL1pXyqYtq8mG0a2rQ1lBvV1Q9nZ1Zz0h5pvsnXk", "Private-MAC: 8a"].join("\n");
    const out = redact(ppk);
    expect(out).not.toContain("AAAAIHcUzL1pXyqYtq8mG0a2rQ1lBvV1Q9nZ1Zz0h5pvsnXk");
    expect(out).toContain("Public-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIOdU");
    expect(out).toContain("Private-Lines: 1\n[redacted private key]\nPrivate-MAC: 8a");
  });
});

describe("what is not a secret stays as it is", () => {
  const unchanged = (text: string) => expect(redact(text)).toBe(text);
  const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
  const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

  it("hashes: git log, SHA-256 sums one per line, docker digests, lockfile integrity", () => {
    unchanged(Array.from({ length: 20 }, (_, i) => `${sha1(String(i))} commit ${i}`).join("\n"));
    unchanged(Array.from({ length: 20 }, (_, i) => sha1(String(i))).join("\n"));
    unchanged(Array.from({ length: 20 }, (_, i) => sha256(String(i))).join("\n"));
    unchanged(Array.from({ length: 20 }, (_, i) => sha256(String(i)).toUpperCase()).join("\n"));
    unchanged(Array.from({ length: 20 }, (_, i) => `${sha256(String(i))}  src/file${i}.ts`).join("\n"));
    unchanged(`image@sha256:${sha256("x")}`);
    unchanged(`"integrity": "sha512-${createHash("sha512").update("x").digest("base64")}"`);
  });

  it("UUIDs, ids and names with dashes", () => {
    unchanged(Array.from({ length: 10 }, () => randomUUID()).join("\n"));
    unchanged("pod/task-runner-5f7d8c9b6-x2x4z   Running\ndisk-550e8400e29b41d4a716446655440000\nrisk-assessment-quarterly-report-2026");
    unchanged("AIDAJQABLZS4A3QDU576Q is a user id; AROA role ids and ASIA-Pacific regions too");
  });

  it("base64 content: one-line images, data URLs, GNU base64's 76 columns, certificates and public keys with their headers", () => {
    const image = randomBytes(3000).toString("base64");
    unchanged(image);
    unchanged(`data:image/png;base64,${image}`);
    unchanged(JSON.stringify({ type: "image", data: image, mimeType: "image/png" }));
    unchanged(base64Lines(3000, 76).join("\n"));
    const cert = ["-----BEGIN CERTIFICATE-----", ...base64Lines(900, 64), "-----END CERTIFICATE-----"].join("\n");
    unchanged(`${cert}\n${cert}`);
    const publicKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ type: "spki", format: "pem" }).toString();
    unchanged(publicKey);
    unchanged(`ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOdUvGbPCDaqk2f2mFx8zXGvQH3lNvP5eW4x7f9yB2Qw me@host\nssh-rsa AAAAB3NzaC1yc2E${randomBytes(270).toString("base64")} me@host`);
  });

  it("source code that names secrets without holding one", () => {
    unchanged(
      [
        "function login(token: string, password: string): Promise<Session> {",
        "  const apiKey = process.env.API_KEY;",
        "  const secret = crypto.randomBytes(32);",
        '  const password = readPassword("prompt");',
        "  if (!token) throw new Error('no token');",
        '  headers.Authorization = `Bearer ${token}`;',
        '  password: "${DB_PASSWORD}",',
        "  max_tokens=1024, prompt_tokens: 12, token_type: bearer",
        "}",
      ].join("\n"),
    );
  });

  it("ordinary output: env, URLs, prose", () => {
    unchanged("HOME=/root\nPWD=/home/user1/src\nSHELL=/bin/bash\nPATH=/usr/local/bin:/usr/bin");
    unchanged("https://user@example.com/x https://example.com:8443/path?q=1#a git@github.com:org/repo.git ssh://git@host:22/r");
    unchanged("The bearer of this letter is a friend. Authorization: see the docs. Nothing secret here: 42 apples.");
  });
});

describe("known values (environment variables)", () => {
  const env = {
    MY_SERVICE_TOKEN: "plain-words-that-match-no-format",
    db_password: "tr1cky.value*with+regex(chars)?",
    SHORT_KEY: "abc",
    PATH: "/usr/local/bin:/usr/bin",
    HOME: "/root",
    UNSET_TOKEN: undefined,
  };

  it("the values of matching variables are masked wherever they appear, named by the variable", () => {
    const known = new Redactor([], false, { names: DEFAULT_REDACT_ENV, env });
    const out = known.text(`MY_SERVICE_TOKEN=${env.MY_SERVICE_TOKEN}\necho ${env.db_password} | cat\nPATH=${env.PATH}\nSHORT_KEY=abc`);
    expect(out).toBe(`MY_SERVICE_TOKEN=[redacted $MY_SERVICE_TOKEN]\necho [redacted $db_password] | cat\nPATH=${env.PATH}\nSHORT_KEY=abc`);
  });

  it("a value that holds another is masked whole; no names, nothing masked", () => {
    const known = new Redactor([], false, { names: ["*_TOKEN", "*_URL"], env: { A_TOKEN: "s3cret-token-1", DB_URL: "postgres://u:s3cret-token-1@db/x" } });
    expect(known.text("postgres://u:s3cret-token-1@db/x")).toBe("[redacted $DB_URL]");
    expect(new Redactor([], false, { names: [], env }).active).toBe(false);
  });
});

describe("your patterns", () => {
  it("replacements expand $1, $<name>, $& and $$ as String.prototype.replace does", () => {
    const yours = new Redactor(
      [
        { pattern: "(ticket)-(\\d+)", replacement: "$1-#" },
        { pattern: "user=(?<user>\\w+)", replacement: "user=<$<user>>" },
        { pattern: "cost \\d+", replacement: "[$&] $$" },
      ],
      false,
    );
    expect(yours.text("ticket-123 user=alice cost 42")).toBe("ticket-# user=<alice> [cost 42] $");
  });

  it("where your pattern and a built-in overlap, both parts are masked", () => {
    const yours = new Redactor([{ pattern: "id=[0-9]{3}AKIA", replacement: "id=[x]" }], true);
    const out = yours.text(`id=123${SECRETS.aws}`);
    expect(out).not.toContain(SECRETS.aws.slice(4));
    expect(out).toBe("id=[x][redacted]");
  });
});
