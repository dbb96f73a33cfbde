import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { CapabilityHost } from "@palisade/capabilities";
import type { AnyCapabilityConfig, CapabilityHostOptions } from "@palisade/capabilities";

export function tempDir(prefix = "palisade-cap-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes `<dir>/<id>/manifest.yaml` (and prompt.md) and returns the manifest path. */
export function writeManifest(dir: string, manifest: Record<string, unknown>, prompt?: string): string {
  const capDir = join(dir, String(manifest.id));
  mkdirSync(capDir, { recursive: true });
  writeFileSync(join(capDir, "manifest.yaml"), stringify(manifest));
  if (prompt !== undefined) writeFileSync(join(capDir, "prompt.md"), prompt);
  return join(capDir, "manifest.yaml");
}

export const objectSchema = (
  props: Record<string, unknown> = {},
  required: string[] = [],
): Record<string, unknown> => ({ type: "object", properties: props, required });

export function tool(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, description: `${name} tool`, input_schema: objectSchema(), recommended_policy: "allow", ...extra };
}

/** A host over a fresh data dir with fast health timings; stopped by the returned function. */
export async function startHost(
  capabilities: AnyCapabilityConfig[],
  options: Partial<CapabilityHostOptions> = {},
): Promise<{ host: CapabilityHost; dataDir: string }> {
  const dataDir = options.dataDir ?? tempDir("palisade-host-");
  const host = new CapabilityHost({
    dataDir,
    capabilities,
    startupTimeoutMs: 3000,
    healthIntervalMs: 50,
    healthCallTimeoutMs: 500,
    log: () => undefined,
    ...options,
  });
  await host.start();
  return { host, dataDir };
}

export const owner = { sessionId: "s1", userId: "alice" };
