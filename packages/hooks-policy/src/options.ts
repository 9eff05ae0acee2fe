import { type Static, Type } from "@toolhost/core";

export const DecisionSchema = Type.Union([Type.Literal("allow"), Type.Literal("ask"), Type.Literal("deny")], {
  description: "allow runs the call, ask sends it to the approve hook, deny refuses it.",
});

/** `allow` runs the call, `ask` sends it to the `approve` hook, `deny` refuses it. */
export type Decision = Static<typeof DecisionSchema>;

export const ExampleCallSchema = Type.Object(
  {
    tool: Type.String({ minLength: 1, description: "The tool called." }),
    args: Type.Optional(Type.Unknown({ description: "Its arguments, as a model would send them. Default {}." })),
    cwd: Type.Optional(Type.String({ minLength: 1, description: "The folder relative paths are judged against (relative to the workspace). Default the working directory." })),
    access: Type.Optional(Type.Unknown({ description: "What the call touches, for a tool this host lacks (another host's tool); default: what the tool declares for the arguments." })),
  },
  { additionalProperties: false },
);

/** A call an example names: `{ tool, args, cwd?, access? }`, as `toolhost policy explain -` reads it. */
export type ExampleCall = Static<typeof ExampleCallSchema>;

export const RuleSchema = Type.Object(
  {
    id: Type.Optional(Type.String({ minLength: 1, description: "Names the rule in decisions, explanations and the audit log." })),
    tool: Type.Optional(
      Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })], {
        description:
          "Tool names or globs on them (`bash`, `*`, `mcp_*`); default every tool. In path rules, `read` and `write` also stand for every read / write any tool declares.",
      }),
    ),
    command: Type.Optional(
      Type.String({ minLength: 1, description: "A bash command pattern, word by word: `git status`, `npm run test *`, `rm`, `*`." }),
    ),
    path: Type.Optional(
      Type.String({ minLength: 1, description: "A path glob: `${workspace}/**`, `~/.ssh/**`, `/etc/**`, `.env`, `src/**`." }),
    ),
    url: Type.Optional(
      Type.String({ minLength: 1, description: "A glob on the URLs a tool declares it reaches: `https://api.example.com/**`." }),
    ),
    host: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "A glob on the host names a tool declares it reaches: `*.example.com`, `localhost`. An address (`127.0.0.1`, `[::1]`, in any spelling) or `localhost` also matches the address a connection goes to, whatever name led there.",
      }),
    ),
    address: Type.Optional(
      Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })], {
        description:
          "The addresses a destination is reached at (those a proxy resolved its name to, or an address it names): `loopback` (127.0.0.0/8, ::1, 0.0.0.0/8, :: and this machine's own addresses), `link-local` (169.254.0.0/16, fe80::/10), `private` (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7), an address, or a range (`10.1.0.0/16`).",
      }),
    ),
    inline: Type.Optional(
      Type.Literal(true, {
        description: "Matches every interpreter running a program given inline (`python -c`, `perl -e`, `node -e`, `python3 -` with a heredoc, awk that runs commands or writes files).",
      }),
    ),
    control: Type.Optional(
      Type.Literal(true, {
        description:
          "Matches every write to a control file, wherever a call writes it (a declared write, a redirect, a program's target): toolhost's configs and .toolhost/, the agent hosts' settings and MCP configs (.claude/, .mcp.json, .gemini/, …), git's hooks and config, .envrc, shell start-up files, CI workflows (core's CONTROL_FILES, listed in the README). Judges writes only.",
      }),
    ),
    place: Type.Optional(
      Type.Union([Type.Literal("private"), Type.Literal("public")], {
        description:
          "Matches every read outside the workspace by where it is: `public`, the places known to hold nothing private (the system's programs and libraries, /etc less its secrets, /proc's own files, the harmless devices, the package managers' caches in the home folder); `private`, every other place (the rest of the home folder, other users' files, /root, /run, /var, /tmp, another process's /proc, a folder no list names). Judges reads only: declared reads, the files a command reads, the trees it reads.",
      }),
    ),
    kind: Type.Optional(
      Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })], {
        description:
          "Matches every command whose program the inventory calls one of these kinds or roles: read-only, writes, runner, runs-code, network, installs, system, destroys, unknown (not in the inventory), or a role (build, interpreter, uploader, …; see the README's inventory).",
      }),
    ),
    args: Type.Optional(
      Type.Record(Type.String({ minLength: 1 }), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
        description: "Named argument fields: a string is a glob on the field's text, a number or boolean must be equal.",
      }),
    ),
    sandboxed: Type.Optional(
      Type.Boolean({
        description:
          "A condition, beside any matcher: true, the rule applies only to calls that run confined (a sandbox lets them write only inside the workspace, reach no network, and read nothing the policy denies to read); false, only to the others. In a confined call, a matching `sandboxed: true` rule also lifts the ask of a part the policy cannot read (a command or script it cannot see into, a write to a path known only at run time).",
      }),
    ),
    trusted: Type.Optional(
      Type.Boolean({
        description:
          "A condition, beside any matcher: true, the rule applies only when the workspace is trusted (the user trusts its folder to run its code); false, only when it is not.",
      }),
    ),
    decision: DecisionSchema,
    reason: Type.Optional(Type.String({ description: "Shown to the model and the approver when this rule decides." })),
    examples: Type.Optional(
      Type.Object(
        {
          match: Type.Optional(Type.Array(ExampleCallSchema, { description: "Calls this rule must decide: the whole policy's decision for each is this rule's, and this rule is one that decided it." })),
          notMatch: Type.Optional(Type.Array(ExampleCallSchema, { description: "Calls this rule must not decide: it does not match them, or other rules overrule it." })),
        },
        {
          additionalProperties: false,
          description: "Calls, in the shape `toolhost policy explain -` reads, checked when the policy loads: a call decided otherwise is a config error naming the rule and what decided instead.",
        },
      ),
    ),
  },
  { additionalProperties: false },
);

