import { isIPv4, isIPv6 } from "node:net";

/** Why an address is not public, e.g. "loopback"; undefined for a public unicast address. */
export type AddressClass = string | undefined;

type Range4 = [base: number, bits: number, label: string];

const V4: Range4[] = [
  [ip4("0.0.0.0"), 8, 'unspecified ("this network")'],
  [ip4("10.0.0.0"), 8, "private (10.0.0.0/8)"],
  [ip4("100.64.0.0"), 10, "shared carrier-grade NAT (100.64.0.0/10)"],
  [ip4("127.0.0.0"), 8, "loopback"],
  [ip4("169.254.0.0"), 16, "link-local (169.254.0.0/16, cloud metadata)"],
  [ip4("172.16.0.0"), 12, "private (172.16.0.0/12)"],
  [ip4("192.0.0.0"), 24, "IETF protocol assignments (192.0.0.0/24)"],
  [ip4("192.0.2.0"), 24, "documentation (192.0.2.0/24)"],
  [ip4("192.168.0.0"), 16, "private (192.168.0.0/16)"],
  [ip4("198.18.0.0"), 15, "benchmarking (198.18.0.0/15)"],
  [ip4("198.51.100.0"), 24, "documentation (198.51.100.0/24)"],
  [ip4("203.0.113.0"), 24, "documentation (203.0.113.0/24)"],
  [ip4("224.0.0.0"), 4, "multicast"],
  [ip4("240.0.0.0"), 4, "reserved (240.0.0.0/4, broadcast)"],
];

function ip4(text: string): number {
  return text.split(".").reduce((acc, part) => ((acc << 8) | Number(part)) >>> 0, 0);
}

/** Classifies an IPv4 or IPv6 literal; IPv4 embedded in IPv6 (mapped, NAT64, 6to4) is judged as IPv4. */
export function classifyAddress(address: string): AddressClass {
  if (isIPv4(address)) return classify4(ip4(address));
  if (isIPv6(address)) return classify6(parse6(address));
  return "not an IP address";
}

function classify4(value: number): AddressClass {
  for (const [base, bits, label] of V4) {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    if ((value & mask) >>> 0 === base) return label;
  }
  return undefined;
}

function classify6(h: number[]): AddressClass {
  const [a = 0, b = 0] = h;
  const embedded4 = (hi: number, lo: number): number => ((hi << 16) | lo) >>> 0;
  const zeroUpTo = (n: number): boolean => h.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return "unspecified (::)";
  if (zeroUpTo(7) && h[7] === 1) return "loopback (::1)";
  if (zeroUpTo(5) && h[5] === 0xffff) {
    const inner = classify4(embedded4(h[6] ?? 0, h[7] ?? 0));
    return inner ? `IPv4-mapped ${inner}` : undefined;
  }
  if (zeroUpTo(6)) return "IPv4-compatible (deprecated ::/96)";
  if (a === 0x64 && b === 0xff9b && h.slice(2, 6).every((x) => x === 0)) {
    const inner = classify4(embedded4(h[6] ?? 0, h[7] ?? 0));
    return inner ? `NAT64 of ${inner}` : undefined;
  }
  if (a === 0x2002) {
    const inner = classify4(embedded4(b, h[2] ?? 0));
    return inner ? `6to4 of ${inner}` : undefined;
  }
  if ((a & 0xfe00) === 0xfc00) return "unique local (fc00::/7)";
  if ((a & 0xffc0) === 0xfe80) return "link-local (fe80::/10)";
  if ((a & 0xffc0) === 0xfec0) return "site-local (fec0::/10)";
  if ((a & 0xff00) === 0xff00) return "multicast (ff00::/8)";
  if (a === 0x2001 && b === 0x0db8) return "documentation (2001:db8::/32)";
  if (a === 0x0100 && h.slice(1, 4).every((x) => x === 0)) return "discard (100::/64)";
  return undefined;
}

/** Expands an IPv6 literal (with `::`, an IPv4 tail or a zone) to its eight 16-bit groups. */
export function parse6(address: string): number[] {
  let text = address.replace(/^\[|\]$/g, "");
  const zone = text.indexOf("%");
  if (zone !== -1) text = text.slice(0, zone);
  const v4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4Tail?.[1]) {
    const v = ip4(v4Tail[1]);
    text = `${text.slice(0, v4Tail.index)}${(v >>> 16).toString(16)}:${(v & 0xffff).toString(16)}`;
  }
  const [left = "", right] = text.split("::");
  const parts = (s: string): number[] => (s === "" ? [] : s.split(":").map((x) => parseInt(x, 16)));
  const head = parts(left);
  const tail = right === undefined ? [] : parts(right);
  const fill = right === undefined ? [] : new Array<number>(8 - head.length - tail.length).fill(0);
  return [...head, ...fill, ...tail];
}
