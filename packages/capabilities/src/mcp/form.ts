// The form of an MCP elicitation (form mode): the fields of its requested schema, what a person
// typed read as each field's type, and the checks of the answer against the schema. The chat
// builds its form from it and the Engine checks the answer with it again. No dependencies: the
// chat loads this alone.

export type FormValue = string | number | boolean | string[];

export interface FormOption {
  value: string;
  /** The server's label for it (its words), else the value. */
  label: string;
}

/** One field of the form. `title` and `description` are the server's words. */
export interface FormField {
  name: string;
  title: string;
  description: string;
  kind: "string" | "number" | "integer" | "boolean" | "enum" | "multi";
  required: boolean;
  default?: FormValue;
  /** enum and multi: the choices. */
  options?: FormOption[];
  minLength?: number;
  maxLength?: number;
  /** string: email, uri, date or date-time. */
  format?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

function options(values: unknown, labels?: unknown): FormOption[] | undefined {
  if (!Array.isArray(values) || !values.every((v) => typeof v === "string")) return undefined;
  const names = Array.isArray(labels) ? labels : [];
  return values.map((value: string, i) => ({ value, label: typeof names[i] === "string" ? names[i] : value }));
}

function constOptions(list: unknown): FormOption[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const out: FormOption[] = [];
  for (const o of list) {
    if (!isObj(o) || typeof o.const !== "string") return undefined;
    out.push({ value: o.const, label: typeof o.title === "string" ? o.title : o.const });
  }
  return out;
}

/**
 * The fields of a requested schema (a flat object of primitive fields), in the server's order,
 * or why the form cannot be shown (a field of a type a form cannot take).
 */
export function formFields(schema: unknown): { fields: FormField[]; problem?: string } {
  if (!isObj(schema)) return { fields: [], problem: "the requested schema is not an object" };
  const props = isObj(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : []);
  const fields: FormField[] = [];
  for (const [name, raw] of Object.entries(props)) {
    if (!isObj(raw)) return { fields, problem: `field ${JSON.stringify(name)} has no schema` };
    const base = {
      name,
      title: str(raw.title) || name,
      description: str(raw.description),
      required: required.has(name),
    };
    let field: FormField | undefined;
    if (raw.type === "string") {
      const choices = options(raw.enum, raw.enumNames) ?? constOptions(raw.oneOf);
      field = choices
        ? { ...base, kind: "enum", options: choices }
        : {
            ...base,
            kind: "string",
            ...(num(raw.minLength) !== undefined ? { minLength: num(raw.minLength) } : {}),
            ...(num(raw.maxLength) !== undefined ? { maxLength: num(raw.maxLength) } : {}),
            ...(typeof raw.format === "string" ? { format: raw.format } : {}),
          };
    } else if (raw.type === "number" || raw.type === "integer") {
      field = {
        ...base,
        kind: raw.type,
        ...(num(raw.minimum) !== undefined ? { minimum: num(raw.minimum) } : {}),
        ...(num(raw.maximum) !== undefined ? { maximum: num(raw.maximum) } : {}),
      };
    } else if (raw.type === "boolean") {
      field = { ...base, kind: "boolean" };
    } else if (raw.type === "array" && isObj(raw.items)) {
      const choices = options(raw.items.enum) ?? constOptions(raw.items.anyOf);
      if (choices)
        field = {
          ...base,
          kind: "multi",
          options: choices,
          ...(num(raw.minItems) !== undefined ? { minItems: num(raw.minItems) } : {}),
          ...(num(raw.maxItems) !== undefined ? { maxItems: num(raw.maxItems) } : {}),
        };
    }
    if (!field)
      return {
        fields,
        problem: `field ${JSON.stringify(name)} is not a string, number, integer, boolean or choice: a form cannot take it`,
      };
    if (raw.default !== undefined && fieldError(field, raw.default as FormValue) === undefined)
      field.default = raw.default as FormValue;
    fields.push(field);
  }
  return { fields };
}

/** A text field's typed text as its value: undefined for empty text, else the string or the number it reads as. */
export function readText(field: FormField, text: string): { value?: FormValue; error?: string } {
  if (text === "") return {};
  if (field.kind === "string") return { value: text };
  const n = Number(text.trim());
  if (text.trim() === "" || !Number.isFinite(n)) return { error: "must be a number" };
  return { value: n };
}

const FORMATS: Record<string, (s: string) => boolean> = {
  email: (s) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s),
  uri: (s) => URL.canParse(s) && /^[a-z][a-z0-9+.-]*:/i.test(s),
  date: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)),
  "date-time": (s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(s) && !Number.isNaN(Date.parse(s)),
};
const FORMAT_HINT: Record<string, string> = {
  email: "an email address",
  uri: "a URL such as https://example.com",
  date: "a date as YYYY-MM-DD",
  "date-time": "a date and time as YYYY-MM-DDTHH:MM",
};

/** What is wrong with one field's value (undefined: nothing), in words for the person filling it. */
export function fieldError(field: FormField, value: FormValue | undefined): string | undefined {
  if (value === undefined || (Array.isArray(value) && value.length === 0 && field.kind === "multi" && !field.required))
    return field.required ? "is required" : undefined;
  switch (field.kind) {
    case "string": {
      if (typeof value !== "string") return "must be text";
      if (field.minLength !== undefined && value.length < field.minLength)
        return `must be at least ${field.minLength} characters`;
      if (field.maxLength !== undefined && value.length > field.maxLength)
        return `must be at most ${field.maxLength} characters`;
      const check = field.format ? FORMATS[field.format] : undefined;
      if (check && !check(value)) return `must be ${FORMAT_HINT[field.format ?? ""] ?? field.format}`;
      return undefined;
    }
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value)) return "must be a number";
      if (field.kind === "integer" && !Number.isInteger(value)) return "must be a whole number";
      if (field.minimum !== undefined && value < field.minimum) return `must be at least ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `must be at most ${field.maximum}`;
      return undefined;
    }
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be yes or no";
    case "enum":
      return typeof value === "string" && field.options?.some((o) => o.value === value)
        ? undefined
        : "must be one of the choices";
    case "multi": {
      if (!Array.isArray(value) || !value.every((v) => field.options?.some((o) => o.value === v)))
        return "must be some of the choices";
      if (new Set(value).size !== value.length) return "names a choice twice";
      if (field.required && value.length === 0) return "is required: choose at least one";
      if (field.minItems !== undefined && value.length < field.minItems) return `choose at least ${field.minItems}`;
      if (field.maxItems !== undefined && value.length > field.maxItems) return `choose at most ${field.maxItems}`;
      return undefined;
    }
  }
}

/**
 * Checks an answer against the form: every field's value, the required ones present, no field
 * the form does not have. Returns the problems by field name (empty: the answer fits).
 */
export function formErrors(fields: FormField[], content: Record<string, unknown>): Record<string, string> {
  const errors: Record<string, string> = {};
  const known = new Set(fields.map((f) => f.name));
  for (const name of Object.keys(content)) if (!known.has(name)) errors[name] = "is not a field of this form";
  for (const f of fields) {
    const e = fieldError(f, content[f.name] as FormValue | undefined);
    if (e) errors[f.name] = e;
  }
  return errors;
}

/** The values a form starts with: each field's default (fields without one are left out). */
export function formDefaults(fields: FormField[]): Record<string, FormValue> {
  return Object.fromEntries(fields.filter((f) => f.default !== undefined).map((f) => [f.name, f.default as FormValue]));
}
