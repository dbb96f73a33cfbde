import { BlockList, isIPv4, isIPv6 } from "node:net";

/**
 * Destinations the egress proxy never dials, checked on the address a name resolved to (so a
 * name that resolves to loopback is refused like the literal): this host, private networks,
 * link-local and cloud metadata endpoints, multicast and reserved ranges.
 */
const DENIED: ReadonlyArray<readonly [string, number, "ipv4" | "ipv6", string]> = [
  ["0.0.0.0", 8, "ipv4", "an unspecified address"],
  ["127.0.0.0", 8, "ipv4", "a loopback address"],
  ["10.0.0.0", 8, "ipv4", "a private address"],
  ["172.16.0.0", 12, "ipv4", "a private address"],
  ["192.168.0.0", 16, "ipv4", "a private address"],
  ["100.64.0.0", 10, "ipv4", "a shared (carrier-grade NAT) address"],
  ["169.254.0.0", 16, "ipv4", "a link-local (cloud metadata) address"],
  ["168.63.129.16", 32, "ipv4", "a cloud metadata address"],
  ["192.0.0.0", 24, "ipv4", "a reserved address"],
  ["192.0.2.0", 24, "ipv4", "a documentation address"],
  ["198.18.0.0", 15, "ipv4", "a benchmarking address"],
  ["198.51.100.0", 24, "ipv4", "a documentation address"],
  ["203.0.113.0", 24, "ipv4", "a documentation address"],
  ["224.0.0.0", 4, "ipv4", "a multicast address"],
  ["240.0.0.0", 4, "ipv4", "a reserved address"],
  ["::", 128, "ipv6", "an unspecified address"],
  ["::1", 128, "ipv6", "a loopback address"],
  ["fc00::", 7, "ipv6", "a private (unique local) address"],
  ["fe80::", 10, "ipv6", "a link-local address"],
  ["ff00::", 8, "ipv6", "a multicast address"],
  ["2001:db8::", 32, "ipv6", "a documentation address"],
  ["100::", 64, "ipv6", "a discard address"],
];

const lists = DENIED.map(([net, prefix, family, label]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, family);
  return { list, family, label };
});

/** IPv6 forms that carry an IPv4 address (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16). */
function embeddedIPv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const groups = expandIPv6(lower);
  if (!groups) return undefined;
  const hex = (i: number): number => parseInt(groups[i] ?? "0", 16);
  const isMapped = groups.slice(0, 5).every((g) => g === "0") && groups[5] === "ffff";
  const isNat64 = groups[0] === "64" && groups[1] === "ff9b" && groups.slice(2, 6).every((g) => g === "0");
  if (isMapped || isNat64) return `${hex(6) >> 8}.${hex(6) & 255}.${hex(7) >> 8}.${hex(7) & 255}`;
  if (groups[0] === "2002") return `${hex(1) >> 8}.${hex(1) & 255}.${hex(2) >> 8}.${hex(2) & 255}`;
  return undefined;
}

function expandIPv6(address: string): string[] | undefined {
  if (address.includes(".")) return undefined;
  const [head = "", tail] = address.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  if (tail === undefined) return h.length === 8 ? h.map((g) => g.replace(/^0+(?=.)/, "")) : undefined;
  const fill = Array<string>(8 - h.length - t.length).fill("0");
  return [...h, ...fill, ...t].map((g) => g.replace(/^0+(?=.)/, ""));
}

/** Why the proxy refuses to dial `address`, or undefined when it is a public address. */
export function deniedAddress(address: string): string | undefined {
  const family = isIPv4(address) ? "ipv4" : isIPv6(address) ? "ipv6" : undefined;
  if (!family) return "not an IP address";
  const v4 = family === "ipv6" ? embeddedIPv4(address) : undefined;
  if (v4) return deniedAddress(v4);
  return lists.find((l) => l.family === family && l.list.check(address, family))?.label;
}
