import { Box, Text } from "ink";

export interface NoModelScreenProps {
  configFile: string;
  /** Why the chat cannot talk to a model (no model configured, Engine unavailable, ...). */
  reason?: string | undefined;
  /** Whether the offline demo can be started from here. */
  demoAvailable: boolean;
}

const Heading = ({ children }: { children: string }) => (
  <Text bold color="cyan">
    {children}
  </Text>
);

/** The first screen when no model is configured: how to configure one, or try the demo. */
export function NoModelScreen({ configFile, reason, demoAvailable }: NoModelScreenProps) {
  return (
    <Box flexDirection="column" paddingX={1}>
      <Text bold>Palisade · no model configured</Text>
      {reason ? <Text color="yellow">{reason}</Text> : null}
      <Text> </Text>
      <Text>Palisade talks to any OpenAI-compatible Chat Completions endpoint. Pick one:</Text>
      <Text> </Text>
      <Heading>OpenAI</Heading>
      <Text>{"  export OPENAI_API_KEY=sk-..."}</Text>
      <Text>{"  export PALISADE_MODEL=gpt-4o-mini"}</Text>
      <Text> </Text>
      <Heading>Ollama (local, no key needed)</Heading>
      <Text>{"  ollama pull llama3.1"}</Text>
      <Text>{"  export OPENAI_BASE_URL=http://localhost:11434/v1"}</Text>
      <Text>{"  export PALISADE_MODEL=llama3.1"}</Text>
      <Text> </Text>
      <Heading>Any OpenAI-compatible server (vLLM, llama.cpp, LM Studio, OpenRouter)</Heading>
      <Text>{"  export OPENAI_BASE_URL=http://host:port/v1 OPENAI_API_KEY=... PALISADE_MODEL=name"}</Text>
      <Text> </Text>
      <Heading>Or in the config file</Heading>
      <Text dimColor>{`  ${configFile}`}</Text>
      {/* Indentation is YAML nesting: written as strings, which formatters leave alone. */}
      <Text>{"  model:"}</Text>
      <Text>{"    name: gpt-4o-mini"}</Text>
      <Text>{"    base_url: https://api.openai.com/v1  # or http://localhost:11434/v1 for Ollama"}</Text>
      <Text>{"    api_key: sk-...                      # or leave it to OPENAI_API_KEY"}</Text>
      <Text> </Text>
      <Text>Then run `palisade engine restart` (if one is running) and `palisade chat` again.</Text>
      <Text> </Text>
      {demoAvailable ? (
        <Text>
          <Text bold color="green">
            d
          </Text>{" "}
          start the offline demo (palisade chat --demo: a scripted model, real Engine, Shield and tools) ·{" "}
          <Text bold>q</Text> quit
        </Text>
      ) : (
        <Text>
          The offline demo (palisade chat --demo) needs the Engine, which is not available in this build ·{" "}
          <Text bold>q</Text> quit
        </Text>
      )}
    </Box>
  );
}
