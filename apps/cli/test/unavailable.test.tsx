import { create } from "@bufbuild/protobuf";
import { StatusResponseSchema } from "@palisade/protocol/pipeline";
import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
import { fresh, run } from "./state.js";
import { ToolsPanel } from "../src/tui/overlays/InfoPanels.js";

// What an Engine without bubblewrap reports (toolSandboxLine in @palisade/engine), and a
// capability whose launch failed.
const NO_BWRAP =
  "tool sandbox: UNAVAILABLE (bubblewrap (bwrap) is not installed: `apt-get install bubblewrap` (Debian, Ubuntu), `dnf install bubblewrap` (Fedora)); capabilities with filesystem: workspace (files, shell) will not start; set sandbox.required: false to run them unsandboxed";
const status = create(StatusResponseSchema, {
  model: "m",
  toolSandbox: NO_BWRAP,
  capabilities: [
    { id: "files", state: "failed", message: "files needs a sandbox and none can be made" },
    { id: "http", state: "ready", message: "" },
    { id: "mail", state: "not_configured", message: "disabled in config (enabled: false)" },
  ],
});

describe("tools the Engine cannot offer", () => {
  it("are named with the reason and the fix when the chat starts, once", () => {
    const first = run(fresh(), [{ type: "status", status, configPresent: true }]).state;
    const notices = first.committed.filter((e) => e.kind === "notice");
    expect(notices).toHaveLength(1);
    const text = notices[0] && "text" in notices[0] ? notices[0].text : "";
    expect(text).toContain("Some tools cannot be used now:");
    expect(text).toContain("bubblewrap (bwrap) is not installed: `apt-get install bubblewrap`");
    expect(text).toContain("capabilities with filesystem: workspace (files, shell) will not start");
    expect(text).toContain("capability files: failed (files needs a sandbox and none can be made)");
    expect(text).not.toContain("capability http");
    expect(text).not.toContain("capability mail");
    // the next heartbeat with the same status says nothing new
    const again = run(first, [{ type: "status", status, configPresent: true }]).state;
    expect(again.committed.filter((e) => e.kind === "notice")).toHaveLength(1);
  });

  it("an MCP server still starting is named as starting; a process starting for a call is not", () => {
    const starting = create(StatusResponseSchema, {
      toolSandbox: "tool sandbox: bubblewrap 0.8.0 (own user, pid and network namespaces)",
      capabilities: [
        { id: "slow", state: "starting", toolCount: 0, message: "starting: waiting for the server to answer" },
        { id: "files", state: "starting", toolCount: 6, message: "starting" },
      ],
    });
    const s = run(fresh(), [{ type: "status", status: starting, configPresent: true }]).state;
    expect(s.unavailable).toEqual(["capability slow: starting (starting: waiting for the server to answer)"]);
  });

  it("an Engine with everything available adds no notice", () => {
    const ok = create(StatusResponseSchema, {
      toolSandbox: "tool sandbox: bubblewrap 0.8.0 (own user, pid and network namespaces)",
      capabilities: [{ id: "files", state: "stopped" }],
    });
    expect(run(fresh(), [{ type: "status", status: ok, configPresent: true }]).state.committed).toEqual([]);
  });

  it("/tools lists them above the tools", () => {
    const s = run(fresh(), [{ type: "status", status, configPresent: true }]).state;
    const frame =
      render(
        <ToolsPanel
          o={{ kind: "tools", selected: 0, loading: false, tools: [] }}
          width={200}
          height={20}
          unavailable={s.unavailable}
        />,
      ).lastFrame() ?? "";
    expect(frame).toContain("unavailable: tool sandbox: UNAVAILABLE (bubblewrap (bwrap) is not installed");
    expect(frame).toContain("unavailable: capability files: failed (files needs a sandbox and none can be made)");
  });
});
