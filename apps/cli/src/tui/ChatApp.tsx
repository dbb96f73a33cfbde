import { useEffect, useState } from "react";
import { useInput, useStdout } from "ink";
import type { ChatController } from "./controller.js";
import type { ChatState } from "./state/types.js";
import { ChatView } from "./ChatView.js";

/**
 * The controller's state, re-rendered at most once per `minIntervalMs`. A streaming answer
 * changes the state once per token (1,000/s); rendering more often than ink can paint a frame
 * is wasted work, so updates are coalesced (the first one after a quiet period renders at once,
 * which keeps typing instant).
 */
function useCoalescedState(controller: ChatController, minIntervalMs: number): ChatState {
  const [state, setState] = useState(controller.getState);
  useEffect(() => {
    let timer: NodeJS.Timeout | undefined;
    let last = 0;
    const flush = (): void => {
      timer = undefined;
      last = performance.now();
      setState(controller.getState());
    };
    const unsubscribe = controller.subscribe(() => {
      if (timer) return;
      timer = setTimeout(flush, Math.max(0, minIntervalMs - (performance.now() - last)));
    });
    flush();
    return () => {
      unsubscribe();
      clearTimeout(timer);
    };
  }, [controller, minIntervalMs]);
  return state;
}

/** Connects the controller to ink: keys in, state out, terminal size changes. */
export function ChatApp({ controller, minFrameMs = 16 }: { controller: ChatController; minFrameMs?: number }) {
  const state = useCoalescedState(controller, minFrameMs);
  const { stdout } = useStdout();
  useInput((input, key) => controller.dispatch({ type: "key", key: { ...key, input } }));
  useEffect(() => {
    let timer: NodeJS.Timeout | undefined;
    const onResize = (): void => {
      clearTimeout(timer);
      timer = setTimeout(
        () => controller.dispatch({ type: "resize", columns: stdout.columns || 80, rows: stdout.rows || 24 }),
        120,
      );
    };
    stdout.on("resize", onResize);
    return () => {
      clearTimeout(timer);
      stdout.off("resize", onResize);
    };
  }, [controller, stdout]);
  return <ChatView state={state} />;
}
