import type { ToolAccess } from "@toolhost/core";

/*
 * What an asking process and the page server say to each other, as JSON over HTTP on loopback (or
 * the address `--http` gave), with the page's token: the ask (`POST /asks`, held open until it is
 * answered) and its answer. The page's own script reads `PageRecord`s from `/events`.
 */

/** One line of a diff as the page shows it. */
export interface DiffLine {
  kind: "hunk" | "add" | "remove" | "same" | "note";
  text: string;
}

/** A write of the call: its diff when the tool declared the new content, else why none is shown. */
export interface WritePreview {
  path: string;
  /** `creates`, `changes` or `no change` when a diff was made. */
  change?: "creates" | "changes" | "no change";
  diff?: DiffLine[];
  /** Why no diff is shown (`a binary file`, `2000000 bytes`, `the new content is not declared`). */
  note?: string;
}

/** What the call will do, from its declared access (core's `ToolAccess`), bounded and redacted. */
export interface CallPreview {
  commands: Array<{ command: string; cwd?: string }>;
  network: Array<{ method: string; url: string }>;
  writes: WritePreview[];
  reads: string[];
  readTrees: string[];
  /** The arguments as indented JSON, when the access does not say everything (nothing declared, a write without its content). */
  args?: string;
}

/** A rule that asked about a part, as the page names it. */
export interface AskingRule {
  id: string;
  layer: string;
  owner?: string;
  matcher: string;
  decision: string;
  locked: boolean;
  source?: string;
}

/** A part of the call the policy asks about, with the rules that asked. */
export interface AskingPartView {
  kind: string;
  subject: string;
  locked: boolean;
  rules: AskingRule[];
}

/** Who asks: the process, its folder and its session. */
export interface AskerView {
  pid: number;
  /** The command in the user's words (`toolhost call`, `toolhost hook claude-code`, `node app.js`). */
  command: string;
  /** The host's working folder. */
  cwd: string;
  /** The config file the host loaded, when it has one: where "always" writes the project's rule. */
  config?: string;
  /** The asker's session: "for this session" covers its later asks. */
  session: string;
}

/** An ask, as the asking process sends it (`POST /asks`). */
export interface PageAsk {
  /** core's `callDigest` of the call's tool, prepared arguments and declared access: the answer is for this content only. */
  digest: string;
  tool: string;
  toolCallId: string;
  reason: string;
  askedBy: string;
  asker: AskerView;
  /** The parts the policy asks about (empty when the ask is not the policy's). */
  parts: AskingPartView[];
  /** Whether the policy left asking parts out of its account (then no rule can be written for good). */
  partsOmitted: boolean;
  preview: CallPreview;
  /** The call as the pipeline prepared it, for the rule "always" writes and the session's scope. */
  call: { args: unknown; access?: ToolAccess; details?: Record<string, unknown> };
  /** How long the asker waits, in ms. */
  timeoutMs: number;
}

/** How a person answered on the page (`POST /asks/<id>/answer`). */
export interface PageChoice {
  /** The digest the page showed: an answer for other content is refused. */
  digest: string;
  /** `once`, `session`, `always:project`, `always:user`, or `deny`. */
  choice: string;
  /** With `deny`: why, for the model. */
  reason?: string;
}

/** What became of an ask, for the asker (the body of the answer to `POST /asks`). */
export interface PageAnswer {
  id: string;
  digest: string;
  outcome: "approved" | "denied" | "timed out" | "withdrawn";
  approved: boolean;
  scope?: "once" | "session" | "always";
  /** The denier's reason, or what happened (the rule not written, the time-out). */
  reason?: string;
  /** Who answered, in words (`root on the page, from 127.0.0.1`, `the session approval of ask 3`). */
  by?: string;
  /** When, as an ISO time. */
  at: string;
  /** For `always`: the rule written, and where. */
  rule?: string;
}

/** What "always" would write for an ask, shown before it is written. */
export interface AlwaysChoice {
  /** `always:project` or `always:user`. */
  choice: string;
  /** In words: `in this project (./toolhost.config.json)`. */
  where: string;
  /** The rules as they will be written. */
  rules: string;
}

/** An ask as the page lists it (`/events`). */
export interface PageRecord {
  id: string;
  /** A number in arrival order, for people (`ask 3`). */
  number: number;
  received: string;
  deadline: string;
  state: "pending" | "answering" | "answered";
  ask: Omit<PageAsk, "call">;
  /** What "for this session" covers, in words. */
  sessionText: string;
  always: AlwaysChoice[];
  answer?: PageAnswer;
  /** Set when the answer could not be handed to the asker (it had gone). */
  undelivered?: boolean;
}
