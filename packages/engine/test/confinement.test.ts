import { create } from "@bufbuild/protobuf";
import { SandboxReportSchema } from "@palisade/protocol/pipeline";
import { describe, expect, it } from "vitest";
import { confinementOf, describeNetwork } from "../src/agent/confinement.js";
import type { ProcessFacts } from "../src/agent/verify.js";

const confined = create(SandboxReportSchema, { permissionModel: true, networkIsolated: true });
const facts = (own: string[]): ProcessFacts => ({
  hostPid: 42,
  uid: 1000,
  ownNamespaces: own,
  noNewPrivs: false,
  seccomp: 0,
});
const launch = {
  command: "/usr/bin/unshare",
  args: [
    "--user",
    "--map-root-user",
    "--net",
    "--",
    "/node",
    "--permission",
    "--allow-fs-read=/app/agent",
    "--allow-fs-read=/app/node_modules/openai",
    "/app/agent/dist/main.js",
  ],
  env: {},
};

describe("the Agent's confinement as status shows it", () => {
  it("network is 'none' only when the Agent saw no interface AND /proc shows a namespace of its own", () => {
    expect(describeNetwork(confined, facts(["net", "user"]))).toMatch(/^none \(/);
    // Its word alone is not enough:
    expect(describeNetwork(confined, facts(["user"]))).toBe("the Engine's network (no namespace of its own)");
    expect(describeNetwork(confined, undefined)).toMatch(
      /^no interface by the Agent's own report \(not checked from outside/,
    );
    const open = create(SandboxReportSchema, { permissionModel: true, networkIsolated: false });
    expect(describeNetwork(open, facts(["net"]))).not.toMatch(/^none/);
    expect(describeNetwork(undefined, facts([]))).toBe("the Engine's network (no namespace of its own)");
  });

  it("the filesystem view and permission model come from the flags the Engine launched it with", () => {
    const c = confinementOf(confined, facts(["net", "user"]), launch);
    expect(c).toMatchObject({
      permissionModel: true,
      fsRead: ["/app/agent", "/app/node_modules/openai"],
      fsWrite: [],
      process: "host pid 42, uid 1000, own net/user namespaces, no_new_privs off, seccomp 0",
    });
    // Launched without --permission, a report claiming it is not believed.
    expect(confinementOf(confined, undefined, { ...launch, args: ["/app/agent/dist/main.js"] }).permissionModel).toBe(
      false,
    );
    expect(
      confinementOf(confined, undefined, { ...launch, args: [...launch.args, "--allow-fs-write=/tmp"] }).fsWrite,
    ).toEqual(["/tmp"]);
  });
});
