import type { NetworkAccess, PolicyExplanation, PolicyService } from "@toolhost/core";
import { UsageError } from "../usage-error.js";

/** A destination as `policy explain --connect` was given it, read as tool-bash's proxy reads one. */
export interface Connection {
  method: string;
  url: string;
  host: string;
  port: number;
  isAddress: boolean;
}

/** What `policy explain --connect` shows: the policy's decision, and the destination as asked about. */
export interface ConnectionExplanation {
  explanation: PolicyExplanation;
  connection: { method: string; url: string; addresses: string[]; lookedUp: boolean; lookup?: string };
}

/**
 * `host:port` is a tunnel (CONNECT, judged as `https://host:port/`), an `https://` URL the tunnel to
 * its host and port, an `http://` URL a request forwarded with `method` (GET by default): each
 * through core's parser, so a spelling the proxy refuses is refused here, with its reason.
 */
export async function connectionOf(destination: string, method: string | undefined): Promise<Connection> {
  const { hostInUrl, parseAuthority, tunnelUrl } = await import("@toolhost/core");
  const url = /^([a-z][a-z0-9+.-]*):\/\/([^/?#\\]*)(.*)$/is.exec(destination);
  const scheme = url?.[1]?.toLowerCase();
  if (url && scheme !== "http" && scheme !== "https") throw new UsageError(`--connect takes host:port or an http:// or https:// URL, not a ${scheme}: URL.`);
  const place = parseAuthority(url ? (url[2] as string) : destination, url ? (scheme === "https" ? 443 : 80) : undefined);
  if ("problem" in place) throw new UsageError(`The proxy would refuse the destination ${JSON.stringify(destination)}: ${place.problem}.`);
  if (scheme !== "http") return { method: "CONNECT", url: tunnelUrl(place.host, place.port), ...place };
  const rest = url?.[3] ?? "";
  const request = new URL(`http://${hostInUrl(place.host)}${place.port === 80 ? "" : `:${place.port}`}${rest.startsWith("/") ? rest : `/${rest}`}`);
  request.hash = "";
  return { method: (method ?? "GET").toUpperCase(), url: request.href, ...place };
}

/**
 * Explains a connection as the proxy asks about it: the name first; unless that is denied (the
 * proxy would then look nothing up), the addresses `addresses` gives or a lookup finds now, each
 * judged as the proxy asks about it (`NetworkAccess.address`).
 */
export async function explainConnection(service: PolicyService, tool: string, connection: Connection, given: string | undefined): Promise<ConnectionExplanation> {
  const { canonicalAddress } = await import("@toolhost/core");
  const entry: NetworkAccess = { url: connection.url, method: connection.method };
  const ask = (network: NetworkAccess[]) => service.explain({ tool, args: {}, access: { network }, connection: true });
  const first = await ask([entry]);
  const shown = { method: connection.method, url: connection.url, addresses: [] as string[], lookedUp: false };
  if (first.decision === "deny" && given === undefined) return { explanation: first, connection: shown };
  let addresses: string[];
  if (given !== undefined) {
    const address = canonicalAddress(given);
    if (address === undefined) throw new UsageError(`--address ${JSON.stringify(given)} is no IP address.`);
    addresses = [address];
  } else if (connection.isAddress) {
    return { explanation: first, connection: { ...shown, addresses: [connection.host] } };
  } else {
    const found = await lookUp(connection.host);
    if (typeof found === "string") return { explanation: first, connection: { ...shown, lookedUp: true, lookup: found } };
    addresses = found;
  }
  const explanation = await ask([entry, ...addresses.map((address) => ({ ...entry, address }))]);
  return { explanation, connection: { ...shown, addresses, lookedUp: given === undefined } };
}

/** The name's addresses as the proxy finds them (the system's resolver, canonical, each once, the first four), or why there are none. */
async function lookUp(name: string): Promise<string[] | string> {
  const [{ lookup }, { canonicalAddress }] = await Promise.all([import("node:dns/promises"), import("@toolhost/core")]);
  try {
    const found = await lookup(name, { all: true, verbatim: true });
    // As the proxy: 0.0.0.0 and :: are no destination (they reach this machine), the first four of the rest.
    const canonical = found.map((each) => canonicalAddress(each.address)).filter((each): each is string => each !== undefined && each !== "::" && !each.startsWith("0."));
    const addresses = [...new Set(canonical)].slice(0, 4);
    return addresses.length > 0 ? addresses : `${name} has no address`;
  } catch (error) {
    return `${name} could not be looked up (${(error as Error).message})`;
  }
}

/** The lines above the explanation: what was asked about, and where the addresses came from. */
export function connectionHeader({ connection }: ConnectionExplanation): string {
  const where =
    connection.lookup !== undefined
      ? `; ${connection.lookup}, so the proxy would connect nowhere`
      : connection.addresses.length === 0
        ? "; not looked up: the name is refused first"
        : `, at ${connection.addresses.join(", ")}${connection.lookedUp ? " (looked up now, as the proxy would)" : ""}`;
  return `connection ${connection.method} ${connection.url}${where}\n`;
}
