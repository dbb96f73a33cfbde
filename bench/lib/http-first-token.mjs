// The floor of `palisade run "hi"`: the least a Node program does to stream one answer — node:http
// POSTs the same chat completion straight to the model and prints the SSE deltas as they arrive.
// argv: baseURL model prompt
import { request } from "node:http";

const [baseURL, model, prompt] = process.argv.slice(2);
const body = JSON.stringify({ model, stream: true, messages: [{ role: "user", content: prompt }] });
const req = request(
  `${baseURL}/chat/completions`,
  { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer bench" } },
  (res) => {
    let buf = "";
    res.setEncoding("utf8");
    res.on("data", (chunk) => {
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
        const text = JSON.parse(line.slice(6)).choices?.[0]?.delta?.content;
        if (text) process.stdout.write(text);
      }
    });
    res.on("end", () => process.stdout.write("\n"));
  },
);
req.end(body);
