// The one spelling of a destination: what a proxy connects to and a policy judges. Each refused
// spelling is one a resolver or a URL parser would read as another host than its text says.
import { describe, expect, it } from "vitest";
import { canonicalAddress, parseAuthority, parseHost, parsePort, tunnelUrl } from "../src/index.js";

const problemOf = (text: string, defaultPort?: number): string => {
  const parsed = parseAuthority(text, defaultPort);
  return "problem" in parsed ? parsed.problem : `accepted as ${parsed.host}:${parsed.port}`;
};

describe("canonicalAddress", () => {
  it("reads every spelling of an address as the one a connection reaches", () => {
    for (const text of ["127.0.0.1", "127.1", "2130706433", "0x7f.0.0.1", "0177.0.0.1", "::ffff:127.0.0.1", "[::ffff:7f00:1]", "::FFFF:7F00:1"]) {
      expect(canonicalAddress(text), text).toBe("127.0.0.1");
    }
    expect(canonicalAddress("0:0:0:0:0:0:0:1")).toBe("::1");
    expect(canonicalAddress("[FE80:0::1]")).toBe("fe80::1");
    expect(canonicalAddress("2001:DB8::1")).toBe("2001:db8::1");
  });

  it("is undefined for a name, a zone id and what is no address", () => {
    for (const text of ["localhost", "example.com", "fe80::1%eth0", "1.2.3.4.5", "", "abc", "[::1", "::g"]) expect(canonicalAddress(text), text).toBeUndefined();
  });
});

describe("parseAuthority", () => {
  it("accepts names, addresses and ports in their canonical spelling, lower-casing names", () => {
    expect(parseAuthority("Registry.NPMJS.org:443")).toEqual({ host: "registry.npmjs.org", port: 443, isAddress: false });
    expect(parseAuthority("127.0.0.1:8080")).toEqual({ host: "127.0.0.1", port: 8080, isAddress: true });
    expect(parseAuthority("[::1]:22")).toEqual({ host: "::1", port: 22, isAddress: true });
    expect(parseAuthority("[0:0::ffff:7f00:1]:80")).toEqual({ host: "127.0.0.1", port: 80, isAddress: true });
    expect(parseAuthority("a_b.example.com", 80)).toEqual({ host: "a_b.example.com", port: 80, isAddress: false });
    expect(parseAuthority("xn--bcher-kva.de:443")).toMatchObject({ host: "xn--bcher-kva.de" });
    expect(parseAuthority("localhost:3000")).toEqual({ host: "localhost", port: 3000, isAddress: false });
  });

  it("refuses what a resolver would read as another host, saying what is wrong", () => {
    const cases: Array<[string, RegExp]> = [
      ["127.0.0.1\0.allowed.invalid:443", /NUL byte/],
      ["127.0.0.1\0@good.invalid:443", /NUL byte/],
      ["127.0.0.1@good.invalid:443", /userinfo/],
      ["user:pass@good.invalid:443", /userinfo/],
      ["good.invalid\r\nX: y:443", /control character \(0x0d\)/],
      ["good .invalid:443", /a space/],
      ["good\t.invalid:443", /control character \(0x09\)/],
      ["%31%32%37.0.0.1:80", /percent-encoding/],
      ["[fe80::1%25eth0]:80", /zone id/],
      ["[fe80::1%eth0]:80", /zone id/],
      ["bücher.de:443", /outside ASCII: write the name as ASCII \(xn--bcher-kva\.de\)/],
      ["１２７.０.０.１:80", /outside ASCII/],
      ["example.com.:443", /ends with a dot/],
      ["a..b:443", /empty label/],
      [".example.com:443", /empty label/],
      ["127.1:80", /IPv4 address: write it as four decimal numbers \(127\.0\.0\.1\)/],
      ["2130706433:80", /\(127\.0\.0\.1\)/],
      ["0x7f.1:80", /\(127\.0\.0\.1\)/],
      ["0127.0.0.1:80", /\(87\.0\.0\.1\)/], // octal, as inet_aton reads it
      ["127.000.0.1:80", /\(127\.0\.0\.1\)/],
      ["1.2.3.4.5:80", /four decimal numbers$/],
      [`${"a".repeat(64)}.com:443`, /label of the host is over 63/],
      [`${"abcdefghi.".repeat(26)}com:443`, /over 253 characters/],
      ["-evil.com:443", /starts or ends with -/],
      ["xn--zz.com:443", /not a valid name/],
      ["::1:80", /IPv6 address goes in brackets/],
      ["[::1]x:80", /after an IPv6 address/],
      ["[127.0.0.1]:80", /not an IPv6 address/],
      ["[::1:80", /brackets/],
      ["example.com", /names no port/],
      ["example.com:", /port "" is not/],
      ["example.com:0", /port "0"/],
      ["example.com:65536", /port "65536"/],
      ["example.com:080", /port "080"/],
      ["example.com:+80", /port "\+80"/],
      ["example.com:4430000000000", /port/],
      [":443", /host is empty/],
      ["ex/ample.com:443", /the character "\/"/],
      ["exa\\mple.com:443", /the character "\\\\"/],
    ];
    for (const [text, problem] of cases) expect(problemOf(text), JSON.stringify(text)).toMatch(problem);
  });

  it("takes the default port only when one is given", () => {
    expect(parseAuthority("example.com", 80)).toMatchObject({ port: 80 });
    expect(parseAuthority("[::1]", 80)).toMatchObject({ host: "::1", port: 80 });
    expect(problemOf("[::1]", undefined)).toMatch(/names no port/);
  });
});

describe("parseHost and parsePort", () => {
  it("reads a bare IPv6 address where the protocol carries no brackets (SOCKS)", () => {
    expect(parseHost("::ffff:10.0.0.1", true)).toEqual({ host: "10.0.0.1", isAddress: true });
    expect(parseHost("::1", false)).toMatchObject({ problem: expect.stringMatching(/character ":"/) });
  });

  it("accepts ports 1 to 65535 only", () => {
    expect(parsePort("1")).toBe(1);
    expect(parsePort("65535")).toBe(65535);
    expect(parsePort("65536")).toMatchObject({ problem: expect.any(String) });
  });
});

describe("tunnelUrl", () => {
  it("is the URL a tunnel is judged as", () => {
    expect(tunnelUrl("example.com", 443)).toBe("https://example.com/");
    expect(tunnelUrl("example.com", 80)).toBe("http://example.com/");
    expect(tunnelUrl("::1", 8443)).toBe("https://[::1]:8443/");
  });
});
