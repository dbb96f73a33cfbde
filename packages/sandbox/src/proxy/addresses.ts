import ipaddr from "ipaddr.js";
import type { IPv4, IPv6 } from "ipaddr.js";
import { isIP } from "node:net";

/** An IP address as the proxy checks and dials it: parsed to bytes, printed in one canonical form. */
export interface CanonicalAddress {
  /** Dotted IPv4, or compressed lower-case IPv6 (an IPv4-mapped address is given as its IPv4). */
  address: string;
  family: 4 | 6;
}

/**
 * Parses an IP address in any textual form `node:net` accepts (full, compressed, zero-padded,
 * dotted-quad tail) into its canonical form; undefined when it is not one. A zone id (`fe80::1%eth0`)
 * is not accepted: it names an interface of this machine, never a public destination.
 */
export function canonicalAddress(text: string): CanonicalAddress | undefined {
  const family = text.includes("%") ? 0 : isIP(text);
  if (family === 0) return undefined;
  if (family === 4) return { address: ipaddr.IPv4.parse(text).toString(), family: 4 };
  // The URL standard's IPv6 serializer first: ipaddr.js reads `::a.b.c.d` (IPv4-compatible) as
  // `::ffff:a.b.c.d` (IPv4-mapped), which are different bytes.
  const v6 = ipaddr.IPv6.parse(new URL(`http://[${text}]/`).hostname.slice(1, -1));
  if (v6.isIPv4MappedAddress()) return { address: v6.toIPv4Address().toString(), family: 4 };
  return { address: v6.toString(), family: 6 };
}

const V4_LABELS: Record<string, string> = {
  unspecified: "an unspecified address",
  broadcast: "a broadcast address",
  multicast: "a multicast address",
  linkLocal: "a link-local (cloud metadata) address",
  loopback: "a loopback address",
  carrierGradeNat: "a shared (carrier-grade NAT) address",
  private: "a private address",
};

const V6_LABELS: Record<string, string> = {
  unspecified: "an unspecified address",
  linkLocal: "a link-local address",
  multicast: "a multicast address",
  loopback: "a loopback address",
  uniqueLocal: "a private (unique local) address",
  discard: "a discard address",
  benchmarking: "a benchmarking address",
};

/**
 * Ranges that ipaddr.js counts as unicast but that are never a public destination: an Azure
 * metadata endpoint, the documentation and benchmarking networks, the IETF protocol block, and
 * the deprecated IPv4-compatible IPv6 block (`::a.b.c.d`) that some stacks still route to IPv4.
 */
const EXTRA_DENIED: ReadonlyArray<readonly [string, number, string]> = [
  ["168.63.129.16", 32, "a cloud metadata address"],
  ["192.0.0.0", 24, "a reserved address"],
  ["192.0.2.0", 24, "a documentation address"],
  ["198.18.0.0", 15, "a benchmarking address"],
  ["198.51.100.0", 24, "a documentation address"],
  ["203.0.113.0", 24, "a documentation address"],
  ["2001:db8::", 32, "a documentation address"],
  ["::", 96, "an IPv4-compatible address"],
  ["64:ff9b:1::", 48, "a local-use NAT64 address"],
];

const extraDenied = EXTRA_DENIED.map(([net, bits, label]) => ({ range: ipaddr.parseCIDR(`${net}/${bits}`), label }));

function v4FromBytes(bytes: readonly number[], invert = false): IPv4 {
  return ipaddr.fromByteArray(bytes.map((b) => (invert ? ~b & 255 : b))) as IPv4;
}

/** IPv4 addresses an IPv6 address carries, which decide where it ends up. */
function embeddedIPv4(v6: IPv6): IPv4[] {
  const bytes = v6.toByteArray();
  switch (v6.range()) {
    case "ipv4Mapped":
      return [v6.toIPv4Address()];
    // ::ffff:0:a.b.c.d (SIIT) and 64:ff9b::/96 (NAT64): the IPv4 is the last 32 bits.
    case "rfc6145":
    case "rfc6052":
      return [v4FromBytes(bytes.slice(12))];
    // 6to4 (2002::/16): the relay's IPv4 follows the prefix.
    case "6to4":
      return [v4FromBytes(bytes.slice(2, 6))];
    // Teredo (2001::/32): the server's IPv4, then the client's, stored inverted, at the end.
    case "teredo":
      return [v4FromBytes(bytes.slice(4, 8)), v4FromBytes(bytes.slice(12), true)];
    default:
      return [];
  }
}

function deniedV4(v4: IPv4): string | undefined {
  const extra = extraDenied.find((e) => e.range[0].kind() === "ipv4" && v4.match(e.range as [IPv4, number]));
  if (extra) return extra.label;
  const range = v4.range();
  return range === "unicast" ? undefined : (V4_LABELS[range] ?? "a reserved address");
}

function deniedV6(v6: IPv6): string | undefined {
  if (v6.isIPv4MappedAddress()) return deniedV4(v6.toIPv4Address());
  const extra = extraDenied.find((e) => e.range[0].kind() === "ipv6" && v6.match(e.range as [IPv6, number]));
  // :: and ::1 sit inside the IPv4-compatible block; their own label is the clearer one.
  if (extra && !(extra.range[1] === 96 && ["unspecified", "loopback"].includes(v6.range()))) return extra.label;
  const carried = embeddedIPv4(v6);
  if (carried.length > 0) {
    for (const v4 of carried) {
      const why = deniedV4(v4);
      if (why) return why;
    }
    return undefined;
  }
  const range = v6.range();
  return range === "unicast" ? undefined : (V6_LABELS[range] ?? "a reserved address");
}

/**
 * Why the proxy refuses to dial `address`, or undefined when it is a public address. The address
 * is parsed to bytes first, so every spelling of the same address gets the same answer; an IPv6
 * address that carries an IPv4 one (mapped, NAT64, 6to4, Teredo) is judged by the IPv4 too.
 */
export function deniedAddress(address: string): string | undefined {
  if (address.includes("%")) return "not an IP address without a zone id";
  const canonical = canonicalAddress(address);
  if (!canonical) return "not an IP address";
  const parsed = ipaddr.parse(canonical.address);
  return parsed.kind() === "ipv4" ? deniedV4(parsed as IPv4) : deniedV6(parsed as IPv6);
}
