/**
 * The backstop: a re-lex of rendered source proving that the sanitizers held.
 * Outside comments and string literals only the generator's own alphabet may
 * appear: its fixed vocabulary, the identifiers it minted, numeric literals,
 * a fixed set of punctuation (with `&` of intersections and the `...` of a
 * tuple's rest), the `=` of `type Name =` and nowhere else, spaces and
 * newlines. No backtick, no `@`, no
 * `\`, no `'`, no `$`, no code point outside ASCII. String literals must be
 * double-quoted, closed on their line, and printable ASCII inside.
 *
 * @module
 */

import { err, ok, type Result } from "../codec/result.ts";

/** The words a generated module uses besides the identifiers it mints. */
export const GENERATOR_WORDS: ReadonlySet<string> = new Set([
  "import",
  "export",
  "function",
  "return",
  "type",
  "from",
  "invoke",
  "readResource",
  "read_resource",
  "ResourceResult",
  "uri",
  "args",
  "structured",
  "key",
  "Promise",
  "Record",
  "ToolResult",
  "JsonValue",
  "JsonObject",
  "string",
  "number",
  "boolean",
  "null",
  "never",
  "true",
  "false",
]);

const PUNCTUATION = new Set([
  "{",
  "}",
  "(",
  ")",
  "[",
  "]",
  ";",
  ":",
  ",",
  "<",
  ">",
  "?",
  "|",
  "&",
  "-",
]);
const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;
const WORD_ONLY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NUMBER = /(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?n?/y;

/** Where and why rendered source broke the generator's alphabet. */
export type Breach = { offset: number; message: string };

function isLineEnd(unit: number): boolean {
  return unit === 0x0a || unit === 0x0d || unit === 0x2028 || unit === 0x2029;
}

/**
 * Re-lexes generated source. Succeeds when everything outside comments and
 * string literals is the generator's own: a word of
 * {@linkcode GENERATOR_WORDS} or of `minted`, a numeric literal, allowed
 * punctuation, a space or a newline.
 *
 * @example Catch an injected template literal
 * ```ts
 * import { backstop } from "@loom/mcp/codegen";
 * console.log(backstop('export function a() { return "ok"; }', new Set(["a"])).ok); // true
 * console.log(backstop("/* x *\/ `${alert()}`", new Set()).ok); // false
 * ```
 */
export function backstop(source: string, minted: ReadonlySet<string>): Result<void, Breach> {
  let at = 0;
  // The two tokens before this one, for the `=` of a type alias.
  let last = "";
  let beforeLast = "";
  const token = (text: string) => {
    beforeLast = last;
    last = text;
  };
  const breach = (offset: number, what: string) => {
    const shown = JSON.stringify(source.slice(offset, offset + 24));
    return err({ offset, message: `${what} at offset ${offset}: ${shown}` });
  };
  while (at < source.length) {
    const unit = source.charCodeAt(at);
    const char = source.charAt(at);
    if (char === " " || char === "\n") {
      at++;
    } else if (source.startsWith("//", at)) {
      while (at < source.length && !isLineEnd(source.charCodeAt(at))) at++;
    } else if (source.startsWith("/*", at)) {
      const end = source.indexOf("*/", at + 2);
      if (end < 0) return breach(at, "Unterminated comment");
      at = end + 2;
    } else if (char === '"') {
      const start = at++;
      for (;;) {
        if (at >= source.length) return breach(start, "Unterminated string literal");
        const inner = source.charCodeAt(at);
        if (inner < 0x20 || inner > 0x7e) return breach(at, "Raw non-ASCII in a string literal");
        if (inner === 0x22) break;
        if (inner === 0x5c) {
          const escaped = source.charCodeAt(at + 1);
          if (!(escaped >= 0x20 && escaped <= 0x7e)) return breach(at, "Raw escape in a string");
          at++;
        }
        at++;
      }
      at++;
      token('"');
    } else if (unit >= 0x30 && unit <= 0x39) {
      NUMBER.lastIndex = at;
      const match = NUMBER.exec(source);
      const next = match === null ? at : at + match[0].length;
      if (match === null || /[A-Za-z0-9_]/.test(source.charAt(next))) {
        return breach(at, "Malformed number");
      }
      at = next;
      token("0");
    } else if (/[A-Za-z_]/.test(char)) {
      WORD.lastIndex = at;
      const word = (WORD.exec(source) as RegExpExecArray)[0];
      if (!GENERATOR_WORDS.has(word) && !minted.has(word)) {
        return breach(at, "Word not minted by the generator");
      }
      at += word.length;
      token(word);
    } else if (PUNCTUATION.has(char)) {
      at++;
      token(char);
    } else if (char === "=" && beforeLast === "type" && WORD_ONLY.test(last)) {
      at++;
      token(char);
    } else if (source.startsWith("...", at) && source.charAt(at + 3) !== ".") {
      // A tuple's rest element; a lone `.` (member access) is no token of the generator's.
      at += 3;
      token("...");
    } else {
      return breach(at, "Character outside the generator's alphabet");
    }
  }
  return ok(undefined);
}
