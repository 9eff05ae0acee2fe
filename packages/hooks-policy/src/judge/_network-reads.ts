import type { ShellWord } from "../shell/_words.js";
import type { KindRole } from "../inventory/_kinds.js";

/** What the inventory says of a command (`_knowledge.ts`'s `CommandKnowledge`), as far as these judgments read and change it. */
interface Known {
  kind: KindRole;
  note: string;
}

/*
 * The cloud CLIs' reads (issue 39), too many to list as subcommands: a call whose verb reads
 * (`aws ec2 describe-instances`, `aws s3api list-buckets`, `gcloud compute instances list`,
 * `az vm show`) asks the cloud and changes nothing, unless what it reads is a credential
 * (`aws secretsmanager get-secret-value`, `gcloud auth print-access-token`, `az storage account
 * keys list`, `az account get-access-token`; what prints a function's or a task's environment:
 * `aws lambda get-function-configuration` and `list-functions`, `aws ecs describe-task-definition`), which asks as a
 * secret store. Every other verb keeps the row's kind (a cloud: asked).
 */

const AWS_READ = /^(describe|list|get)-/;
const AWS_SECRET = /secret|password|token|credential|decrypt|assume-role|parameter|data-key|login|export|key-pair|signed|presign|^get-function(-configuration)?$|^list-functions$|^describe-task-definition$|^get-environment/;
const VERB_READ = /^(list|describe|show|get|info|version|get-value)$/;
/**
 * The other clouds' CLIs (doctl, flyctl, heroku, vercel, netlify, wrangler, pulumi, …): a verb that
 * lists or shows (`doctl compute droplet list`, `vercel ls`, `fly status`, `pulumi stack ls`,
 * `heroku logs`) reads; `get` is not among them (some write what they get to a file).
 */
const OTHER_READ = /^(list|ls|status|whoami|info|version|logs|show|describe|ps|history|regions|inspect)$/;
/** Those CLIs, by name: not the ones whose every command runs the project's code first (cdk, serverless, vagrant). */
export const OTHER_CLOUDS: ReadonlySet<string> = new Set(["doctl", "flyctl", "fly", "heroku", "vercel", "netlify", "wrangler", "firebase", "oci", "ibmcloud", "linode-cli", "hcloud", "railway", "supabase", "pulumi"]);
/** A group or verb of the other clouds' CLIs that holds or prints credentials or configuration. */
const OTHER_SECRET = /^(auth|secrets?|keys?|tokens?|credentials?|kubeconfig|docker-config|registry|env|vars?|variables?|config|certs?|certificates?|ssh-keys?|sshkeys?|login|logout|access|api-keys?|passwords?)$|[:.]/;

/** A group or verb of gcloud / az that holds or prints credentials. */
const CLOUD_SECRET = /^(auth|secrets?|keys?|keyvault|credentials?|get-credentials|print-.*|access|get-access-token|config-helper|kms|decrypt|connection-string|show-connection-string|list-keys|keys-list)$/;

const remote = <T extends Known>(known: T, by: string): T => ({ ...known, kind: { kind: "read-only", role: "remote" }, note: `${known.note}; ${by} reads from the cloud and changes nothing there (read-only:remote)` });
const secret = <T extends Known>(known: T, by: string): T => ({ ...known, kind: { kind: "system", role: "secrets" }, note: `${known.note}; ${by} prints a credential (system:secrets)` });

/** The words after the program before its first option: the command's groups, verb and names. */
function path(words: readonly ShellWord[]): string[] {
  const found: string[] = [];
  for (const word of words.slice(1)) {
    if (word.value === undefined || word.value.startsWith("-")) break;
    found.push(word.value);
  }
  return found;
}

/** What an aws, gcloud or az call does, by its verb; the row's kind when the verb says nothing. */
export function cloudCall<T extends Known>(known: T, program: string, words: readonly ShellWord[]): T {
  if (known.kind.kind !== "system" || known.kind.role !== "cloud") return known;
  const groups = path(words);
  if (program === "aws") {
    const operation = groups[1];
    if (operation === undefined || !AWS_READ.test(operation)) return known;
    return AWS_SECRET.test(operation) ? secret(known, `aws ${groups[0]} ${operation}`) : remote(known, `aws ${groups[0]} ${operation}`);
  }
  if (OTHER_CLOUDS.has(program)) {
    // The verb is last, or before one name (`droplet list`, `apps info my-app`).
    const verb = groups.findIndex((word) => OTHER_READ.test(word));
    if (verb === -1 || groups.length - verb > 2) return known;
    const shown = `${program} ${groups.slice(0, verb + 1).join(" ")}`;
    return groups.some((word) => OTHER_SECRET.test(word)) ? secret(known, shown) : remote(known, shown);
  }
  if (program !== "gcloud" && program !== "az") return known;
  // The verb is last, or before one name (`describe my-vm`).
  const verb = groups.findIndex((word) => VERB_READ.test(word));
  if (verb === -1 || groups.length - verb > 2) return known;
  const shown = `${program} ${groups.slice(0, verb + 1).join(" ")}`;
  return groups.some((word) => CLOUD_SECRET.test(word)) ? secret(known, shown) : remote(known, shown);
}

/** `gh api` with GET (no method, fields or input) to GitHub itself reads; to another host it is the row's kind. */
export function apiRead<T extends Known>(known: T, words: readonly ShellWord[]): T {
  if (words.some((word) => word.value === undefined || /^--hostname(=|$)/.test(word.value))) return known;
  return { ...known, kind: { kind: "read-only", role: "remote" }, note: `${known.note}; gh api with GET reads from GitHub (read-only:remote)` };
}

/** `npm config get KEY` / `npm get KEY` of an auth setting prints a credential. */
export function npmCredential<T extends Known>(known: T, words: readonly ShellWord[]): T {
  const groups = path(words);
  const keys = (groups[0] === "config" || groups[0] === "c") && groups[1] === "get" ? groups.slice(2) : groups[0] === "get" ? groups.slice(1) : [];
  const found = keys.find((key) => /_auth|token|password|passwd|cert|key/i.test(key));
  return found === undefined ? known : secret(known, `npm config get ${found}`);
}

/** The CLIs whose `config get KEY` prints a stored setting as it is, a token too (yarn classic, gh's and glab's insecure storage). */
export const CONFIG_GETTERS: ReadonlySet<string> = new Set(["gh", "glab", "tea", "yarn", "pnpm", "bun"]);

/** `gh config get oauth_token`, `glab config get token`, `yarn config get npmAuthToken`: the operands after `config get`, an option's value between them too. */
export function configCredential<T extends Known>(known: T, program: string, operands: readonly ShellWord[]): T {
  const values = operands.map((word) => word.value);
  if (!(values[0] === "config" || values[0] === "c") || values[1] !== "get") return known;
  // A key known only at run time may be the token: fail closed.
  const found = values.slice(2).find((key) => key === undefined || /_?auth|token|password|passwd|cert|key|secret/i.test(key));
  return values.length > 2 && (found !== undefined || values.slice(2).includes(undefined)) ? secret(known, `${program} config get ${found ?? "a key known only at run time"}`) : known;
}
