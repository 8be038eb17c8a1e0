// Private to cli/: how cli/main.ts shows things to a person. Server text
// (names, messages, stderr, tool output) may hold terminal escapes or
// direction overrides, so it is made printable before it reaches a terminal.

import type { RemoteEvidence, RetirementError, RetirementEvidence } from "../client/errors.ts";
import type { Result } from "../codec/result.ts";
import type { CallToolResult } from "../codec/protocol.ts";
import { stringifyJson } from "../codec/json.ts";
import { printable, printableLine } from "../codec/quote.ts";

export { printable, printableLine };

/** One line, printable, whitespace runs collapsed; at most `limit` characters (whole by default). */
export function oneLine(text: string, limit = Infinity): string {
  const flat = printable(text.replace(/\s+/g, " ").trim());
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

// Terminal escape sequences (CSI, OSC, and two-character ones) as servers use
// them for colour and progress bars: stripped from stderr, where they mean
// nothing once captured.
const TERMINAL_ESCAPES =
  // deno-lint-ignore no-control-regex
  /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])|\u009b[0-?]*[ -/]*[@-~]/g;

/** Removes terminal escape sequences (colours, cursor moves, titles) from text. */
export function stripEscapes(text: string): string {
  return text.replace(TERMINAL_ESCAPES, "");
}

/**
 * The last `count` non-empty lines of a stderr tail, each without terminal
 * escapes, made printable and capped; a line redrawn with `\r` shows its last state.
 */
export function tailLines(tail: string, count = 5): string[] {
  return stripEscapes(tail).split("\n").map((line) => (line.split("\r").at(-1) ?? "").trimEnd())
    .filter((line) => line !== "")
    .slice(-count).map((line) => oneLine(line, 200));
}

/** Renders rows as aligned columns, two spaces apart; the last column is not padded. */
export function table(rows: readonly (readonly string[])[], indent = "  "): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, [...cell].length);
    });
  }
  return rows.map((row) =>
    indent +
    row.map((cell, index) =>
      index === row.length - 1 ? cell : cell + " ".repeat((widths[index] ?? 0) - [...cell].length)
    ).join("  ").trimEnd()
  ).join("\n");
}

/** A deadline as a person says it: `500 ms`, `2 s`, `1.5 s`, `2 min`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms >= 120_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** Milliseconds as seconds with two decimals: `0.27 s`. */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

/** The columns of one retirement outcome: state, then what was observed. */
export function retirementRow(
  name: string,
  outcome: Result<RetirementEvidence, RetirementError>,
): string[] {
  if (!outcome.ok) return [name, outcome.error.kind, oneLine(outcome.error.message)];
  const evidence = outcome.value;
  if (evidence.kind === "no_resource") return [name, "never started", "no process to retire"];
  if (evidence.kind === "remote") return [name, "remote", remoteOutcome(evidence), evidence.url];
  const drained = evidence.drained === true
    ? "group drained"
    : evidence.drained === false
    ? "GROUP NOT DRAINED"
    : "group drain unknown";
  const status = evidence.signal === null ? `code ${evidence.code}` : `signal ${evidence.signal}`;
  return [name, "exited", status, drained, `after ${evidence.escalation}`, `pid ${evidence.pid}`];
}

/** What a remote server's retirement did with its session, in a few words. */
function remoteOutcome(evidence: RemoteEvidence): string {
  switch (evidence.session) {
    case "stateless":
      return "stateless: nothing to end";
    case "deleted":
      return "session deleted";
    case "already_ended":
      return "session had already ended";
    case "not_deletable":
      return "session left to expire (DELETE not allowed)";
    case "unconfirmed":
      return `session end unconfirmed: ${oneLine(evidence.message ?? "")}`;
  }
}

/** A tool's result for a person: its text blocks, other blocks named, structured output as JSON when no text says it. */
export function renderResult(result: CallToolResult): string {
  const parts: string[] = [];
  for (const block of result.content) {
    switch (block.type) {
      case "text":
        parts.push(printable(block.text));
        break;
      case "image":
      case "audio":
        parts.push(
          `[${block.type} ${oneLine(block.mimeType, 60)}, ${block.data.length} base64 characters]`,
        );
        break;
      case "resource_link":
        parts.push(`[resource link ${oneLine(block.uri, 200)}]`);
        break;
      case "resource":
        parts.push(`[resource ${oneLine(block.resource.uri, 200)}]`);
        break;
      case "other":
        parts.push(`[${oneLine(block.originalType, 60)} block]`);
        break;
    }
  }
  // Servers send structured output as text too (the spec asks them to): a
  // person reads it once, as text; --json carries both.
  if (
    result.structuredContent !== undefined && !result.content.some((block) => block.type === "text")
  ) {
    const json = stringifyJson(result.structuredContent);
    if (json.ok) parts.push(`structured: ${printable(json.value)}`);
  }
  return parts.length === 0 ? "(no content)" : parts.join("\n");
}
