import { resolve } from "node:path";
import { type DeniedReads, type ProtectedPaths, type ProtectedPathsOptions, ToolhostError } from "@toolhost/core";
import { deniedReadsOf, type ReadCovers, readCovers } from "../rules/_denied-reads.js";
import type { PathAnchors } from "../paths/_paths.js";
import { TreeGuard } from "../paths/_protected.js";
import { appliesTo, type CompiledRule, isControl, isWhole } from "../rules/_rules.js";
import { PolicyErrorCode } from "../types.js";
import { READ, WRITE } from "./_scope.js";

interface Guards {
  read: TreeGuard;
  write: TreeGuard;
  readAll: boolean;
  writeAll: boolean;
}

/**
 * What the deny rules protect, as paths: under a root (`protectedPaths`: what a tool reading the
 * tree leaves out, a sandbox hides or keeps read-only) and anywhere else (`deniedReads`: what a
 * sandbox covers for a confined call). Walks and covers are made once and kept.
 */
export class Protection {
  readonly #guards = new Map<boolean, Guards>();
  /** Per tool: how its deny-read rules for confined calls turn into what a sandbox covers. */
  readonly #readCovers = new Map<string, ReadCovers>();

  constructor(
    readonly rules: readonly CompiledRule[],
    readonly cwd: string,
    readonly anchors: PathAnchors,
  ) {}

  async protectedPaths(root: string, options?: ProtectedPathsOptions): Promise<ProtectedPaths> {
    if (typeof root !== "string" || root === "" || root.includes("\0")) throw new TypeError(`protectedPaths takes a folder, not ${JSON.stringify(root)}`);
    const where = resolve(this.cwd, root);
    // Confined calls: a rule with `sandboxed: false` does not apply to them, so what only it denies is not listed.
    const { readAll, read, writeAll, write } = this.#guardsFor(options?.confined === true);
    const list = async (all: boolean, tree: TreeGuard): Promise<string[]> => {
      if (all) return [where];
      const found = await tree.findAsync(where);
      if (!found.complete) {
        throw new ToolhostError(
          PolicyErrorCode.POLICY_ERROR,
          `The tree ${where} is too large for the policy to check for protected paths (over 200,000 entries or 64 levels). Read a smaller folder.`,
        );
      }
      return found.paths;
    };
    const [denyRead, denyWrite] = await Promise.all([list(readAll, read), list(writeAll, write)]);
    return { denyRead, denyWrite };
  }

  #guardsFor(confined: boolean): Guards {
    let guards = this.#guards.get(confined);
    if (guards) return guards;
    const denying = (kind: string) => this.rules.filter((rule) => rule.decision === "deny" && rule.tool(kind) && (!confined || rule.sandboxed !== false));
    const names = (rules: CompiledRule[]) => {
      const paths = rules.filter((rule) => rule.path).map((rule) => rule.path as (path: string) => boolean);
      return (path: string) => paths.some((matches) => matches(path));
    };
    const read = denying(READ).filter((rule) => !isControl(rule));
    const write = denying(WRITE);
    guards = { read: new TreeGuard(names(read)), write: new TreeGuard(names(write)), readAll: read.some(isWhole), writeAll: write.some(isWhole) };
    this.#guards.set(confined, guards);
    return guards;
  }

  async deniedReads(request: { roots: string[]; tool?: string }): Promise<DeniedReads> {
    const roots = (request as { roots?: unknown } | null)?.roots;
    if (!Array.isArray(roots) || !roots.every((root) => typeof root === "string" && root !== "" && !root.includes("\0"))) {
      throw new TypeError("deniedReads takes { roots: folders, tool? }");
    }
    const where = roots.map((root: string) => resolve(this.cwd, root));
    return deniedReadsOf(this.readCoversOf(typeof request.tool === "string" ? request.tool : READ), where, PolicyErrorCode.POLICY_ERROR);
  }

  /** The deny rules on reads that apply to a confined call of `tool`, as a sandbox covers them. */
  readCoversOf(tool: string): ReadCovers {
    let covers = this.#readCovers.get(tool);
    if (!covers) {
      const denying = this.rules.filter(
        (rule) =>
          rule.decision === "deny" && !isControl(rule) && (rule.tool(READ) || rule.tool(tool)) && appliesTo(rule, true) && (rule.path !== undefined || (isWhole(rule) && rule.tool(READ))),
      );
      covers = readCovers(denying, this.anchors);
      this.#readCovers.set(tool, covers);
    }
    return covers;
  }
}
