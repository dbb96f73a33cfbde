// Speaks the first line of the D-Bus protocol: a NUL byte, then AUTH EXTERNAL with this process's
// uid in hex. A bus that accepts answers "OK <guid>". Input: {"socket"}.
const net = require("node:net");
const input = JSON.parse(process.argv[1]);
const done = (result) => {
  process.stdout.write(JSON.stringify(result));
  process.exit(0);
};
const uid = Buffer.from(String(process.getuid())).toString("hex");
const sock = net.connect(input.socket);
sock.on("error", (e) => done({ outcome: "connect-failed", code: e.code }));
sock.on("connect", () => sock.write(`\0AUTH EXTERNAL ${uid}\r\n`));
let text = "";
sock.on("data", (d) => {
  text += d.toString("latin1");
  if (text.includes("\r\n")) done({ outcome: text.startsWith("OK ") ? "accepted" : "refused", reply: text.trim() });
});
sock.on("close", () => done({ outcome: "closed", reply: text }));
setTimeout(() => done({ outcome: "timeout", reply: text }), 10_000);
