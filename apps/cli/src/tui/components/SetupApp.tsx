import { useApp, useInput } from "ink";
import { NoModelScreen } from "./NoModelScreen.js";

export type SetupChoice = "quit" | "demo";

export interface SetupAppProps {
  configFile: string;
  reason?: string | undefined;
  demoAvailable: boolean;
  onChoice: (choice: SetupChoice) => void;
}

/** The no-model screen as a whole app: `d` starts the demo, `q`/Esc/Ctrl+C quits. */
export function SetupApp({ configFile, reason, demoAvailable, onChoice }: SetupAppProps) {
  const { exit } = useApp();
  useInput((input, key) => {
    if (input === "q" || key.escape || (key.ctrl && input === "c")) {
      onChoice("quit");
      exit();
    } else if (input === "d" && demoAvailable) {
      onChoice("demo");
      exit();
    }
  });
  return <NoModelScreen configFile={configFile} reason={reason} demoAvailable={demoAvailable} />;
}
