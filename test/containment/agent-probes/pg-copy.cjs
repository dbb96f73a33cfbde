// A PostgreSQL wire client in plain Node (the Agent has no driver): start-up as `user`, then one
// simple query. Prints {"outcome": "...", ...} as JSON. Input: {"socket", "user", "query"}.
const net = require("node:net");
const input = JSON.parse(process.argv[1]);
const done = (result) => {
  process.stdout.write(JSON.stringify(result));
  process.exit(0);
};
const msg = (type, body) => {
  const head = Buffer.alloc(type ? 5 : 4);
  if (type) head.write(type, 0, "latin1");
  head.writeInt32BE(body.length + 4, type ? 1 : 0);
  return Buffer.concat([head, body]);
};
const cstr = (s) => Buffer.from(`${s}\0`, "utf8");
const sock = net.connect(input.socket);
sock.on("error", (e) => done({ outcome: "connect-failed", code: e.code }));
sock.on("connect", () => {
  const params = Buffer.concat([
    Buffer.from([0, 3, 0, 0]),
    cstr("user"),
    cstr(input.user),
    cstr("database"),
    cstr("postgres"),
    Buffer.from([0]),
  ]);
  sock.write(msg("", params));
});
let buf = Buffer.alloc(0);
let queried = false;
const errors = [];
sock.on("data", (d) => {
  buf = Buffer.concat([buf, d]);
  while (buf.length >= 5) {
    const type = String.fromCharCode(buf[0]);
    const len = buf.readInt32BE(1);
    if (buf.length < len + 1) return;
    const body = buf.subarray(5, len + 1);
    buf = buf.subarray(len + 1);
    if (type === "E") errors.push(body.toString("utf8").replace(/\0/g, " ").trim());
    if (type === "Z" && !queried) {
      queried = true;
      sock.write(msg("Q", cstr(input.query)));
    } else if (type === "Z") done({ outcome: errors.length ? "query-failed" : "query-ran", errors });
  }
});
sock.on("close", () => done({ outcome: "closed", errors }));
setTimeout(() => done({ outcome: "timeout", errors }), 10_000);
