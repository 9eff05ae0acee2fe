import { isAbsolute } from "node:path";
import type { PolicyMatch, PolicyPart, PolicyPartKind } from "@toolhost/core";
import { decideLayered, finish, merge, worst } from "../explain/_explanation.js";
import { LINK_TTL_MS, normalizePath } from "../paths/_paths.js";
import { placeOf } from "../paths/_places.js";
import { TreeGuard } from "../paths/_protected.js";
import type { PathIndex } from "../rules/_path-index.js";
import { type CompiledRule, isControl, matchOf } from "../rules/_rules.js";
import type { Decision } from "../options.js";
import type { ShellFilePart } from "../shell/_parse.js";
import { judgeControl, writesNothingRead } from "./_control.js";
import { operationNote, rulesOfWrite } from "./_operations.js";
import { LIFTED, type JudgeScope, READ, WRITE } from "./_scope.js";
import type { ToolRules } from "./_tool-rules.js";

/*
 * Parts that are paths: a file a call declares it reads or writes, a tree it reads, and a file a
 * command's redirect or writer touches. Judged by the path rules, and the rules without a matcher.
 */

/**
 * A file a command writes or reads; `lifting` (writes of a confined call): the sandboxed rules
 * that lift a run-time path's ask.
 */
export function judgeFile(scope: JudgeScope, part: ShellFilePart, fileRules: PathIndex, whole: CompiledRule[], cwds: Array<string | undefined>, lifting?: Set<string>, fallback?: PolicyMatch[]): PolicyPart {
  const word = part.path;
  const kind = part.kind;
  if (word.value === undefined) {
    const matched = whole.map((rule) => matchOf(rule, rule.decision));
    const lifted = lifting !== undefined && matched.some((entry) => lifting.has(entry.id));
    const notes = [`${kind === "write" ? "writes to" : "reads from"} a path known only at run time`];
    return finish({ kind, subject: `${part.via} ${word.text}`, decision: "allow", matched }, scope.layering, lifted ? [...notes, LIFTED] : notes, !lifted);
  }
  const value = word.value;
  const relative = !isAbsolute(value) && !(word.tilde && value.startsWith("~"));
  const targets = relative ? cwds.slice(0, part.cdCount + 1) : [cwds[0]];
  let result: PolicyPart | undefined;
  for (const cwd of targets) {
    const judged =
      cwd === undefined
        ? finish({ kind, subject: value, decision: "allow", matched: [] }, scope.layering, ["relative to a folder known only at run time (after cd)"], true)
        : judgeNormalized(scope, kind, value, cwd, word.tilde, fileRules, whole, part.via, fallback);
    result = result === undefined ? judged : merge(result, judged);
  }
  return result as PolicyPart;
}

/** Programs that change a file's mode, owner or attributes and not what it holds. */
const METADATA_ONLY = /^(chmod|chown|chgrp|chattr|setfacl)$/;

export function changesMetadataOnly(via: string | undefined): boolean {
  return via !== undefined && METADATA_ONLY.test(via.split(" ")[0] ?? "");
}

/** A path a call declares (`reads`, `writes`, `readTrees`). */
export function judgePath(scope: JudgeScope, kind: PolicyPartKind, path: unknown, pathRules: PathIndex, whole: CompiledRule[], cwd: string): PolicyPart {
  if (typeof path !== "string") {
    return finish({ kind, subject: String(path), decision: "allow", matched: [] }, scope.layering, ["the path is not a string"], true);
  }
  return judgeNormalized(scope, kind, path, cwd, false, pathRules, whole);
}

/** /etc and /usr/local/etc hold private places by what they are (`/etc/sudoers`, `/etc/apt/auth.conf.d`); elsewhere in the system's folders only names would say so, which programs' files share (`git-credential`). */
const ETC_TREE = /^\/(etc|usr\/local\/etc)(\/|$)/;

/**
 * The first private place (a `place` rule that does not allow, no deny rule) under a tree in /etc
 * that a call reads recursively: the path, `null` when the tree is too large to check, or undefined.
 */
export function privateHeld(scope: JudgeScope, rules: ToolRules, top: string): string | null | undefined {
  if (rules.readPlaces.length === 0 || !ETC_TREE.test(top) || placeOf(top, scope.anchors) === "workspace") return undefined;
  rules.placeGuard ??= new TreeGuard((at) => rules.readPlaces.some((rule) => (rule.path as (path: string) => boolean)(at)) && !rules.readDeny.any(at), LINK_TTL_MS, true);
  const found = rules.placeGuard.find(top);
  return found.paths[0] ?? (found.complete ? undefined : null);
}

/**
 * A tree a tool reads (ls, find, grep of tool-fs): judged as a path. The tool leaves out what the
 * read rules deny under it, not what they ask about: a tree that holds a private place is judged as
 * a read of that place too.
 */
