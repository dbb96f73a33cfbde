import type { Detector } from "./types.js";
import { cmdText, commandViews, findCommand, firstView, isCodeInterpreter, isShell } from "./util.js";

const DEV_TCP = /\/dev\/(tcp|udp)\/[^\s/]+\/\d+/i;
const SOCKET =
  /\b(socket\.socket|socket\(|fsockopen|TCPSocket|IO::Socket|use Socket|net\.(connect|Socket|createConnection)|new Socket\(|System\.Net\.Sockets|TCPClient)/i;
const NETCATS = new Set(["nc", "ncat", "netcat", "telnet", "socat", "openssl", "cryptcat", "pwncat"]);

export const revshell: Detector[] = [
  {
    id: "revshell.dev-tcp",
    category: "reverse-shell",
    severity: "block",
    description: "Bash /dev/tcp and /dev/udp sockets",
    when: { text: DEV_TCP },
    detect(s) {
      const v = firstView(s.views, DEV_TCP);
      return v !== undefined ? { reason: `socket through ${v.match}` } : undefined;
    },
  },
  {
    id: "revshell.netcat",
    category: "reverse-shell",
    severity: "block",
    description: "netcat/telnet/openssl wired to a shell (-e, pipes, fifos)",
    when: { commands: [...NETCATS, "mkfifo", "mknod"] },
    detect(s) {
      const c = findCommand(s, (c) => {
        if (!NETCATS.has(c.name) || (c.name === "openssl" && c.args[0] !== "s_client")) return false;
        if (c.args.some((a) => /^(-e|-c|--exec|--sh-exec|--lua-exec)$/.test(a) || /^-[a-z]*e$/.test(a))) return true;
        if (c.name === "socat") return c.args.some((a) => /^(exec|system):|pty/i.test(a));
        return c.pipeline.some((o) => o !== c && (isShell(o.name) || isCodeInterpreter(o.name)));
      });
      if (c !== undefined) return { reason: `network socket attached to a shell: ${cmdText(c)}` };
      const fifo = findCommand(s, (c) => c.name === "mkfifo" || (c.name === "mknod" && c.args.includes("p")));
      if (fifo !== undefined && s.commands.some((c) => NETCATS.has(c.name)))
        return { reason: "named pipe combined with netcat (classic reverse shell)" };
      return undefined;
    },
  },
  {
    id: "revshell.scripted",
    category: "reverse-shell",
    severity: "block",
    description: "Interpreter one-liners that connect a socket to a shell",
    when: { text: SOCKET },
    detect(s) {
      const cmdViews = commandViews(s);
      const views = cmdViews.length > 0 ? cmdViews : s.kind === "file-write" ? s.views : [];
      for (const v of views) {
        if (
          SOCKET.test(v.text) &&
          /(dup2|pty\.spawn|subprocess|\/bin\/(ba|z)?sh\b|cmd\.exe|child_process|proc_open|popen|\bexec\s*\(|spawn\(|\bsystem\s*\(|GetStream\(\))/i.test(
            v.text,
          )
        ) {
          return {
            reason: `socket connected to a shell in ${v.key}`,
            severity: cmdViews.length > 0 ? "block" : "escalate",
          };
        }
      }
      return undefined;
    },
  },
  {
    id: "revshell.tunnel",
    category: "reverse-shell",
    severity: "escalate",
    description: "Tunnels that expose this machine (ssh -R/-D, ngrok, cloudflared, chisel, frp)",
    when: {
      commands: ["ssh", "ngrok", "cloudflared", "chisel", "frpc", "lt", "localtunnel", "bore", "sshuttle", "inlets"],
    },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          (c.name === "ssh" && c.args.some((a) => /^-[a-zA-Z]*[RD]/.test(a))) ||
          /^(ngrok|cloudflared|chisel|frpc|lt|localtunnel|bore|sshuttle|inlets)$/.test(c.name),
      );
      return c !== undefined ? { reason: `tunnel to the outside: ${cmdText(c)}` } : undefined;
    },
  },
];
