import { afterAll, beforeAll, expect, it } from "vitest";
import { createDocumentsCapability } from "@palisade/capability-documents";
import { createMailCapability } from "@palisade/capability-mail";
import { serveForTest as start } from "@palisade/capability-sdk/testing";
import type { Harness } from "@palisade/capability-sdk/testing";
import { startSmtp } from "./smtp.js";

// The chain, with both capabilities as real gRPC servers and the artifact moved between
// them the way the Engine does it: DownloadOutputArtifact from documents, UploadInputArtifact to
// mail, the attachment argument rewritten to the mail capability's own id.
let documents: Harness;
let mail: Harness;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

beforeAll(async () => {
  [documents, mail, smtp] = await Promise.all([
    start(createDocumentsCapability()),
    start(createMailCapability()),
    startSmtp(),
  ]);
});
afterAll(async () => {
  await Promise.all([documents.stop(), mail.stop(), smtp.close()]);
});

it("documents__create_pdf → artifact → mail__send_email delivers the same PDF as an attachment", async () => {
  const made = await documents.invoke("create_pdf", {
    title: "Marine Biology",
    sections: [{ heading: "Summary", content: "Whales sing.\n\n- krill\n- plankton" }],
    filename: "marine_biology.pdf",
  });
  expect(made.error).toBe("");
  const artifact = (
    made.result as {
      artifact: { capability_artifact_id: string; filename: string; mime_type: string; size_bytes: number };
    }
  ).artifact;

  const chunks: Uint8Array[] = [];
  let filename = "";
  let mimeType = "";
  for await (const chunk of documents.client.downloadOutputArtifact({
    capabilityArtifactId: artifact.capability_artifact_id,
  })) {
    expect(chunk.error).toBe("");
    chunks.push(chunk.data);
    filename ||= chunk.filename;
    mimeType ||= chunk.mimeType;
  }
  const pdf = Buffer.concat(chunks);
  expect(pdf.length).toBe(artifact.size_bytes);

  const uploaded = await mail.client.uploadInputArtifact([{ filename, mimeType, data: pdf }]);
  expect(uploaded.error).toBe("");
  expect(Number(uploaded.sizeBytes)).toBe(pdf.length);

  const sent = await mail.invoke(
    "send_email",
    {
      to: "alice@example.com",
      subject: "Marine Biology",
      body: "The report is attached.",
      attachments: [
        {
          capability_artifact_id: uploaded.capabilityArtifactId,
          filename,
          mime_type: mimeType,
          size_bytes: pdf.length,
        },
      ],
    },
    { SMTP_HOST: "127.0.0.1", SMTP_PORT: String(smtp.port), SMTP_FROM: "bot@palisade.test" },
  );
  expect(sent.error).toBe("");

  expect(smtp.received).toHaveLength(1);
  const message = smtp.received[0]?.mail;
  expect(message?.subject).toBe("Marine Biology");
  expect(message?.attachments).toHaveLength(1);
  const attachment = message?.attachments[0];
  expect(attachment?.filename).toBe("marine_biology.pdf");
  expect(attachment?.contentType).toBe("application/pdf");
  expect(attachment?.content.subarray(0, 5).toString()).toBe("%PDF-");
  expect(attachment?.size).toBe(artifact.size_bytes);
  expect(Buffer.compare(attachment?.content ?? Buffer.alloc(0), pdf)).toBe(0);
});
