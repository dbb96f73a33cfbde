import type { CommandSpec, OptionSpec } from "./spec.js";
import { GLOBAL_OPTIONS } from "./spec.js";

function optionLabel(name: string, spec: OptionSpec): string {
  const short = spec.short ? `-${spec.short}, ` : "    ";
  const value = spec.type === "string" ? ` ${spec.valueName ?? "VALUE"}` : "";
  return `${short}--${name}${value}`;
}

/** The option's description with its default (and repeatability) spelled out. */
export function optionText(spec: OptionSpec): string {
  const def = spec.default ?? (spec.type === "boolean" ? "off" : "none");
  return `${spec.description}${spec.multiple ? "; repeatable" : ""} (default: ${def})`;
}

function table(rows: [string, string][], indent = 2): string[] {
  const width = Math.max(0, ...rows.map(([l]) => l.length));
  return rows.map(([l, r]) => `${" ".repeat(indent)}${l.padEnd(width)}  ${r}`);
}

export function usageLine(path: string[], spec: CommandSpec): string {
  const parts = ["palisade", ...path];
  if (spec.subcommands?.length) parts.push("<command>");
  for (const p of spec.positionals ?? []) {
    const name = p.rest ? `${p.name}...` : p.name;
    parts.push(p.required ? `<${name}>` : `[${name}]`);
  }
  parts.push("[options]");
  return parts.join(" ");
}

/** Help text for a command (path = [] for the root): every option with its default. */
export function formatHelp(path: string[], spec: CommandSpec): string {
  const lines: string[] = [];
  lines.push(`${spec.summary}`, "", `Usage: ${usageLine(path, spec)}`);
  if (spec.description) lines.push("", ...spec.description.split("\n"));
  if (spec.subcommands?.length) {
    lines.push("", "Commands:");
    lines.push(...table(spec.subcommands.map((c) => [c.name, c.summary])));
  }
  if (spec.positionals?.length) {
    lines.push("", "Arguments:");
    lines.push(...table(spec.positionals.map((p) => [p.name, p.description])));
  }
  const own = Object.entries(spec.options ?? {});
  if (own.length) {
    lines.push("", "Options:");
    lines.push(...table(own.map(([n, o]) => [optionLabel(n, o), optionText(o)])));
  }
  lines.push("", "Global options (before or after the command):");
  lines.push(...table(Object.entries(GLOBAL_OPTIONS).map(([n, o]) => [optionLabel(n, o), optionText(o)])));
  if (spec.examples?.length) {
    lines.push("", "Examples:");
    lines.push(...spec.examples.map((e) => `  ${e}`));
  }
  if (spec.subcommands?.length) {
    lines.push("", `Run 'palisade ${[...path, "<command>"].join(" ")} --help' for details of a command.`);
  }
  return `${lines.join("\n")}\n`;
}
