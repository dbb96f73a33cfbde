import { describe, expect, it } from "vitest";
import { MODEL_SERVER_LABEL } from "@palisade/agent";
import { modelServerNamed, publicUrl } from "../src/agent/model-label.js";

describe("the model server's name in what the user reads", () => {
  it("is the URL without userinfo and query", () => {
    expect(publicUrl("https://user:pw@example.com:8443/openai/v1/?api-key=k1&x=2")).toBe(
      "https://example.com:8443/openai/v1",
    );
    expect(publicUrl(undefined)).toBe("https://api.openai.com/v1");
    expect(publicUrl("not a url")).toBe("the configured model server (model.base_url)");
  });

  it("replaces the Agent's label, and only it", () => {
    const said = `the model server at ${MODEL_SERVER_LABEL} refused the credentials (HTTP 401); check model.base_url (OPENAI_BASE_URL)`;
    const shown = modelServerNamed(said, "http://u:secret@127.0.0.1:9/v1?key=q");
    expect(shown).toBe(
      "the model server at http://127.0.0.1:9/v1 refused the credentials (HTTP 401); check model.base_url (OPENAI_BASE_URL)",
    );
    expect(shown).not.toMatch(/secret|key=q|\bu:/);
    expect(modelServerNamed("no label here", "http://h/v1")).toBe("no label here");
  });
});
