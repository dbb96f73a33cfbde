import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  CapabilityError,
  effectiveNetwork,
  planSandbox,
  validateCapabilityConfigs,
  validateManifest,
} from "@palisade/capabilities";
import type { SandboxSettings } from "@palisade/capabilities";

const ws = mkdtempSync(join(tmpdir(), "pal-plan-"));
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const manifest = (extra: Record<string, unknown> = {}) =>
  validateManifest(
    {
      id: "shell",
      class: "environment",
      filesystem: "workspace",
      tools: [{ name: "t", description: "d", input_schema: { type: "object" } }],
      ...extra,
    },
    "m.yaml",
  );
const settings = (available: boolean, required = true): SandboxSettings => ({
  probe: available
    ? { available: true, bwrap: "/usr/bin/bwrap", version: "0.8.0" }
    : { available: false, reason: "no bwrap here" },
  required,
  hide: ["/srv/keys"],
  readOnly: [],
  writable: [],
  protect: ["/data"],
  allowAddresses: [],
  runBase: "/run/pal",
});

describe("planSandbox", () => {
  it("binds the workspace (real path), hides Palisade's directories and takes the manifest's limits", () => {
    const m = manifest({
      network: { mode: "allowlist", hosts: ["registry.npmjs.org"] },
      resources: { max_memory_mb: 512, pids_limit: 100, max_cpu_seconds: 60, max_file_size_mb: 10 },
    });
    const plan = planSandbox(m, { id: "shell", manifest: "m.yaml", command: ["x"] }, settings(true), ws);
    expect(plan?.spec).toMatchObject({
      filesystem: "workspace",
      network: "allowlist",
      hide: ["/srv/keys"],
      protect: ["/data", "/run/pal"],
    });
    expect(plan?.workspace).toBeDefined();
    expect(plan?.resources).toEqual({ memoryMb: 512, pids: 100, cpuSeconds: 60, fileSizeMb: 10 });
    expect(plan?.network.hosts).toEqual(["registry.npmjs.org"]);
  });

  it("is off with sandbox: false, or without settings", () => {
    expect(
      planSandbox(manifest(), { id: "shell", manifest: "m.yaml", command: ["x"], sandbox: false }, settings(true), ws),
    ).toBeUndefined();
    expect(planSandbox(manifest(), { id: "shell", manifest: "m.yaml", command: ["x"] }, undefined, ws)).toBeUndefined();
  });

  it("refuses a workspace capability when no sandbox can be made and one is required, with the reason and the way out", () => {
    const run = (): unknown =>
      planSandbox(manifest(), { id: "shell", manifest: "m.yaml", command: ["x"] }, settings(false), ws);
    expect(run).toThrow(CapabilityError);
    expect(run).toThrow(
      /must run in a sandbox, but none can be made here: no bwrap here\. .*sandbox: \{required: false\}/,
    );
    expect(
      planSandbox(manifest(), { id: "shell", manifest: "m.yaml", command: ["x"] }, settings(false, false), ws),
    ).toBeUndefined();
    // Capabilities that do not act in the workspace start without one.
    expect(
      planSandbox(
        manifest({ filesystem: "none", class: "tool" }),
        { id: "shell", manifest: "m.yaml", command: ["x"] },
        settings(false),
        undefined,
      ),
    ).toBeUndefined();
  });
});

describe("network in the capability config", () => {
  it("adds hosts to the manifest's allowlist, or changes the mode", () => {
    const m = manifest({ network: { mode: "allowlist", hosts: ["a.example"] } });
    expect(effectiveNetwork(m, { allowHosts: ["b.example:443"] })).toEqual({
      mode: "allowlist",
      hosts: ["a.example", "b.example:443"],
    });
    expect(effectiveNetwork(m, { networkMode: "none" })).toEqual({ mode: "none", hosts: [] });
  });

  it("validates the config's hosts and fields", () => {
    expect(() =>
      validateCapabilityConfigs([{ id: "shell", manifest: "m", allowHosts: ["https://x.example/"] }]),
    ).toThrow(/capabilities\[0\]\.allowHosts\[0\]: "https:\/\/x.example\/" must be a host/);
    expect(() => validateCapabilityConfigs([{ id: "shell", manifest: "m", networkMode: "some" }])).toThrow(
      /networkMode/,
    );
    expect(() => validateCapabilityConfigs([{ id: "shell", manifest: "m", sandbox: "yes" }])).toThrow(/sandbox/);
  });
});

describe("a manifest's sandbox: paths", () => {
  it("adds declared read-only, writable and socket paths to the view, ~/ as the home; a socket that is not there is left out", () => {
    const sock = mkdtempSync(join(tmpdir(), "pal-sock-"));
    try {
      const m = manifest({
        sandbox: {
          read_only: ["~/.rustup", "/opt/jdk"],
          writable: ["~/.cache/pip"],
          sockets: [sock, "/run/no-such-server"],
        },
      });
      const plan = planSandbox(
        m,
        { id: "shell", manifest: "m.yaml", command: ["x"] },
        { ...settings(true), readOnly: ["/srv/tool"] },
        ws,
      );
      const home = process.env.HOME ?? "";
      expect(plan?.spec.readOnly).toEqual(["/srv/tool", join(home, ".rustup"), "/opt/jdk"]);
      expect(plan?.spec.writable).toEqual([join(home, ".cache/pip")]);
      expect(plan?.spec.sockets).toEqual([sock]);
      expect(plan?.declared.sockets).toEqual([sock]);
    } finally {
      rmSync(sock, { recursive: true, force: true });
    }
  });

  it("declares no host socket and nothing of the home by default", () => {
    const plan = planSandbox(manifest(), { id: "shell", manifest: "m.yaml", command: ["x"] }, settings(true), ws);
    expect(plan?.spec.sockets).toBeUndefined();
    expect(plan?.declared).toEqual({ readOnly: [], writable: [], sockets: [] });
  });

  it("refuses a relative path, naming the field and the fix", () => {
    expect(() => manifest({ sandbox: { writable: ["cache"], sockets: ["run/pg"] } })).toThrow(
      /sandbox\.writable\[0\]: "cache" must be an absolute path or start with ~\/ \(the home\)/,
    );
    expect(() => manifest({ sandbox: { sockets: ["run/pg"] } })).toThrow(/sandbox\.sockets\[0\]/);
  });
});
