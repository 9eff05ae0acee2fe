import { type PolicyService, messageOf } from "@toolhost/core";
import { SandboxSetupError } from "./_hide.js";

/** What the policy denies to read inside the folders a call reads but does not write. */
export interface ReadableDenied {
  denyRead: string[];
  /** Folders too large to search (the policy's walk bound): what its patterns name there stays readable, and the details say so. */
  unbounded: string[];
}

/** /etc (the minimal root's one walked system folder) is searched once per process and policy, as the system view walks it once. */
const SYSTEM_ONCE = ["/etc"];
const systemAnswers = new WeakMap<PolicyService, Promise<string[]>>();

/**
 * Minimal root: the policy's denied paths (`.env` and the like) inside the `readable` folders and
 * the other folders the call reads (the full-output folder), asked of the policy each call as for
 * the workspace; inside /etc, once. A folder over the policy's walk bound is not refused (the user
 * named it): its name goes to `unbounded`. Any other failure refuses the call (fail closed).
 * The other system folders (/usr, /bin, /lib*) hold what the system's packages installed and are
 * too large to walk per call: not searched.
 */
export async function readableDenied(policy: PolicyService | undefined, folders: readonly string[], withSystem: boolean): Promise<ReadableDenied> {
  const found: ReadableDenied = { denyRead: [], unbounded: [] };
  if (!policy) return found;
  for (const folder of folders) {
    try {
      found.denyRead.push(...(await policy.protectedPaths(folder, { confined: true })).denyRead);
    } catch (error) {
      if (!/too large/i.test(messageOf(error))) throw new SandboxSetupError(`the policy could not list the paths it protects under ${folder}: ${messageOf(error)}`);
      found.unbounded.push(`${folder} (too large to search: ${messageOf(error)})`);
    }
  }
  if (withSystem) found.denyRead.push(...(await systemDenied(policy)));
  return found;
}

function systemDenied(policy: PolicyService): Promise<string[]> {
  let answer = systemAnswers.get(policy);
  if (!answer) {
    answer = (async () => {
      const paths: string[] = [];
      for (const folder of SYSTEM_ONCE) {
        try {
          paths.push(...(await policy.protectedPaths(folder, { confined: true })).denyRead);
        } catch (error) {
          throw new SandboxSetupError(`the policy could not list the paths it protects under ${folder}: ${messageOf(error)}`);
        }
      }
      return paths;
    })();
    // A failure is not kept: the next call asks again.
    answer.catch(() => systemAnswers.delete(policy));
    systemAnswers.set(policy, answer);
  }
  return answer;
}
