import { describe, expect, it } from "vitest";
import { fieldError, formDefaults, formErrors, formFields, readText } from "@palisade/capabilities/elicitation-form";

// The fields of an MCP elicitation's requested schema (every primitive the specification
// allows), what typed text reads as, and the checks of an answer.

const SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", minLength: 2, maxLength: 5 },
    email: { type: "string", format: "email" },
    day: { type: "string", format: "date" },
    site: { type: "string", format: "uri" },
    n: { type: "integer", minimum: 1, maximum: 10, default: 3 },
    x: { type: "number", default: 3.5 },
    ok: { type: "boolean", default: "yes" },
    pet: { type: "string", enum: ["p1", "p2"], enumNames: ["Cats", "Dogs"], default: "p2" },
    hero: { type: "string", oneOf: [{ const: "h1", title: "Superman" }] },
    tools: { type: "array", minItems: 1, maxItems: 2, items: { type: "string", enum: ["a", "b", "c"] } },
    fish: { type: "array", items: { anyOf: [{ const: "f1", title: "Tuna" }] }, default: ["f1"] },
  },
  required: ["name", "tools"],
};

describe("an elicitation form", () => {
  const { fields, problem } = formFields(SCHEMA);
  const f = (name: string) => fields.find((x) => x.name === name) ?? fields[0]!;

  it("has every field in the server's order, its kind, choices with the server's labels, and only valid defaults", () => {
    expect(problem).toBeUndefined();
    expect(fields.map((x) => `${x.name}:${x.kind}${x.required ? "*" : ""}`)).toEqual([
      "name:string*",
      "email:string",
      "day:string",
      "site:string",
      "n:integer",
      "x:number",
      "ok:boolean",
      "pet:enum",
      "hero:enum",
      "tools:multi*",
      "fish:multi",
    ]);
    expect(f("pet").options).toEqual([
      { value: "p1", label: "Cats" },
      { value: "p2", label: "Dogs" },
    ]);
    expect(f("hero").options).toEqual([{ value: "h1", label: "Superman" }]);
    // "yes" is no boolean: not a default
    expect(formDefaults(fields)).toEqual({ n: 3, x: 3.5, pet: "p2", fish: ["f1"] });
  });

  it("reads typed text as its field's type", () => {
    expect(readText(f("n"), "7")).toEqual({ value: 7 });
    expect(readText(f("n"), "seven")).toEqual({ error: "must be a number" });
    expect(readText(f("name"), "")).toEqual({});
    expect(readText(f("name"), "42")).toEqual({ value: "42" });
  });

  it("checks each value against its field", () => {
    expect(fieldError(f("name"), undefined)).toBe("is required");
    expect(fieldError(f("name"), "A")).toBe("must be at least 2 characters");
    expect(fieldError(f("name"), "Adalovelace")).toBe("must be at most 5 characters");
    expect(fieldError(f("email"), "ada")).toBe("must be an email address");
    expect(fieldError(f("email"), "ada@example.com")).toBeUndefined();
    expect(fieldError(f("day"), "1815-12-10")).toBeUndefined();
    expect(fieldError(f("day"), "10/12/1815")).toBe("must be a date as YYYY-MM-DD");
    expect(fieldError(f("site"), "example.com")).toBe("must be a URL such as https://example.com");
    expect(fieldError(f("n"), 2.5)).toBe("must be a whole number");
    expect(fieldError(f("n"), 11)).toBe("must be at most 10");
    expect(fieldError(f("pet"), "p3")).toBe("must be one of the choices");
    expect(fieldError(f("tools"), [])).toBe("is required: choose at least one");
    expect(fieldError(f("tools"), ["a", "b", "c"])).toBe("choose at most 2");
    expect(fieldError(f("tools"), ["a", "z"])).toBe("must be some of the choices");
  });

  it("an answer: every problem by field, a field the form has not included", () => {
    expect(formErrors(fields, { name: "Ada", tools: ["a"] })).toEqual({});
    expect(formErrors(fields, { tools: ["a"], n: 0, extra: 1 })).toEqual({
      extra: "is not a field of this form",
      name: "is required",
      n: "must be at least 1",
    });
  });

  it("a field a form cannot take makes the form unusable, with which", () => {
    expect(formFields({ type: "object", properties: { where: { type: "object" } } }).problem).toBe(
      'field "where" is not a string, number, integer, boolean or choice: a form cannot take it',
    );
  });
});
