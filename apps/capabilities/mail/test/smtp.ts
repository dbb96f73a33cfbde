import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import type { ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface Received {
  from: string;
  recipients: string[];
  mail: ParsedMail;
}

/** A local SMTP server (no TLS) that parses what it receives; optional user/password check. */
export async function startSmtp(auth?: {
  user: string;
  password: string;
}): Promise<{ port: number; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    disabledCommands: auth ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    authOptional: !auth,
    allowInsecureAuth: true,
    logger: false,
    onAuth(a, _session, cb) {
      if (auth && a.username === auth.user && a.password === auth.password) cb(null, { user: a.username });
      else cb(new Error("invalid credentials"));
    },
    onData(stream, session, cb) {
      simpleParser(stream).then(
        (mail) => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            recipients: session.envelope.rcptTo.map((r) => r.address),
            mail,
          });
          cb();
        },
        (err: Error) => cb(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}