/** One rule: which tools, what to match (at most one of `command`, `path`, `url`, `host`, `address`, `inline`, `control`, `place`, `kind`, `args`), whether only (un)sandboxed calls or (un)trusted workspaces, and the decision. */
export type PolicyRule = Static<typeof RuleSchema>;

export const RedactSchema = Type.Object(
  {
    pattern: Type.String({ minLength: 1, description: "A JavaScript regular expression." }),
    replacement: Type.Optional(Type.String({ description: 'What replaces a match; default "[redacted]". `$1` refers to a group.' })),
    flags: Type.Optional(Type.String({ pattern: "^[dgimsuy]*$", description: "RegExp flags; `g` is always added." })),
  },
  { additionalProperties: false },
);

/** A redaction of results: every match of `pattern` is replaced. */
export type RedactRule = Static<typeof RedactSchema>;

export const PresetNameSchema = Type.Union([Type.Literal("readonly"), Type.Literal("workspace"), Type.Literal("recommended")]);

/** A preset shipped with the package; see README.md. */
export type PresetName = Static<typeof PresetNameSchema>;

/** Rows the inventory gains: a program's name, and its row (`read-only`, `runs-code:build | sub lint=read-only`; see the README's inventory). */
export const ProgramsSchema = Type.Record(Type.String({ minLength: 1, pattern: "^[^\\s/]+$" }), Type.String({ minLength: 1 }), {
  description: "Teaches the policy programs it does not know, or what a program is here: `{ mytool: read-only }`, `{ deploy: \"system:cloud | sub status=read-only\" }` (the grammar is the README's inventory table).",
});

export const LayerSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, description: "Names the layer in decisions and `toolhost policy rules`." }),
    rules: Type.Array(RuleSchema),
    programs: Type.Optional(ProgramsSchema),
    default: Type.Optional(DecisionSchema),
    locked: Type.Optional(
      Type.Boolean({ description: "Later layers may make this layer's decisions stricter, never looser (an organisation's policy)." }),
    ),
  },
  { additionalProperties: false },
);

/** A layer of rules written inline in `extends`: where a preset or an organisation's policy would go. */
export type PolicyLayer = Static<typeof LayerSchema>;

/** The environment variables whose values are redacted when `redactEnv` is not given. */
export const DEFAULT_REDACT_ENV: readonly string[] = [
  "*_TOKEN",
  "*_KEY",
  "*_SECRET",
  "*_SECRET_*",
  "*_PASSWORD",
  "*_PASSWD",
  "*_PASS",
  "*_CREDENTIALS",
  "*_API_KEY_*",
  "TOKEN",
  "SECRET",
  "PASSWORD",
];

export const PolicyOptionsSchema = Type.Object(
  {
    extends: Type.Optional(
      Type.Array(Type.Union([Type.String({ minLength: 1 }), LayerSchema]), {
        description: "Layers whose rules come before yours, in order: a preset name, an npm package, a ./file.json or .yaml, or an inline layer; a later layer's matching rule overrides an earlier one's unless that one is locked.",
      }),
    ),
    default: Type.Optional(DecisionSchema),
    rules: Type.Optional(Type.Array(RuleSchema)),
    programs: Type.Optional(ProgramsSchema),
    locked: Type.Optional(
      Type.Boolean({
        description:
          "Locks this config's rules, `default` and `extends`: the layers after them (a lower owner's: the user's under the administrator's, the project's under the user's) can make their decisions stricter, never looser.",
      }),
    ),
    redact: Type.Optional(Type.Array(RedactSchema)),
    redactBuiltins: Type.Optional(
      Type.Boolean({ description: "Redact common secret formats (cloud keys, tokens, private keys). Default true." }),
    ),
    redactEnv: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: `Globs on the names of the host's environment variables whose values are redacted wherever they appear (case-insensitive). Default: ${DEFAULT_REDACT_ENV.join(", ")}; [] turns it off.`,
      }),
    ),
    audit: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "A file (relative to the folder of the config that names it: the workspace for the project's) that gets one JSON line per decision and per answer to an ask. Each owner's file gets every line.",
      }),
    ),
  },
  { additionalProperties: false },
);

/** The options of `@toolhost/hooks-policy`, as written in the config. */
export type PolicyOptions = Static<typeof PolicyOptionsSchema>;
