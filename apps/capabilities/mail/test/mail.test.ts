import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMailCapability, manifestPath } from "@palisade/capability-mail";
import { manifestTools, serveForTest as start } from "@palisade/capability-sdk/testing";
import type { Harness } from "@palisade/capability-sdk/testing";
import { startSmtp } from "./smtp.js";

let h: Harness;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const config = () => ({
  SMTP_HOST: "127.0.0.1",
  SMTP_PORT: String(smtp.port),
  SMTP_FROM: "Palisade <bot@palisade.test>",
});

beforeAll(async () => {
  h = await start(createMailCapability());
  smtp = await startSmtp();
});
afterAll(async () => {
  await h.stop();
  await smtp.close();
});

describe("send_email", () => {
  it("delivers a plain-text message to every recipient", async () => {
    const { result, error } = await h.invoke(
      "send_email",
      {
        to: ["alice@example.com", "bob@example.com"],
        cc: "carol@example.com",
        subject: "Hello",
        body: "Line one\nLine two",
      },
      config(),
    );
    expect(error).toBe("");
    expect(result).toMatchObject({
      ok: true,
      accepted: ["alice@example.com", "bob@example.com", "carol@example.com"],
      rejected: [],
    });
    const got = smtp.received.at(-1);
    expect(got?.from).toBe("bot@palisade.test");
    expect(got?.recipients).toEqual(["alice@example.com", "bob@example.com", "carol@example.com"]);
    expect(got?.mail.subject).toBe("Hello");
    expect(got?.mail.text?.trim()).toBe("Line one\nLine two");
    expect(got?.mail.messageId).toBe(result.message_id);
  });

  it("attaches uploaded artifacts as MIME parts", async () => {
    const data = new Uint8Array([0, 1, 2, 3, 250, 251, 252, 253]);
    const up = await h.client.uploadInputArtifact([
      { filename: "data.bin", mimeType: "application/octet-stream", data },
    ]);
    const { result, error } = await h.invoke(
      "send_email",
      {
        to: "alice@example.com",
        subject: "Data",
        body: "see attached",
        attachments: [{ capability_artifact_id: up.capabilityArtifactId, filename: "data.bin" }],
      },
      config(),
    );
    expect(error).toBe("");
    expect(result.attachments).toEqual([{ filename: "data.bin", size_bytes: 8 }]);
    const [att] = smtp.received.at(-1)?.mail.attachments ?? [];
    expect(att?.filename).toBe("data.bin");
    expect(att?.contentType).toBe("application/octet-stream");
    expect(Buffer.from(att?.content ?? []).equals(Buffer.from(data))).toBe(true);
  });

  it("is not configured without SMTP_HOST and SMTP_FROM", async () => {
    const { error } = await h.invoke("send_email", { to: "a@example.com", subject: "x", body: "y" }, {});
    expect(error).toBe(
      "mail is not configured: missing SMTP_HOST, SMTP_FROM; set the system credentials SMTP_HOST, SMTP_PORT, SMTP_USER, SMTP_PASSWORD and SMTP_FROM",
    );
    expect(
      (
        await h.invoke(
          "send_email",
          { to: "a@example.com", subject: "x", body: "y" },
          { ...config(), SMTP_PORT: "smtp" },
        )
      ).error,
    ).toMatch(/SMTP_PORT "smtp" is not a port number/);
  });

  it("refuses bad addresses, multi-line subjects and unknown artifacts before connecting", async () => {
    const before = smtp.received.length;
    const send = (args: Record<string, unknown>) =>
      h.invoke("send_email", { to: "a@example.com", subject: "s", body: "b", ...args }, config());
    expect((await send({ to: "not-an-address" })).error).toMatch(/invalid to address: "not-an-address"/);
    expect((await send({ cc: ["ok@example.com", "x@y"] })).error).toMatch(/invalid cc address: "x@y"/);
    expect((await send({ subject: "hi\r\nBcc: victim@example.com" })).error).toMatch(/subject must be one line/);
    expect((await send({ attachments: [{ artifact_id: "missing" }] })).error).toMatch(
      /artifact missing is not available/,
    );
    expect(smtp.received.length).toBe(before);
  });

  it("authenticates with SMTP_USER/SMTP_PASSWORD and reports a refusal", async () => {
    const authed = await startSmtp({ user: "bot", password: "s3cret" });
    try {
      const base = { SMTP_HOST: "127.0.0.1", SMTP_PORT: authed.port, SMTP_USER: "bot", SMTP_FROM: "bot@palisade.test" };
      expect(
        (
          await h.invoke(
            "send_email",
            { to: "a@example.com", subject: "s", body: "b" },
            { ...base, SMTP_PASSWORD: "s3cret" },
          )
        ).error,
      ).toBe("");
      expect(authed.received).toHaveLength(1);
      const wrong = await h.invoke(
        "send_email",
        { to: "a@example.com", subject: "s", body: "b" },
        { ...base, SMTP_PASSWORD: "nope" },
      );
      expect(wrong.error).toMatch(
        /^sending the email through 127\.0\.0\.1:\d+ failed: .*(Invalid login|invalid credentials)/i,
      );
    } finally {
      await authed.close();
    }
  });

  it("reports an unreachable server", async () => {
    const down = await startSmtp();
    const port = down.port;
    await down.close();
    const { error } = await h.invoke(
      "send_email",
      { to: "a@example.com", subject: "s", body: "b" },
      { SMTP_HOST: "127.0.0.1", SMTP_PORT: port, SMTP_FROM: "bot@palisade.test" },
    );
    expect(error).toMatch(/^sending the email through 127\.0\.0\.1:\d+ failed: .*ECONNREFUSED/);
  });
});

describe("manifest.yaml", () => {
  it("declares the tool (asked) and the five SMTP system credentials", async () => {
    const { manifest, tools } = await manifestTools(manifestPath);
    expect(manifest.id).toBe("mail");
    const cap = createMailCapability();
    expect(tools).toEqual(
      cap.tools.map((t) => ({
        name: t.name,
        description: t.description,
        input_schema: t.inputSchema,
        recommended_policy: "ask",
        semantics: {
          kind: "mail",
          recipients: ["to", "cc"],
          content: ["subject", "body", "attachments"],
          model_facing: ["subject", "body"],
        },
      })),
    );
    const creds = manifest.credentials as { name: string; scope: string }[];
    expect(creds.map((c) => [c.name, c.scope])).toEqual(
      ["SMTP_HOST", "SMTP_PORT", "SMTP_USER", "SMTP_PASSWORD", "SMTP_FROM"].map((n) => [n, "system"]),
    );
  });
});
