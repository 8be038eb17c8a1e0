// Private to catalog/: how the catalog quotes what it found and spells the fix
// in the syntax of the file at hand (TOML or JSON).

import { quote } from "../codec/quote.ts";

const BARE_KEY = /^[A-Za-z0-9_-]+$/;
// Characters a shell would have interpreted: a string holding one cannot be
// split into argv by whitespace alone.
const SHELL_SYNTAX = /["'`\\$|&;<>(){}*?~#!]/;

/** The syntax a catalog is written in, which decides how a fix is spelled. */
export type Syntax = "toml" | "json";

/** Says what a parsed value is, with short scalars quoted: `a string ("--stdio")`. */
export function describe(value: unknown, syntax: Syntax): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return value === "" ? "an empty string" : `a string (${quote(value)})`;
    case "bigint":
      return `an integer (${value})`;
    case "number":
      return Number.isInteger(value) ? `an integer (${value})` : `a float (${value})`;
    case "boolean":
      return `a boolean (${value})`;
  }
  if (Array.isArray(value)) return value.length === 0 ? "an empty array" : "an array";
  if (value instanceof Date) return "a date-time";
  return syntax === "toml" ? "a table" : "an object";
}

/**
 * Renders a key as its syntax would need it written: bare when it can be,
 * else quoted. The key is the file's text, shown in a message: a long one is
 * cut, and one holding what could move a terminal's cursor or reorder the
 * line (controls, bidi overrides, line separators) has those escaped.
 */
export function renderKey(key: string, syntax: Syntax): string {
  if (syntax === "json") return quote(key);
  return BARE_KEY.test(key) ? key : quote(key);
}

/** Renders `key = value` (TOML) or `"key": value` (JSON). */
export function assignment(key: string, value: string, syntax: Syntax): string {
  return syntax === "toml" ? `${renderKey(key, syntax)} = ${value}` : `"${key}": ${value}`;
}

/** Renders a list of strings as an array literal both syntaxes read the same. */
export function stringArray(items: readonly string[]): string {
  return `[${items.map((item) => JSON.stringify(item)).join(", ")}]`;
}

/**
 * Splits a string on whitespace when that is all a shell would have done with
 * it; `undefined` when it holds quoting, expansion or other shell syntax.
 */
export function splitPlainWords(text: string): string[] | undefined {
  if (SHELL_SYNTAX.test(text)) return undefined;
  return text.split(/\s+/).filter((word) => word !== "");
}

/** The 1-based line and column of a UTF-16 offset in a text. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/** Drops a leading byte-order mark, which editors on Windows write. */
export function stripByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * A parser's own sentence, set after a colon in one of ours: lowercase start,
 * no trailing period.
 */
export function sentenceTail(text: string): string {
  const trimmed = text.trim().replace(/\.+$/, "");
  return trimmed.charAt(0).toLowerCase() + trimmed.slice(1);
}

// A key that differs from a known one only in case, dashes or camelCase.
export function nearKey(key: string, known: readonly string[]): string | undefined {
  const normal = key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/-/g, "_").toLowerCase();
  return known.find((candidate) => candidate === normal);
}
