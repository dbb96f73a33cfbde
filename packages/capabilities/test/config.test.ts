import { describe, expect, it } from "vitest";
import {
  launchCommand,
  ValidationError,
  dockerRunArgs,
  scrubbedEnv,
  validateCapabilityConfigs,
  validateManifest,
} from "@palisade/capabilities";
import type { CapabilityConfig } from "@palisade/capabilities";

function problems(value: unknown): string[] {
  try {
    validateCapabilityConfigs(value, { file: "/etc/palisade/config.yaml" });
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toContain("/etc/palisade/config.yaml");
    return (err as ValidationError).problems.map((p) => `${p.path}: ${p.message}`);
  }
}

describe("capability config validation", () => {
  it("accepts the documented shape and resolves relative paths", () => {
    const out = validateCapabilityConfigs(
      [
        {
          id: "files",
          manifest: "caps/files/manifest.yaml",
          command: ["node", "dist/main.js"],
          cwd: "caps/files",
          timeoutMs: 5000,
          perToolTimeoutMs: { read: 1000 },
        },
        {
          id: "remote",
          manifest: "/m.yaml",
          address: "10.0.0.2:50051",
          config: { region: "eu" },
          credentials: { KEY: "v" },
        },
        { id: "selu", manifest: "/s.yaml", image: "ghcr.io/selu-bot/cap:1", enabled: false },
      ],
      { baseDir: "/home/me" },
    ) as CapabilityConfig[];
    expect(out[0]?.manifest).toBe("/home/me/caps/files/manifest.yaml");
    expect(out[0]?.cwd).toBe("/home/me/caps/files");
    // with cwd: its relative paths are the process's, relative to cwd
    expect(out[0]?.command).toEqual([process.execPath, "dist/main.js"]);
    expect(out[1]?.manifest).toBe("/m.yaml");
  });

  it.each([
    [{ manifest: "m" }, "capabilities[0].id: is required"],
    [{ id: "Bad", manifest: "m" }, "capabilities[0].id: must be lowercase"],
    [{ id: "a" }, "capabilities[0].manifest: is required"],
    [{ id: "a", manifest: "m", command: [] }, "capabilities[0].command: must list at least one item, got a list"],
    [{ id: "a", manifest: "m", command: "node x.js" }, 'capabilities[0].command: must be a list, got "node x.js"'],
    [{ id: "a", manifest: "m", address: "localhost" }, "capabilities[0].address: must be host:port"],
    [
      { id: "a", manifest: "m", command: ["x"], address: "h:1" },
      "capabilities[0]: set only one of command, address, image",
    ],
    [{ id: "a", manifest: "m", timeoutMs: 0 }, "capabilities[0].timeoutMs: must be an integer >= 1, got number 0"],
    [
      { id: "a", manifest: "m", perToolTimeoutMs: { t: "slow" } },
      'capabilities[0].perToolTimeoutMs.t: must be an integer >= 1, got "slow"',
    ],
    [{ id: "a", manifest: "m", env: { A: 1 } }, "capabilities[0].env.A: must be a string, got number 1"],
    [{ id: "a", manifest: "m", cwd: "/x", address: "h:1" }, "capabilities[0].cwd: is only used with command"],
    [
      { id: "a", manifest: "m", comand: ["x"] },
      "capabilities[0].comand: unknown key; allowed here: id, manifest, command, protocol, cwd, env, address, tls, insecure, image, workspace, enabled, timeoutMs, perToolTimeoutMs, config, credentials, maxRestarts, sandbox, networkMode, allowHosts, mcp, network, filesystem, semantics; did you mean command?",
    ],
  ])("%j → %s", (item, expected) => {
    expect(problems([item]).join("\n")).toContain(expected);
  });

  it("duplicate ids and non-lists", () => {
    expect(
      problems([
        { id: "a", manifest: "m" },
        { id: "a", manifest: "n" },
      ]),
    ).toEqual(['capabilities[1].id: duplicate capability id "a" (also capabilities[0])']);
    expect(problems({ id: "a" })).toEqual(["capabilities: must be a list of capabilities"]);
  });
});

describe("launch helpers", () => {
  const manifest = validateManifest(
    {
      id: "web",
      image: "img:1",
      tools: [{ name: "t", description: "d", input_schema: { type: "object" } }],
      resources: { max_memory_mb: 256, max_cpu_fraction: 0.8, pids_limit: 32 },
    },
    "m.yaml",
  );

  it("docker run: limits, read-only, dropped capabilities, internal network for mode none", () => {
    const args = dockerRunArgs({ image: "img:1", containerName: "palisade-web-1", manifest, hostPort: 40001 });
    const joined = args.join(" ");
    expect(args[0]).toBe("run");
    expect(joined).toContain(
      "--memory 256m --memory-swap 256m --cpus 0.8 --pids-limit 32 --read-only --cap-drop ALL --security-opt no-new-privileges",
    );
    expect(joined).toContain("--env PORT=50051");
    expect(joined).toContain("--network palisade-none");
    expect(joined).not.toContain("--publish");
    expect(args.at(-1)).toBe("img:1");
  });

  it("docker run: publishes on 127.0.0.1 for allowlist/any; temp and workspace mounts", () => {
    const any = { ...manifest, network: { mode: "any" as const, hosts: [] }, filesystem: "temp" as const };
    const joined = dockerRunArgs({ image: "img:1", containerName: "c", manifest: any, hostPort: 40001 }).join(" ");
    expect(joined).toContain("--publish 127.0.0.1:40001:50051");
    expect(joined).toContain("--tmpfs /tmp:rw,noexec,nosuid,size=64m");
    expect(joined).not.toContain("--network");
    const ws = dockerRunArgs({
      image: "i",
      containerName: "c",
      manifest: { ...manifest, filesystem: "workspace" },
      hostPort: 1,
      workspaceDir: "/w",
    }).join(" ");
    expect(ws).toContain("--volume /w:/workspace:rw --workdir /workspace");
    expect(() =>
      dockerRunArgs({
        image: "i",
        containerName: "c",
        manifest: { ...manifest, filesystem: "workspace" },
        hostPort: 1,
      }),
    ).toThrow(/workspace directory/);
  });

  it("the process environment is scrubbed", () => {
    const env = scrubbedEnv(
      { PATH: "/bin", OPENAI_API_KEY: "sk-x", HOME: "/root", AWS_SECRET_ACCESS_KEY: "x" },
      { MODE: "test" },
      4242,
    );
    expect(env).toEqual({ PATH: "/bin", HOME: "/root", MODE: "test", PORT: "4242" });
  });
});

describe("a launch command's paths and node", () => {
  it("resolves relative paths against the config's directory; node is this process's Node", () => {
    expect(launchCommand(["node", "caps/notes/dist/main.js", "--port", "0"], "/cfg")).toEqual([
      process.execPath,
      "/cfg/caps/notes/dist/main.js",
      "--port",
      "0",
    ]);
    expect(launchCommand(["./bin/run", "../data/x.db", "plain"], "/cfg/sub")).toEqual([
      "/cfg/sub/bin/run",
      "/cfg/data/x.db",
      "plain",
    ]);
  });

  it("leaves absolute paths, options, URLs and shell snippets alone", () => {
    const command = ["sh", "-c", "cd work && ./run.sh", "--dir=a/b", "http://example.com/x", "/abs/path"];
    expect(launchCommand(command, "/cfg")).toEqual(command);
  });

  it("without a base directory (cwd: given) only node changes", () => {
    expect(launchCommand(["node", "dist/main.js"])).toEqual([process.execPath, "dist/main.js"]);
  });
});
