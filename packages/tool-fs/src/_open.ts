import { constants, type Stats } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { isInside } from "@toolhost/core";
import type { FsContext } from "./_context.js";
import { echo } from "./_echo.js";
import { FsError } from "./_errors.js";
import { changedSinceJudged, checkSameFile, identityOf, type JudgedPath } from "./_judged.js";
import { checkHardLinks } from "./_links.js";
import { type CheckedPath, kindOf, pathError, rootsText, whereIs } from "./_paths.js";
import { FsErrorCode } from "./errors.js";

const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

/**
 * Opens a checked regular file for reading. Non-blocking, so a FIFO swapped in after the check
 * cannot hang a thread of the pool; without following a link at the last name, so a link swapped
 * in is refused, not followed; the opened handle's type (`fstat`) and where it really is are
 * checked, so nothing swapped in an earlier folder makes a read (or the read half of an edit) leave
 * the roots. When the call was judged (`judged`), the handle must be the very file judged then, at
 * the same place; a file with a name outside the roots (a hard link) is refused.
 */
export async function openChecked(ctx: FsContext, path: CheckedPath, tool: string, judged?: JudgedPath): Promise<{ file: FileHandle; info: Stats }> {
  let file: FileHandle;
  try {
    file = await open(path.real, READ_FLAGS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw changedSinceJudged(path, `${path.real} is a symbolic link now`);
    throw pathError(error, path.input);
  }
  try {
    const info = await file.stat();
    if (!info.isFile()) {
      throw new FsError(
        info.isDirectory() ? FsErrorCode.IS_DIRECTORY : FsErrorCode.INVALID_PATH,
        `${echo(path.input)} is ${kindOf(info)}, not a regular file; ${tool} takes regular files only.${info.isDirectory() ? " Use ls to list it." : ""}`,
        { path: path.absolute },
      );
    }
    const opened = await whereIs(file, path.real);
    const roots = await ctx.realRoots();
    if (!roots.some((root) => isInside(opened, root))) {
      throw new FsError(
        FsErrorCode.OUTSIDE_ROOTS,
        `Refused: ${echo(path.input)} changed while it was opened and now leads to ${opened}, outside ${rootsText(roots)}. Check it for swapped symbolic links.`,
        { path: path.absolute, realPath: opened, roots },
      );
    }
    if (judged !== undefined && opened !== judged.real) throw changedSinceJudged(path, `it led to ${judged.real}, and the file opened is ${opened}`);
    checkSameFile(path, judged, identityOf(info));
    await checkHardLinks(ctx, path, info, tool);
    return { file, info };
  } catch (error) {
    await file.close();
    throw error;
  }
}
