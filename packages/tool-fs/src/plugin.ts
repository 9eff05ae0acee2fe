import { createRequire } from "node:module";
import { definePlugin, ErrorCode, ToolhostError, Type } from "@toolhost/core";
import { createContext, DEFAULTS } from "./_context.js";
import type { ImageProcessor } from "./options.js";
import { toolsOf } from "./tools.js";

/**
 * The plugin's options; the host fills the defaults and validates them before `apply`. What widens
 * what the tools reach is marked `reach`: a project the user has not trusted may only narrow it.
 */
export const FsPluginOptions = Type.Object(
  {
    roots: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description:
          "Folders the tools may touch (after symlinks are resolved). Default: the workspace (the config file's folder). Relative ones resolve against it; ${workspace} stands for it.",
        reach: "folders",
      }),
    ),
    maxSize: Type.Integer({ minimum: 1, default: DEFAULTS.maxSize, description: "Bytes read returns at most per call." }),
    maxLines: Type.Integer({ minimum: 1, default: DEFAULTS.maxLines, description: "Lines read returns at most per call." }),
    maxTotalSize: Type.Integer({
      minimum: 1,
      default: DEFAULTS.maxTotalSize,
      description: "Bytes ls, find and grep return at most per call.",
    }),
    ripgrep: Type.Boolean({ default: true, description: "false: grep uses its plain Node search even when ripgrep is installed." }),
    skipFolders: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        description:
          'Folders grep and find skip unless an ignore file brings them back or a call sends includeSkipped: names or path ends such as ".yarn/cache", at any depth. Default: node_modules, .venv and the caches of common build tools (SKIPPED_FOLDERS); [] skips none.',
      }),
    ),
    overwriteReadOnly: Type.Boolean({
      default: false,
      reach: "order",
      order: [false, true],
      description: "true: write and edit replace read-only files (keeping their mode). Default: they refuse, as editors do.",
    }),
    // "allow" widens what the tools show: an untrusted project may only keep "refuse".
    hardLinks: Type.Optional(
      Type.Union([Type.Literal("refuse"), Type.Literal("allow")], {
        reach: "order",
        order: ["refuse", "allow"],
        description:
          'A file with a name (hard link) outside the roots: "refuse" (the default) makes read, write and edit refuse it; "allow" treats it as any file (pnpm\'s store linked into node_modules).',
      }),
    ),
    // A function cannot be described in JSON Schema: `apply` checks it.
    imageProcessor: Type.Optional(
      Type.Any({ description: "Code configs only: (image: Buffer, { path, mimeType }) => a text or image block." }),
    ),
  },
  { additionalProperties: false },
);

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

export default definePlugin({
  name: "@toolhost/tool-fs",
  version,
  options: FsPluginOptions,
  async apply(harness, options) {
    const imageProcessor: unknown = options.imageProcessor;
    if (imageProcessor !== undefined && typeof imageProcessor !== "function") {
      throw new ToolhostError(
        ErrorCode.INVALID_PLUGIN_OPTIONS,
        `Plugin "@toolhost/tool-fs": imageProcessor must be a function (image, { path, mimeType }) => block, got ${typeof imageProcessor}. Set it from a .js or .ts config, or remove it.`,
      );
    }
    const ctx = createContext({
      cwd: harness.cwd,
      // The project's folder, not where the host was started: the same workspace tool-bash writes in.
      workspace: harness.workspace,
      maxSize: options.maxSize,
      maxLines: options.maxLines,
      maxTotalSize: options.maxTotalSize,
      ripgrep: options.ripgrep,
      overwriteReadOnly: options.overwriteReadOnly,
      ...(options.hardLinks ? { hardLinks: options.hardLinks } : {}),
      // Looked up at each call: a policy plugin may be applied after this one.
      policy: () => harness.getService("policy"),
      ...(options.roots ? { roots: options.roots } : {}),
      ...(options.skipFolders ? { skipFolders: options.skipFolders } : {}),
      ...(imageProcessor ? { imageProcessor: imageProcessor as ImageProcessor } : {}),
    });
    // A missing root is a configuration mistake: say so at start-up, not at the first call.
    await ctx.realRoots();
    for (const tool of toolsOf(ctx)) harness.registerTool(tool);
  },
});
