// An MCP server's elicitation form in the chat: the fields of its requested schema, what the user
// has entered, which row has the focus, and the keys that fill it. Pure: the reducer keeps the
// form on the pending approval and sends the answer as the approval's.
import { fieldError, formFields, readText } from "@palisade/capabilities/elicitation-form";
import type { FormField, FormValue } from "@palisade/capabilities/elicitation-form";
import type { Key } from "./key.js";

export const FORM_BUTTONS = ["accept", "decline", "cancel"] as const;
export type FormButton = (typeof FORM_BUTTONS)[number];

export interface FormState {
  capabilityId: string;
  /** The server's words (control characters already made visible). */
  message: string;
  fields: FormField[];
  /** Why the form cannot be shown (a field of a type a form cannot take): only decline and cancel remain. */
  problem?: string | undefined;
  /** The text typed into each string, number and integer field. */
  texts: Record<string, string>;
  /** The value of each boolean and choice field (undefined: not chosen). */
  choices: Record<string, FormValue | undefined>;
  /** Rows 0..fields.length-1 are the fields, then the three buttons. */
  focus: number;
  /** The highlighted option of a multiple-choice field. */
  cursor: number;
  /** Set once the user tried to accept: every field's problem is shown, not only the edited ones'. */
  submitted: boolean;
  edited: string[];
}

export type FormAnswer = { action: "accept"; content: Record<string, FormValue> } | { action: "decline" | "cancel" };

const isText = (f: FormField): boolean => f.kind === "string" || f.kind === "number" || f.kind === "integer";

/** The form for an elicitation: each field at its default. */
export function newForm(capabilityId: string, message: string, schemaJson: string): FormState {
  let schema: unknown;
  try {
    schema = JSON.parse(schemaJson);
  } catch {
    schema = undefined;
  }
  const { fields, problem } = formFields(schema);
  const texts: Record<string, string> = {};
  const choices: Record<string, FormValue | undefined> = {};
  for (const f of fields) {
    if (isText(f)) texts[f.name] = f.default === undefined ? "" : String(f.default);
    else choices[f.name] = f.default;
  }
  return {
    capabilityId,
    message,
    fields: problem ? [] : fields,
    problem,
    texts,
    choices,
    // Without a form the focus starts on Decline.
    focus: problem ? 1 : 0,
    cursor: 0,
    submitted: false,
    edited: [],
  };
}

/** A field's value now, or why the text typed into it is not one. */
export function fieldValue(form: FormState, f: FormField): { value?: FormValue; error?: string } {
  if (!isText(f)) {
    const v = form.choices[f.name];
    return v === undefined ? {} : { value: v };
  }
  return readText(f, form.texts[f.name] ?? "");
}

/** What is wrong with a field, shown once it was edited or an accept was tried. */
export function shownError(form: FormState, f: FormField): string | undefined {
  if (!form.submitted && !form.edited.includes(f.name)) return undefined;
  const { value, error } = fieldValue(form, f);
  return error ?? fieldError(f, value);
}

/** The answer's content, or undefined when a field's value does not fit the form. */
function content(form: FormState): Record<string, FormValue> | undefined {
  const out: Record<string, FormValue> = {};
  for (const f of form.fields) {
    const { value, error } = fieldValue(form, f);
    if (error !== undefined || fieldError(f, value) !== undefined) return undefined;
    if (value !== undefined) out[f.name] = value;
  }
  return out;
}

const touched = (form: FormState, name: string): string[] =>
  form.edited.includes(name) ? form.edited : [...form.edited, name];

function move(form: FormState, by: number): FormState {
  const rows = form.fields.length + FORM_BUTTONS.length;
  const first = form.problem ? form.fields.length + 1 : 0; // without a form, accept cannot be chosen
  const focus = Math.min(rows - 1, Math.max(first, form.focus + by));
  return { ...form, focus, cursor: 0 };
}

function press(form: FormState, button: FormButton): { form: FormState; answer?: FormAnswer } {
  if (button !== "accept") return { form, answer: { action: button } };
  const c = form.problem ? undefined : content(form);
  if (c) return { form, answer: { action: "accept", content: c } };
  // Not yet: show every problem, and go to the first field that has one.
  const submitted = { ...form, submitted: true };
  const bad = form.fields.findIndex((f) => shownError(submitted, f) !== undefined);
  return { form: bad >= 0 ? { ...submitted, focus: bad, cursor: 0 } : submitted };
}

/** One key on the form: edits it, or answers it (Enter on a button, Esc cancels). */
export function formKey(form: FormState, key: Key): { form: FormState; answer?: FormAnswer } {
  if (key.escape) return { form, answer: { action: "cancel" } };
  if (key.upArrow || (key.tab && key.shift)) return { form: move(form, -1) };
  if (key.downArrow || key.tab) return { form: move(form, 1) };
  const field = form.fields[form.focus];
  if (!field) {
    const b = form.focus - form.fields.length;
    if (key.leftArrow) return { form: move(form, -1) };
    if (key.rightArrow) return { form: move(form, b < FORM_BUTTONS.length - 1 ? 1 : 0) };
    if (key.return) return press(form, FORM_BUTTONS[b] ?? "cancel");
    return { form };
  }
  // Enter on a field goes to the next row (the last field's next row is Accept).
  if (key.return) return { form: move(form, 1) };
  if (isText(field)) {
    const text = form.texts[field.name] ?? "";
    let next: string | undefined;
    if (key.backspace || key.delete) next = text.slice(0, -1);
    else if (key.input && !key.ctrl && !key.meta) next = text + key.input.replace(/[\r\n]+/g, " ");
    if (next === undefined) return { form };
    return {
      form: { ...form, texts: { ...form.texts, [field.name]: next }, edited: touched(form, field.name) },
    };
  }
  const choose = (v: FormValue | undefined): { form: FormState } => ({
    form: { ...form, choices: { ...form.choices, [field.name]: v }, edited: touched(form, field.name) },
  });
  const current = form.choices[field.name];
  if (field.kind === "boolean") {
    if (key.input === "y") return choose(true);
    if (key.input === "n") return choose(false);
    if (key.input === " " || key.leftArrow || key.rightArrow) return choose(current !== true);
    return { form };
  }
  const opts = field.options ?? [];
  if (field.kind === "enum") {
    if (!(key.leftArrow || key.rightArrow || key.input === " ")) return { form };
    // Not required: "not chosen" is one of the positions.
    const values: (string | undefined)[] = [...(field.required ? [] : [undefined]), ...opts.map((o) => o.value)];
    const at = values.indexOf(current as string | undefined);
    const step = key.leftArrow ? -1 : 1;
    return choose(values[(at + step + values.length) % values.length]);
  }
  // Multiple choice: ←/→ move among the options, Space takes or drops the highlighted one.
  if (key.leftArrow) return { form: { ...form, cursor: Math.max(0, form.cursor - 1) } };
  if (key.rightArrow) return { form: { ...form, cursor: Math.min(opts.length - 1, form.cursor + 1) } };
  if (key.input === " ") {
    const v = opts[form.cursor]?.value;
    if (v === undefined) return { form };
    const list = Array.isArray(current) ? current : [];
    const picked = list.includes(v) ? list.filter((x) => x !== v) : [...list, v];
    // In the options' order, whatever order they were picked in.
    return choose(opts.map((o) => o.value).filter((x) => picked.includes(x)));
  }
  return { form };
}
