// The floor of `palisade run "hi"`: a bare Node script that makes the same streamed call with the
// openai SDK straight to the model and prints the answer as it streams. argv: baseURL model prompt
import OpenAI from "openai";

const [baseURL, model, prompt] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey: "bench", maxRetries: 0 });
const stream = await client.chat.completions.create({
  model,
  stream: true,
  messages: [{ role: "user", content: prompt }],
});
for await (const chunk of stream) {
  const text = chunk.choices[0]?.delta?.content;
  if (text) process.stdout.write(text);
}
process.stdout.write("\n");
