import { describe, expect, it } from "vitest";
import { deniedAddress } from "@palisade/sandbox";

describe("deniedAddress", () => {
  it.each([
    ["127.0.0.1", "a loopback address"],
    ["127.8.9.10", "a loopback address"],
    ["0.0.0.0", "an unspecified address"],
    ["10.1.2.3", "a private address"],
    ["172.20.0.1", "a private address"],
    ["192.168.1.1", "a private address"],
    ["169.254.169.254", "a link-local (cloud metadata) address"],
    ["100.100.100.200", "a shared (carrier-grade NAT) address"],
    ["168.63.129.16", "a cloud metadata address"],
    ["224.0.0.1", "a multicast address"],
    ["::1", "a loopback address"],
    ["::", "an unspecified address"],
    ["fd00:ec2::254", "a private (unique local) address"],
    ["fe80::1", "a link-local address"],
    ["::ffff:127.0.0.1", "a loopback address"],
    ["::ffff:a9fe:a9fe", "a link-local (cloud metadata) address"],
    ["0:0:0:0:0:ffff:7f00:1", "a loopback address"],
    ["64:ff9b::10.0.0.1", "a private address"],
    ["2002:c0a8:0101::1", "a private address"],
    // Other spellings of the same bytes: the check reads the parsed address, not the text.
    ["0::ffff:127.0.0.1", "a loopback address"],
    ["0:0:0:0:0:ffff:127.0.0.1", "a loopback address"],
    ["0000:0000:0000:0000:0000:ffff:7f00:0001", "a loopback address"],
    ["::FFFF:7F00:1", "a loopback address"],
    ["0:0:0:0:0:0:0:1", "a loopback address"],
    ["0000::0001", "a loopback address"],
    ["::ffff:0:127.0.0.1", "a loopback address"],
    ["::127.0.0.1", "an IPv4-compatible address"],
    ["::7f00:1", "an IPv4-compatible address"],
    ["64:ff9b::127.0.0.1", "a loopback address"],
    ["64:ff9b:0:0:0:0:a9fe:a9fe", "a link-local (cloud metadata) address"],
    ["64:ff9b:1::a00:1", "a local-use NAT64 address"],
    ["2002:7f00:1::1", "a loopback address"],
    // Teredo: the client's IPv4 is stored inverted in the last 32 bits (here 127.0.0.1).
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", "a loopback address"],
    ["fe80::1%eth0", "not an IP address without a zone id"],
    ["255.255.255.255", "a broadcast address"],
    ["fec0::1", "a reserved address"],
  ])("refuses %s as %s", (address, label) => {
    expect(deniedAddress(address)).toBe(label);
  });

  it.each([
    "93.184.215.14",
    "140.82.112.3",
    "2606:4700::6810:84e5",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
    "2002:808:808::1",
    "2606:4700:0000:0000:0000:0000:6810:84e5",
  ])("allows the public address %s", (address) => {
    expect(deniedAddress(address)).toBeUndefined();
  });
});
