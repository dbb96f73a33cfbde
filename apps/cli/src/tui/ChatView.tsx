import { Box, Static, Text } from "ink";
import type { ChatState, Entry } from "./state/types.js";
import { EntryView } from "./components/EntryView.js";
import { ApprovalDialog } from "./components/ApprovalDialog.js";
import { ElicitationForm } from "./components/ElicitationForm.js";
import { InputBox } from "./components/InputBox.js";
import { StatusLine } from "./components/StatusLine.js";
import { Banner } from "./components/Banner.js";
import { EngineNotice } from "./components/EngineNotice.js";
import { SessionsBrowser } from "./overlays/SessionsBrowser.js";
import { TranscriptView } from "./overlays/TranscriptView.js";
import { SearchResults } from "./overlays/SearchResults.js";
import { AgentsPanel, HelpPanel, Inspector, StatusPanel, SubAgentStrip, ToolsPanel } from "./overlays/InfoPanels.js";

type StaticItem = Entry | { kind: "header"; id: string };

function Header({ state }: { state: ChatState }) {
  return (
    <Box flexDirection="column" paddingX={1}>
      <Text>
        <Text bold color="cyan">
          Palisade
        </Text>
        <Text dimColor>{" · the agent proposes, the Engine decides · /help for commands"}</Text>
      </Text>
      {state.demo ? (
        <Text color="magenta">
          Offline demo: the model is scripted (packages/testing); the Engine, Shield and tools are real.
        </Text>
      ) : null}
    </Box>
  );
}

function OverlayView({ state }: { state: ChatState }) {
  const o = state.overlay;
  const width = state.columns;
  const height = Math.max(8, state.rows - 4);
  if (!o) return null;
  switch (o.kind) {
    case "sessions":
      return <SessionsBrowser o={o} now={state.now} width={width} height={height} />;
    case "transcript":
      return <TranscriptView o={o} columns={width} rows={state.rows} />;
    case "search":
      return <SearchResults o={o} now={state.now} width={width} height={height} />;
    case "help":
      return <HelpPanel width={width} />;
    case "status":
      return <StatusPanel o={o} width={width} />;
    case "tools":
      return (
        <ToolsPanel o={o} width={width} height={height - state.unavailable.length} unavailable={state.unavailable} />
      );
    case "agents":
      return <AgentsPanel state={state} o={o} width={width} height={height} />;
    case "inspector":
      return <Inspector state={state} o={o} width={width} height={height} />;
    case "confirm":
      return (
        <Box borderStyle="round" borderColor="yellow" paddingX={1} width={width}>
          <Text>{o.question}</Text>
        </Box>
      );
  }
}

/** The whole chat screen as a function of the state (no I/O): easy to test and to benchmark. */
export function ChatView({ state }: { state: ChatState }) {
  const items: StaticItem[] = [{ kind: "header", id: "header" }, ...state.committed];
  const approval = state.approvals[0];
  const fullScreen = state.overlay && state.overlay.kind !== "confirm";
  return (
    <>
      <Static key={state.epoch} items={items}>
        {(item) =>
          item.kind === "header" ? (
            <Header key={`h${state.epoch}`} state={state} />
          ) : (
            <EntryView key={item.id} entry={item} width={state.columns} />
          )
        }
      </Static>
      <Box flexDirection="column" width={state.columns}>
        {!fullScreen ? state.live.map((e) => <EntryView key={e.id} entry={e} width={state.columns} />) : null}
        {!fullScreen ? <SubAgentStrip state={state} /> : null}
        <OverlayView state={state} />
        {approval?.form && !state.overlay ? (
          <ElicitationForm
            approval={approval}
            form={approval.form}
            queued={state.approvals.length - 1}
            now={state.now}
            width={Math.min(state.columns, 110)}
          />
        ) : approval && !state.overlay ? (
          <ApprovalDialog
            approval={approval}
            denyReason={state.denyReason}
            queued={state.approvals.length - 1}
            now={state.now}
            width={Math.min(state.columns, 110)}
          />
        ) : null}
        {state.engineNotice && !fullScreen ? <EngineNotice lines={state.engineNotice} width={state.columns} /> : null}
        {state.banner ? <Banner banner={state.banner} width={state.columns} /> : null}
        {!fullScreen ? (
          <InputBox editor={state.editor} active={!approval && !state.overlay} width={state.columns} />
        ) : null}
        <StatusLine state={state} />
      </Box>
    </>
  );
}
