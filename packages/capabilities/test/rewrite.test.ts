import { describe, expect, it } from "vitest";
import { findInputAttachments, findOutputArtifacts, rewriteInput, rewriteOutput } from "@palisade/capabilities";
import type { ArtifactRef } from "@palisade/capabilities";

const ref = (id: string, filename = "report.pdf"): ArtifactRef => ({
  artifactId: id,
  filename,
  mimeType: "application/pdf",
  sizeBytes: 245678,
});
const meta = (id: string, filename = "report.pdf") => ({
  artifact_id: id,
  filename,
  mime_type: "application/pdf",
  size_bytes: 245678,
});

describe("output artifact rewriting", () => {
  const cases: [string, unknown, string[], Map<string, ArtifactRef>, unknown][] = [
    [
      "Selu convention: top-level artifact_id",
      { ok: true, artifact_id: "abc123", filename: "report.pdf" },
      ["abc123"],
      new Map([["abc123", ref("art_1")]]),
      { ok: true, artifact: meta("art_1") },
    ],
    [
      "deployed: artifact.capability_artifact_id",
      {
        ok: true,
        artifact: {
          capability_artifact_id: "c1",
          filename: "report.pdf",
          mime_type: "application/pdf",
          size_bytes: 10,
        },
      },
      ["c1"],
      new Map([["c1", ref("art_2")]]),
      { ok: true, artifact: meta("art_2") },
    ],
    [
      "deployed: artifacts[] with capability_artifact_id, extra keys kept",
      {
        artifacts: [
          { capability_artifact_id: "c1", filename: "a.pdf", page: 1 },
          { capability_artifact_id: "c2", filename: "b.pdf" },
        ],
      },
      ["c1", "c2"],
      new Map([
        ["c1", ref("art_a", "a.pdf")],
        ["c2", ref("art_b", "b.pdf")],
      ]),
      { artifacts: [{ ...meta("art_a", "a.pdf"), page: 1 }, meta("art_b", "b.pdf")] },
    ],
    [
      "SDK fragments in artifacts[] ({artifact:{...}}) and nested results",
      { result: { artifacts: [{ artifact: { capability_artifact_id: "c1" } }] } },
      ["c1"],
      new Map([["c1", ref("art_n")]]),
      { result: { artifacts: [{ artifact: meta("art_n") }] } },
    ],
    ["no artifacts: unchanged", { ok: true, text: "hi" }, [], new Map(), { ok: true, text: "hi" }],
    [
      "an artifact object already rewritten is left alone",
      { artifact: { artifact_id: "art_x", filename: "f" } },
      [],
      new Map(),
      { artifact: { artifact_id: "art_x", filename: "f" } },
    ],
  ];
  it.each(cases)("%s", (_name, result, ids, stored, expected) => {
    expect(findOutputArtifacts(result).map((s) => s.capabilityArtifactId)).toEqual(ids);
    expect(rewriteOutput(result, stored)).toEqual(expected);
  });

  it("collects filename and mime type hints from the result", () => {
    expect(findOutputArtifacts({ artifact_id: "a", filename: "x.csv", mime_type: "text/csv" })).toEqual([
      { capabilityArtifactId: "a", filename: "x.csv", mimeType: "text/csv" },
    ]);
  });

  it("does not mutate its input", () => {
    const input = { ok: true, artifact_id: "abc" };
    rewriteOutput(input, new Map([["abc", ref("art_1")]]));
    expect(input).toEqual({ ok: true, artifact_id: "abc" });
  });
});

describe("input artifact rewriting", () => {
  it("finds attachments by artifact_id and by capability_artifact_id", () => {
    const args = {
      to: "a@b.c",
      attachments: [{ artifact_id: "art_1" }, { capability_artifact_id: "art_2" }, { name: "x" }, "junk"],
    };
    expect(findInputAttachments(args)).toEqual([
      { index: 0, artifactId: "art_1", via: "artifact_id" },
      { index: 1, artifactId: "art_2", via: "capability_artifact_id" },
    ]);
    expect(findInputAttachments({ attachments: "no" })).toEqual([]);
    expect(findInputAttachments(null)).toEqual([]);
  });

  it("rewrites to the capability's id plus metadata (the Selu shape)", () => {
    const args = {
      to: "alice@example.com",
      subject: "Report",
      attachments: [{ artifact_id: "art_1", inline: true }, { capability_artifact_id: "theirs" }],
    };
    const out = rewriteInput(
      args,
      new Map([
        [
          0,
          { capabilityArtifactId: "cap-xyz", filename: "report.pdf", mimeType: "application/pdf", sizeBytes: 245678 },
        ],
      ]),
    );
    expect(out).toEqual({
      to: "alice@example.com",
      subject: "Report",
      attachments: [
        {
          capability_artifact_id: "cap-xyz",
          filename: "report.pdf",
          mime_type: "application/pdf",
          size_bytes: 245678,
          inline: true,
        },
        { capability_artifact_id: "theirs" },
      ],
    });
  });
});
