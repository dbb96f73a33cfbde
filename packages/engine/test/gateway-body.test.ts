// The gateway's reading of a request body: strict JSON outside strings, where strings end, and
// top-level keys that no parser can read differently; checked against JSON.parse.
import { describe, expect, it } from "vitest";
import { BodyError, topLevelFields } from "../src/gateway/body.js";

const read = (text: string): Map<string, unknown> => topLevelFields(Buffer.from(text), ["model", "stream"]);

describe("topLevelFields", () => {
  it("returns the parsed values of the keys asked for, whatever surrounds them", () => {
    const body = {
      messages: [
        { role: "user", content: 'a "quoted" \\ back\\slash \n \u2603 ' + "long ".repeat(40) + '\\"' },
        { role: "tool", content: null, n: [1, -2.5e-3, 0, true, false, null, {}, []] },
      ],
      model: "m-1",
      tools: [
        {
          type: "function",
          function: { name: "x", parameters: { type: "object", properties: { model: { type: "string" } } } },
        },
      ],
      stream: true,
    };
    const found = read(JSON.stringify(body, null, 2));
    expect(found.get("model")).toBe("m-1");
    expect(found.get("stream")).toBe(true);
    expect(read('{"model":"a\\u002db"}').get("model")).toBe("a-b");
    expect(read("{}").size).toBe(0);
    expect(read(' \r\n\t{ "model" : { "x" : [ ] } } \n').get("model")).toEqual({ x: [] });
  });

  it("ends a string at the first quote not escaped by an odd run of backslashes, at any length", () => {
    for (const len of [0, 1, 60, 61, 62, 63, 64, 65, 66, 130]) {
      for (const tail of ["\\\\", '\\"', "\\\\\\\\", '\\\\\\"x']) {
        const content = "a".repeat(len) + tail;
        const text = `{"messages":["${content}"],"model":"m"}`;
        expect(() => JSON.parse(text)).not.toThrow();
        expect(read(text).get("model"), `${String(len)} ${tail}`).toBe("m");
      }
    }
    expect(() => read('{"messages":["' + "a".repeat(100) + '\\"],"model":"m"}')).toThrow(BodyError);
  });

  it("refuses a top-level key twice, however it is spelt, and keys that are not plain ASCII", () => {
    expect(() => read('{"model":"cheap","messages":[],"model":"expensive"}')).toThrow(/the key "model" appears twice/);
    expect(() => read('{"model":"cheap","mod\\u0065l":"expensive"}')).toThrow(/printable ASCII/);
    expect(() => read('{"model":"cheap","mod\u00e9l":"expensive"}')).toThrow(/printable ASCII/);
    expect(() =>
      topLevelFields(Buffer.from([...Buffer.from('{"mod'), 0xff, ...Buffer.from('el":"x"}')]), ["model"]),
    ).toThrow(/printable ASCII/);
    // Nested keys are the upstream's business: only the top level names the model.
    expect(read('{"model":"m","stream_options":{"model":"a","model":"b"}}').get("model")).toBe("m");
  });

  it("refuses what JSON.parse refuses outside strings", () => {
    for (const text of [
      "",
      " ",
      "{",
      '{"model"}',
      '{"model":}',
      '{"model":"m",}',
      '{"model":"m"}x',
      '{"model":"m"}{}',
      "{'model':'m'}",
      '{model:"m"}',
      '{"a":[1,]}',
      '{"a":[,1]}',
      '{"a":01}',
      '{"a":+1}',
      '{"a":1.}',
      '{"a":.5}',
      '{"a":NaN}',
      '{"a":Infinity}',
      '{"a":tru}',
      '{"a":nulls}',
      '{"a":1e}',
      '{"a":[}',
      '{"a":{]}',
      '{"a":{"b" 1}}',
      '{"a":"x}',
      "\uFEFF{}",
      '{"a":1 2}',
      '{"a":[1 2]}',
      '{"a":{"b":1 "c":2}}',
      '{"a":{,}}',
    ]) {
      expect(() => JSON.parse(text), text).toThrow();
      expect(() => read(text), text).toThrow(BodyError);
    }
    for (const text of ["[]", '"model"', "null", "1"]) expect(() => read(text), text).toThrow(/must be a JSON object/);
  });

  it("agrees with JSON.parse on every body made by inserting or deleting structural bytes", () => {
    const base = JSON.stringify({
      model: "m",
      messages: [
        { role: "user", content: "hi there" },
        { role: "assistant", tool_calls: [{ id: "c1", function: { name: "f", arguments: "{}" } }] },
      ],
      n: [1, 2.5, -3e2, true, null],
      stream: false,
    });
    // None of these bytes can end a string or escape within one, so inside a string they keep it valid.
    const bytes = "{}[],: 0-.e1tfn";
    let seed = 7;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    let refused = 0;
    for (let k = 0; k < 3000; k++) {
      let text = base;
      for (let m = 1 + rnd(3); m > 0; m--) {
        const at = rnd(text.length);
        text =
          rnd(2) === 0
            ? text.slice(0, at) + text.slice(at + 1)
            : text.slice(0, at) + bytes[rnd(bytes.length)]! + text.slice(at);
      }
      let parsed: unknown;
      let parseOk = true;
      try {
        parsed = JSON.parse(text);
      } catch {
        parseOk = false;
      }
      let found: Map<string, unknown> | undefined;
      let error: unknown;
      try {
        found = read(text);
      } catch (err) {
        error = err;
      }
      if (error !== undefined) {
        refused++;
        expect(error, text).toBeInstanceOf(BodyError);
        // The one refusal JSON.parse does not make: a top-level key twice.
        if (parseOk) expect((error as Error).message, text).toMatch(/appears twice|must be a JSON object/);
        if (parseOk && /must be a JSON object/.test((error as Error).message))
          expect(typeof parsed !== "object" || parsed === null || Array.isArray(parsed), text).toBe(true);
        continue;
      }
      expect(parseOk, text).toBe(true);
      const obj = parsed as Record<string, unknown>;
      expect(found?.get("model"), text).toEqual(obj.model);
      expect(found?.get("stream"), text).toEqual(obj.stream);
    }
    expect(refused).toBeGreaterThan(1000);
  });
});
