import { Box, Text } from "ink";
import type { PendingApproval } from "../state/types.js";
import { callArgs } from "../../format/call-text.js";
import { prettyJson } from "./format.js";
import { DiffView } from "./DiffView.js";

export interface ApprovalDialogProps {
  approval: PendingApproval;
  /** The reason being typed for a deny (`r`), if any. */
  denyReason?: string | undefined;
  /** How many more are waiting after this one. */
  queued: number;
  now: number;
  width: number;
}

/** What will run (a file write: its diff), why the Shield asked, a countdown, and the keys with what `a` covers. */
export function ApprovalDialog({ approval, denyReason, queued, now, width }: ApprovalDialogProps) {
  const left = approval.deadlineMs ? Math.max(0, Math.ceil((approval.deadlineMs - now) / 1000)) : undefined;
  // A file write shows what it changes; its long content only as a count. Every argument is
  // shown whole, wrapped at the dialog's width, never cut.
  // No line limit either: what is not shown is not approved knowingly.
  const args = approval.preview
    ? [callArgs(approval.argumentsJson, 120)]
    : prettyJson(approval.argumentsJson).split("\n");
  return (
    <Box flexDirection="column" borderStyle="double" borderColor="yellow" paddingX={1} width={width}>
      <Box>
        <Text bold color="yellow">
          Approval needed
        </Text>
        {approval.subAgent ? <Text color="magenta">{` · sub-agent ${approval.subAgent}`}</Text> : null}
        <Box flexGrow={1} />
        {left !== undefined ? (
          <Text color={left <= 30 ? "red" : "yellow"}>{`denied automatically in ${left}s`}</Text>
        ) : null}
      </Box>
      <Text>
        <Text dimColor>tool </Text>
        <Text bold>{approval.toolName}</Text>
      </Text>
      {args.map((l, i) => (
        <Text key={i} wrap="wrap">{`  ${l}`}</Text>
      ))}
      {approval.preview ? (
        <Box paddingLeft={2}>
          <DiffView text={approval.preview} maxLines={16} />
        </Box>
      ) : null}
      <Text>
        <Text dimColor>why </Text>
        {approval.reason || "the policy asks for a human decision"}
        <Text
          dimColor
        >{` (tier ${approval.tier}${approval.ruleIds.length ? `, ${approval.ruleIds.join(", ")}` : ""})`}</Text>
      </Text>
      {denyReason !== undefined ? (
        <Text>
          <Text bold color="red">
            why deny?{" "}
          </Text>
          {denyReason}
          <Text inverse> </Text>
          <Text dimColor>{"  Enter deny (the model is told why) · Esc back"}</Text>
        </Text>
      ) : (
        <Text>
          <Text bold color="green">
            y
          </Text>{" "}
          allow once ·{" "}
          <Text bold color="red">
            n
          </Text>{" "}
          deny ·{" "}
          <Text bold color="red">
            r
          </Text>{" "}
          deny with a reason
          {queued > 0 ? <Text dimColor>{` · ${queued} more waiting`}</Text> : null}
        </Text>
      )}
      <Text>
        <Text bold color="green">
          a
        </Text>
        {` allow for the rest of this session: ${approval.grantScope || `${approval.toolName} with exactly these arguments`}`}
      </Text>
    </Box>
  );
}
