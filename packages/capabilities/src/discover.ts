// Tools announced by a capability's discovery tool (manifests with `tool_source: dynamic`).
import { RpcError } from "@palisade/protocol";
import type { CapabilityClient } from "./artifacts/transfer.js";
import { parseDiscoveredTools } from "./catalog.js";
import { CapabilityError } from "./errors.js";
import type { Manifest } from "./manifest/types.js";

const DISCOVERY_ATTEMPTS = 2;

/** Calls the discovery tool; two attempts, then a `discovery` error. */
export async function discoverTools(
  client: CapabilityClient,
  manifest: Manifest,
  timeoutMs: number,
): Promise<ReturnType<typeof parseDiscoveredTools>> {
  const source = `discovery tool ${manifest.discoveryToolName} of capability ${manifest.id}`;
  let lastError: unknown;
  for (let attempt = 1; attempt <= DISCOVERY_ATTEMPTS; attempt++) {
    try {
      const res = await client.invoke(
        {
          toolName: manifest.discoveryToolName,
          argsJson: new TextEncoder().encode("{}"),
          configJson: new TextEncoder().encode("{}"),
          capabilityId: manifest.id,
        },
        { timeoutMs },
      );
      if (res.error) throw new CapabilityError("discovery", `${source} failed: ${res.error}`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(new TextDecoder().decode(res.resultJson));
      } catch {
        throw new CapabilityError("discovery", `${source} must return a JSON array of tools, got non-JSON text`);
      }
      return parseDiscoveredTools(parsed, source);
    } catch (err) {
      lastError =
        err instanceof CapabilityError
          ? err
          : new CapabilityError("discovery", `${source} failed: ${RpcError.from(err).message}`, { cause: err });
    }
  }
  throw lastError;
}
