import { BlockList, isIP } from "node:net";
import { networkInterfaces } from "node:os";
import { canonicalAddress, hostInUrl } from "@toolhost/core";

/*
 * Addresses as rules name them (`address` rules, and `host` / `url` rules whose host is an
 * address or `localhost`), compared in canonical form (core's `canonicalAddress`: `127.1`,
 * `::ffff:7f00:1` and `2130706433` are all `127.0.0.1`).
 */

/** The ranges an `address` rule names by a word. */
export const ADDRESS_CLASSES = ["loopback", "link-local", "private"] as const;
export type AddressClass = (typeof ADDRESS_CLASSES)[number];

const RANGES: Record<AddressClass, ReadonlyArray<readonly [string, number]>> = {
  // 0.0.0.0 and :: reach this machine too when connected to.
  loopback: [
    ["127.0.0.0", 8],
    ["0.0.0.0", 8],
    ["::1", 128],
    ["::", 128],
  ],
  "link-local": [
    ["169.254.0.0", 16],
    ["fe80::", 10],
  ],
  // RFC 1918, shared address space (RFC 6598, carrier NAT), unique local and site-local IPv6.
  private: [
    ["10.0.0.0", 8],
    ["172.16.0.0", 12],
    ["192.168.0.0", 16],
    ["100.64.0.0", 10],
    ["fc00::", 7],
    ["fec0::", 10],
  ],
};

/** Whether an address (canonical) is one of `ranges`. */
export type AddressMatcher = (address: string) => boolean;

function blockList(ranges: ReadonlyArray<readonly [string, number]>): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, isIP(network) === 6 ? "ipv6" : "ipv4");
  return list;
}

const CLASS_LISTS = new Map<AddressClass, BlockList>(ADDRESS_CLASSES.map((name) => [name, blockList(RANGES[name])]));

const family = (address: string): "ipv4" | "ipv6" => (isIP(address) === 6 ? "ipv6" : "ipv4");

/** This machine's own addresses (every interface's): a connection from here to one reaches its own services, as loopback does. */
function ownAddress(address: string): boolean {
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) if (canonicalAddress(entry.address) === address) return true;
  }
  return false;
}

/** What `localhost` names: the loopback addresses it resolves to. */
export const isLocalhost: AddressMatcher = (address) => (CLASS_LISTS.get("loopback") as BlockList).check(address, family(address)) && address !== "::" && !address.startsWith("0.");

function classMatcher(name: AddressClass): AddressMatcher {
  const list = CLASS_LISTS.get(name) as BlockList;
  if (name === "loopback") return (address) => list.check(address, family(address)) || ownAddress(address);
  return (address) => list.check(address, family(address));
}

/**
 * An `address` rule's matcher: each value a class (`loopback`: 127.0.0.0/8, ::1, 0.0.0.0/8, :: and
 * this machine's own addresses; `link-local`; `private`), an address in any spelling, or a range
 * `address/prefix`. A value that is none of these is the problem in words.
 */
export function addressMatcher(values: string | readonly string[]): AddressMatcher | { problem: string } {
  const matchers: AddressMatcher[] = [];
  const ranges: Array<[string, number]> = [];
  for (const value of [values].flat()) {
    if ((ADDRESS_CLASSES as readonly string[]).includes(value)) {
      matchers.push(classMatcher(value as AddressClass));
      continue;
    }
    const [text = "", prefixText, extra] = value.split("/");
    const network = canonicalAddress(text);
    const bits = network === undefined ? 0 : isIP(network) === 6 ? 128 : 32;
    const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
    if (network === undefined || extra !== undefined || !(prefix >= 0 && prefix <= bits)) {
      return { problem: `"${value}" is no address, range (10.0.0.0/8, fd00::/8) or class (${ADDRESS_CLASSES.join(", ")})` };
    }
    ranges.push([network, prefix]);
  }
  if (ranges.length > 0) {
    const list = blockList(ranges);
    matchers.push((address) => list.check(address, family(address)));
  }
  return (address) => matchers.some((matcher) => matcher(address));
}

/**
 * The addresses a `host` pattern names besides its text: an address in any spelling names itself
 * (`127.1` is `127.0.0.1`), `localhost` the loopback addresses; a name or a glob names none.
 * `text` is the pattern rewritten canonical, to match a URL's host as the policy writes it.
 */
export function hostAddresses(pattern: string): { text: string; matcher: AddressMatcher } | undefined {
  const lower = pattern.toLowerCase();
  if (lower === "localhost") return { text: lower, matcher: isLocalhost };
  if (/[*?\\]/.test(lower)) return undefined;
  const address = canonicalAddress(lower);
  return address === undefined ? undefined : { text: address, matcher: (other) => other === address };
}

/**
 * A `url` pattern whose host names addresses (`http://127.1:8080/**`, `http://localhost/**`):
 * the pattern with its host canonical, and the host to write in a URL to test it on an address.
 */
export function urlAddresses(pattern: string): { pattern: string; urlHost: string; matcher: AddressMatcher } | undefined {
  const parts = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)(\[[^\]/]*\]|[^/:?#[\]]*)(.*)$/s.exec(pattern);
  if (!parts) return undefined;
  const named = hostAddresses(parts[2] as string);
  if (!named) return undefined;
  const urlHost = hostInUrl(named.text);
  return { pattern: `${(parts[1] as string).toLowerCase()}${urlHost}${parts[3] as string}`, urlHost, matcher: named.matcher };
}
