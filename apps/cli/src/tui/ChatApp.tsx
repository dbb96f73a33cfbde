import { useEffect, useSyncExternalStore } from "react";
import { useInput, useStdout } from "ink";
import type { ChatController } from "./controller.js";
import { ChatView } from "./ChatView.js";

/** Connects the controller to ink: keys in, state out, terminal size changes. */
export function ChatApp({ controller }: { controller: ChatController }) {
  const state = useSyncExternalStore(controller.subscribe, controller.getState);
  const { stdout } = useStdout();
  useInput((input, key) => controller.dispatch({ type: "key", key: { ...key, input } }));
  useEffect(() => {
    let timer: NodeJS.Timeout | undefined;
    const onResize = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => controller.dispatch({ type: "resize", columns: stdout.columns || 80, rows: stdout.rows || 24 }), 120);
    };
    stdout.on("resize", onResize);
    return () => {
      clearTimeout(timer);
      stdout.off("resize", onResize);
    };
  }, [controller, stdout]);
  return <ChatView state={state} />;
}
