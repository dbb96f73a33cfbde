// The gateway's reading of a request body: strict JSON outside strings, where strings end, and
// top-level keys that no parser can read differently; checked against JSON.parse.
import { describe, expect, it } from "vitest";
import { BodyError, readTopLevel, topLevelFields } from "../src/gateway/body.js";
import type { TopLevel } from "../src/gateway/body.js";

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

describe("readTopLevel after a body of the same conversation", () => {
  const WANTED = ["model", "stream", "tools"];
  const system = { role: "system", content: 'You are "helpful". \\ ' + "long ".repeat(30) };
  const body = (messages: unknown[], extra: Record<string, unknown> = {}) =>
    Buffer.from(JSON.stringify({ model: "m-1", messages, tools: [{ type: "function" }], stream: true, ...extra }));
  const conversation = (n: number) => [
    system,
    ...Array.from({ length: n }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${String(i)}` })),
  ];

  it("gives what reading the whole body gives, and where its messages end", () => {
    let prior = readTopLevel(body(conversation(1)), WANTED).prefix;
    for (let n = 2; n < 12; n++) {
      const b = body(conversation(n));
      const whole = readTopLevel(b, WANTED);
      const resumed = readTopLevel(b, WANTED, prior);
      expect(resumed.values).toEqual(whole.values);
      expect([...resumed.keys]).toEqual([...whole.keys]);
      const end = b.indexOf('],"tools"');
      expect(resumed.prefix?.length).toBe(end);
      expect(whole.prefix?.length).toBe(end);
      prior = resumed.prefix;
    }
  });

  it("reads only what follows the prior body's messages when the bytes up to them are equal", () => {
    const prior = readTopLevel(body(conversation(3)), WANTED).prefix;
    expect(prior).toBeDefined();
    // A prior that did not really hold these bytes shows what is read: its bytes are taken as read.
    const b = body(conversation(4));
    const unread = Buffer.from(b);
    const forged = { ...prior!, body: unread, values: new Map([["model", "from the prefix"]]) };
    expect(readTopLevel(b, WANTED, forged).values.get("model")).toBe("from the prefix");
    expect(readTopLevel(b, WANTED, prior).values.get("model")).toBe("m-1");
  });

  it("reads a body whole when any byte of the prior's part differs, or other keys are asked for", () => {
    const prior = readTopLevel(body(conversation(3)), WANTED).prefix!;
    const changed = body([
      { ...system, content: system.content.replace("helpful", "HELPFUL") },
      ...conversation(4).slice(1),
    ]);
    expect(readTopLevel(changed, WANTED, prior).values.get("model")).toBe("m-1");
    const other = body(conversation(4), { model: "m-2" });
    expect(readTopLevel(other, WANTED, prior).values.get("model")).toBe("m-2");
    const forged = { ...prior, values: new Map([["model", "from the prefix"]]) };
    expect(readTopLevel(body(conversation(4)), ["model"], forged).values.get("model")).toBe("m-1");
  });

  it("still refuses what follows: bad JSON, a key again, bytes after the object", () => {
    const first = body(conversation(3));
    const prior = readTopLevel(first, WANTED).prefix!;
    const head = first.subarray(0, prior.length).toString();
    for (const [tail, why] of [
      [',{"role":"user",}],"stream":true}', /expected a key/],
      [",]}", /not a JSON value/],
      ['],"stream":true}x', /unexpected bytes after the object/],
      [',{"role":"user"}', /unexpected end of the body/],
    ] as const) {
      const b = Buffer.from(head + tail);
      expect(() => JSON.parse(b.toString()), tail).toThrow();
      expect(() => readTopLevel(b, WANTED, prior), tail).toThrow(why);
    }
    // JSON.parse keeps the last of two equal keys, other parsers the first: refused after a prefix too
    expect(() => readTopLevel(Buffer.from(`${head},{"role":"user"}],"model":"m-2"}`), WANTED, prior)).toThrow(
      /the key "model" appears twice/,
    );
  });

  it("takes an object, array or string after the messages as read when its bytes are the prior's", () => {
    const prior = readTopLevel(body(conversation(3), { n: 1, extra: "same" }), [...WANTED, "n", "extra"]).prefix!;
    const forged = {
      ...prior,
      after: new Map([...prior.after].map(([k, v]) => [k, { ...v, value: `known ${k}` }])),
    };
    const next = readTopLevel(body(conversation(4), { n: 12, extra: "same" }), [...WANTED, "n", "extra"], forged);
    expect(next.values.get("tools")).toBe("known tools");
    expect(next.values.get("extra")).toBe("known extra");
    expect(next.values.get("n")).toBe(12); // a number could go on past the prior's bytes: read again
    const changed = readTopLevel(body(conversation(4), { n: 1, extra: "other" }), [...WANTED, "n", "extra"], forged);
    expect(changed.values.get("extra")).toBe("other");
    expect(changed.values.get("tools")).toBe("known tools");
  });

  it("agrees with reading the whole body on every body made by changing structural bytes after the prefix", () => {
    const wanted = ["model", "stream", "tools", "n"];
    const extra = { n: [1, 2.5, -3e2, true, null], stream_options: { include_usage: true } };
    const prior = readTopLevel(body(conversation(2), extra), wanted).prefix!;
    const base = body(conversation(3), extra).toString();
    const bytes = '{}[],: 0-.e1tfn"';
    let seed = 11;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const outcome = (f: () => TopLevel) => {
      try {
        const top = f();
        return { keys: [...top.keys], values: [...top.values], length: top.prefix?.length };
      } catch (err) {
        return { error: (err as Error).message };
      }
    };
    let refused = 0;
    for (let k = 0; k < 3000; k++) {
      let text = base;
      for (let m = 1 + rnd(3); m > 0; m--) {
        const at = prior.length + rnd(text.length - prior.length);
        text =
          rnd(2) === 0
            ? text.slice(0, at) + text.slice(at + 1)
            : text.slice(0, at) + bytes[rnd(bytes.length)]! + text.slice(at);
      }
      const b = Buffer.from(text);
      const whole = outcome(() => readTopLevel(b, wanted));
      expect(
        outcome(() => readTopLevel(b, wanted, prior)),
        text,
      ).toEqual(whole);
      if ("error" in whole) refused++;
    }
    expect(refused).toBeGreaterThan(1000);
  });
});