export function judgeTree(scope: JudgeScope, path: unknown, rules: ToolRules, cwd: string): PolicyPart {
  const part = judgePath(scope, "tree", path, rules.read, rules.readWhole, cwd);
  const notes = [part.note, "what the read rules deny under it is left out by the tool"];
  const root = typeof path === "string" ? normalizePath(path, cwd, false) : undefined;
  if (root?.ok && part.decision === "allow") {
    for (const top of root.real === root.lexical ? [root.lexical] : [root.lexical, root.real]) {
      const held = privateHeld(scope, rules, top);
      if (held === undefined) continue;
      const inner = judgePath(scope, READ, held ?? top, rules.read, rules.readWhole, cwd);
      const merged = merge(part, { ...inner, kind: "tree", subject: part.subject, decision: held === null ? worst(inner.decision, "ask") : inner.decision });
      notes.push(held === null ? `reads ${top} recursively, too large to check for private places` : `reads ${top} recursively, which holds ${held}`);
      merged.note = notes.filter(Boolean).join("; ");
      return merged;
    }
  }
  part.note = notes.filter(Boolean).join("; ");
  return part;
}

/** A path as the system would walk it, judged by where it is and, for a symlink, where it leads. */
function judgeNormalized(scope: JudgeScope, kind: PolicyPartKind, value: string, cwd: string, tilde: boolean, pathRules: PathIndex, whole: CompiledRule[], via?: string, fallback?: PolicyMatch[]): PolicyPart {
  const normalized = normalizePath(value, cwd, tilde);
  const matched: PolicyMatch[] = whole.map((rule) => matchOf(rule, rule.decision));
  if (!normalized.ok) {
    if (normalized.deny) return { kind, subject: JSON.stringify(value), decision: "deny", matched, note: normalized.reason };
    return finish({ kind, subject: value, decision: "allow", matched }, scope.layering, [normalized.reason], true);
  }
  const variants = normalized.real === normalized.lexical ? [normalized.lexical] : [normalized.lexical, normalized.real];
  let decision: Decision = "allow";
  let unmatched = false;
  let relieved = false;
  let metadata = false;
  let byCommand = false;
  const control = judgeControl(scope, kind, variants, via);
  // What a program writes itself is covered by its rules; a redirect is the shell's write, and a control file is judged as one.
  const covered = fallback !== undefined && control === undefined && via !== undefined && /^[A-Za-z0-9_]/.test(via) ? fallback : undefined;
  for (const variant of variants) {
    const found = writesNothingRead(via) ? pathRules.matching(variant).filter((rule) => !isControl(rule)) : pathRules.matching(variant);
    const content = kind === WRITE ? rulesOfWrite(found, via, variants) : found;
    // A change of mode or owner is not a write of the content: the policy's own path rules that ask or deny writes do not judge it
    // (a preset's, which judge what is planted or protected there, and control files still do).
    const hits = kind === WRITE && changesMetadataOnly(via) ? content.filter((rule) => rule.decision === "allow" || isControl(rule) || scope.layering.layerOf(rule.id)?.preset === true) : content;
    if (hits.length < content.length) metadata = true;
    if (content.length < found.length) relieved = true;
    for (const rule of hits) if (!matched.some((entry) => entry.id === rule.id)) matched.push(matchOf(rule, rule.decision));
    const own = [...hits, ...whole];
    // The command's own rules cover the write when they allow it (when they ask or deny, the command's part says so).
    if (own.length === 0 && covered !== undefined && decideLayered(covered, scope.layering) === "allow") {
      byCommand = true;
      for (const entry of covered) if (!matched.some((each) => each.id === entry.id)) matched.push(entry);
      continue;
    }
    if (own.length === 0) unmatched = true;
    decision = worst(decision, own.length === 0 ? scope.defaultDecision : decideLayered(own, scope.layering));
  }
  const notes: string[] = [];
  if (relieved && via !== undefined) notes.push(operationNote(via));
  if (metadata && via !== undefined) notes.push(`${via.split(" ")[0]} changes the file's mode or owner, not its content: the path rules that ask or deny writes do not judge it, the command's rules do`);
  if (byCommand) notes.push("no path rule judges this write: the rules of the program that writes it do");
  if (control !== undefined) {
    notes.push(control.note);
    if (control.decision !== undefined) decision = worst(decision, control.decision);
  }
  if (variants.length > 1) notes.push(`a symlink to ${normalized.real}: judged by both`);
  const part: PolicyPart = { kind, subject: normalized.lexical, decision, matched };
  if (unmatched) notes.push(variants.length > 1 ? "default where no rule matched" : "default (no rule matched)");
  if (notes.length > 0) part.note = notes.join("; ");
  return part;
}
