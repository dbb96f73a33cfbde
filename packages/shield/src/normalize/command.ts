// A command as the shell reader (shell.ts) leaves it: what the option readers (execopts.ts,
// psql.ts), the detectors and the policy matchers look at.

export type Via =
  | "top"
  | "file"
  | "text"
  | "subst"
  | "procsubst"
  | "shell-c"
  | "eval"
  | "exec"
  | "heredoc"
  | "code"
  | "remote"
  | "decoded";

export interface Redirect {
  op: string;
  target: string;
  /** A heredoc whose delimiter was quoted: its body is taken literally (no `$(...)`). */
  literal?: boolean;
}

export interface SimpleCommand {
  /** Words after quote removal and expansion, wrappers included. */
  argv: string[];
  /** Effective command: lower-case basename after wrappers (`sudo`, `env`, `nohup`, ...). */
  name: string;
  /** Arguments of the effective command. */
  args: string[];
  /** Wrappers in front of the effective command (lower-case basenames). */
  wrappers: string[];
  redirects: Redirect[];
  /** Pipeline this command belongs to and its position in it. */
  pipeline: SimpleCommand[];
  index: number;
  /** Command whose words contained this one ($(...), sh -c, ...), and how. */
  parent: SimpleCommand | undefined;
  via: Via;
  depth: number;
  /** Unresolved `$VAR` / `${VAR}` references seen in this command's words. */
  vars: string[];
  /** Set when an option makes the program run other code or send data (see execopts.ts). */
  hazard?: string;
}
