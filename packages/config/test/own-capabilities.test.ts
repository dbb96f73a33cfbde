// Third-party-ness comes from where a capability comes from, never from its name: a built-in
// launched as shipped is Palisade's own; a configured server under a built-in's id is not.
import { describe, expect, it } from "vitest";
import { builtinCapabilities, mergeCapabilities, ownCapabilityIds } from "@palisade/config";
import type { CapabilityEntry } from "@palisade/config";

describe("ownCapabilityIds", () => {
  it("built-ins as shipped are own; one replaced by a command, an address or an MCP server is not", async () => {
    const builtins = await builtinCapabilities("/tmp/pal-own-ws", () => undefined);
    expect(builtins.map((b) => b.id)).toEqual(expect.arrayContaining(["files", "shell", "http"]));
    const user = [
      { id: "files", command: ["node", "/opt/other/files-server.js"] },
      { id: "http", address: "127.0.0.1:7000", insecure: true },
      { id: "mail", mcp: { command: ["node", "/opt/mail-mcp.js"] } },
      { id: "shell", config: { timeout_s: 30 } },
      { id: "web", command: ["node", "/opt/web.js"] },
    ] as unknown as CapabilityEntry[];
    const own = ownCapabilityIds(builtins, mergeCapabilities(builtins, user));
    expect([...own].sort()).toEqual(["documents", "shell"]);
    expect([...ownCapabilityIds(builtins, mergeCapabilities(builtins, []))].sort()).toEqual(
      builtins.map((b) => b.id).sort(),
    );
  });
});
