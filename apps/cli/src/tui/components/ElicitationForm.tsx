import { Box, Text } from "ink";
import type { FormField } from "@palisade/capabilities/elicitation-form";
import { FORM_BUTTONS, fieldValue, shownError } from "../state/form.js";
import type { FormState } from "../state/form.js";
import type { PendingApproval } from "../state/types.js";
import { shown, shownLine } from "../../format/terminal-text.js";

export interface ElicitationFormProps {
  approval: PendingApproval;
  form: FormState;
  queued: number;
  now: number;
  width: number;
}

const LABEL = 26;
const BUTTON_LABEL: Record<(typeof FORM_BUTTONS)[number], string> = {
  accept: "Accept",
  decline: "Decline",
  cancel: "Cancel",
};

function pad(text: string, n: number): string {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text.padEnd(n);
}

/** What a field holds now, as one row's value column. */
function valueText(form: FormState, f: FormField, focused: boolean): string {
  if (f.kind === "string" || f.kind === "number" || f.kind === "integer") {
    const text = form.texts[f.name] ?? "";
    return focused ? `${text}▌` : text || "·";
  }
  const { value } = fieldValue(form, f);
  if (f.kind === "boolean") return value === undefined ? "( ) not set" : value ? "(x) yes" : "( ) no";
  const opts = f.options ?? [];
  if (f.kind === "enum") {
    const label = opts.find((o) => o.value === value)?.label ?? "not chosen";
    return focused ? `‹ ${label} ›` : label;
  }
  const picked = Array.isArray(value) ? value : [];
  return opts
    .map((o, i) => {
      const box = `[${picked.includes(o.value) ? "x" : " "}] ${o.label}`;
      return focused && i === form.cursor ? `›${box}` : ` ${box}`;
    })
    .join(" ");
}

/**
 * An MCP server's question (elicitation, form mode): its message and its fields' titles are the
 * server's words, shown as such with every control character made visible; each field of the
 * requested schema is a row (required ones marked `*`, defaults filled in), checked against the
 * schema; Accept sends the values, Decline says no, Cancel dismisses.
 */
export function ElicitationForm({ approval, form, queued, now, width }: ElicitationFormProps) {
  const left = approval.deadlineMs ? Math.max(0, Math.ceil((approval.deadlineMs - now) / 1000)) : undefined;
  const descWidth = Math.max(0, width - LABEL - 40);
  const buttonAt = form.focus - form.fields.length;
  return (
    <Box flexDirection="column" borderStyle="double" borderColor="cyan" paddingX={1} width={width}>
      <Box>
        <Text bold color="cyan" wrap="truncate-end">
          {`MCP server ${shownLine(form.capabilityId)} asks you`}
        </Text>
        <Box flexGrow={1} />
        {left !== undefined ? (
          <Text color={left <= 30 ? "red" : "cyan"}>{`declined automatically in ${left}s`}</Text>
        ) : null}
      </Box>
      <Text dimColor wrap="truncate-end">
        {`during ${approval.toolName}${approval.subAgent ? ` (sub-agent ${approval.subAgent})` : ""}, in its own words, not checked by Palisade:`}
      </Text>
      <Box paddingLeft={2}>
        <Text wrap="wrap">{shown(form.message) || "(no message)"}</Text>
      </Box>
      {form.problem ? (
        <Text
          color="red"
          wrap="wrap"
        >{`This form cannot be filled here: ${shownLine(form.problem)}. Decline or cancel.`}</Text>
      ) : null}
      {form.fields.map((f, i) => {
        const focused = form.focus === i;
        const error = shownError(form, f);
        const label = `${shownLine(f.title)}${f.required ? " *" : ""}`;
        return (
          <Box key={f.name} flexDirection="column">
            <Text wrap="truncate-end">
              <Text color={focused ? "cyan" : undefined} bold={focused}>
                {`${focused ? "›" : " "} ${pad(label, LABEL)} `}
              </Text>
              <Text inverse={focused && f.kind !== "multi"}>{valueText(form, f, focused)}</Text>
              {f.description && descWidth > 8 ? (
                <Text dimColor>{`  ${pad(shownLine(f.description), descWidth)}`}</Text>
              ) : null}
            </Text>
            {error ? <Text color="red">{`    ${shownLine(f.title)} ${error}`}</Text> : null}
          </Box>
        );
      })}
      <Box marginTop={1}>
        {FORM_BUTTONS.map((b, i) => (
          <Text key={b} inverse={buttonAt === i} bold={buttonAt === i} color={b === "accept" ? "green" : "red"}>
            {` ${BUTTON_LABEL[b]} `}
          </Text>
        ))}
        {queued > 0 ? <Text dimColor>{`   ${queued} more waiting`}</Text> : null}
      </Box>
      <Text dimColor wrap="truncate-end">
        ↑↓/Tab move · type to fill · Space or ←→ choose · Enter next field or press · Esc cancel · * required
      </Text>
    </Box>
  );
}
