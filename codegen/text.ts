/**
 * Text safety for generated source, one function per output context: doc
 * comments ({@linkcode sanitize}, {@linkcode truncate}, {@linkcode docComment}),
 * string literals ({@linkcode escapeString}) and surface lines
 * ({@linkcode summarize}). Identifiers are made by `mangle` in `names.ts`.
 *
 * @module
 */

/**
 * The most characters of a description (a tool's, a parameter's, a type's)
 * a module's doc comment keeps: the module is where descriptions are whole,
 * and this bounds only what a hostile server could make it hold.
 */
export const MAX_DESCRIPTION_CHARS = 4_000;

/**
 * The most characters of a tool description its surface line keeps; a
 * longer one is cut and says that `describe` has the whole text.
 */
export const MAX_SURFACE_DESCRIPTION_CHARS = 1_000;

/** The most characters of a note (a title, a schema note, a server's index line) kept. */
export const MAX_NOTE_CHARS = 120;

/** The most notes one member's doc comment lists (reasons and schema notes, each). */
export const MAX_NOTES_PER_PARAM = 8;

/** The column a generated doc comment wraps at. */
export const DOC_WRAP_COLUMN = 80;

/** The mark appended to text that was cut short. */
export const ELLIPSIS = "…";

// Whitespace of any kind, line and paragraph separators included, becomes one
// space: every line break in a comment is the generator's.
const SPACES = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/gu;
// Controls, format characters (bidi overrides and isolates, zero-width
// characters, the Tags block, soft hyphen), lone surrogates.
const INERT = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;

/**
 * Makes server text inert for a comment: every control, line and paragraph
 * separator, direction-changing, zero-width and Tags-block code point goes,
 * whitespace runs become one space, a comment terminator is broken apart, and `@` becomes
 * `＠` (TypeScript reads `@ts-ignore` and JSDoc tags inside comments).
 *
 * @example Disarm a comment terminator
 * ```ts
 * import { sanitize } from "@loom/mcp/codegen";
 * console.log(sanitize("ok *\/ evil()\u202e")); // "ok * / evil()"
 * ```
 */
export function sanitize(text: string): string {
  const flat = text.replace(SPACES, " ").replace(INERT, "").replace(SPACES, " ").trim();
  return flat.replaceAll("*/", "* /").replaceAll("@", "＠");
}

/**
 * Makes server text inert for a `//` line comment, which only a line break
 * ends: every control, line and paragraph separator, direction-changing,
 * zero-width and Tags-block code point goes and whitespace runs become one
 * space, as in {@linkcode sanitize}, but the rest stays as the server wrote
 * it (`*\/` cannot close a line comment). Only a leading `@` becomes `＠`,
 * since `// @ts-nocheck` at the start of a comment is a compiler directive.
 *
 * @example Keep a glob as written
 * ```ts
 * import { sanitizeLine } from "@loom/mcp/codegen";
 * console.log(sanitizeLine("Use '**\/*.ext'\u202e for all files")); // "Use '**\/*.ext' for all files"
 * ```
 */
export function sanitizeLine(text: string): string {
  const flat = text.replace(SPACES, " ").replace(INERT, "").replace(SPACES, " ").trim();
  return flat.startsWith("@") ? `＠${flat.slice(1)}` : flat;
}

/**
 * Cuts text to at most `max` characters (code points), marking a cut with
 * {@linkcode ELLIPSIS}; the mark counts toward `max`.
 *
 * @example Cap a note
 * ```ts
 * import { truncate } from "@loom/mcp/codegen";
 * console.log(truncate("abcdef", 4)); // "abc…"
 * ```
 */
export function truncate(text: string, max: number): string {
  if (!Number.isInteger(max) || max < 1) {
    throw new RangeError(`Cannot truncate text: max ${max} is not a positive integer`);
  }
  if (text.length <= max) return text;
  const points = Array.from(text);
  if (points.length <= max) return text;
  return points.slice(0, max - 1).join("").trimEnd() + ELLIPSIS;
}

/**
 * Renders a string as a double-quoted literal in which only printable ASCII
 * appears: `\` and `"` are escaped, every other code point (lone surrogates
 * included) becomes `\u{...}`. Evaluating the literal gives back `text`
 * exactly.
 *
 * @example Escape a hostile name
 * ```ts
 * import { escapeString } from "@loom/mcp/codegen";
 * console.log(escapeString('a"\n`${x}`')); // "a\"\u{a}\u{60}\u{24}{x}\u{60}"
 * ```
 */
export function escapeString(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    let point = unit;
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        point = (unit - 0xd800) * 0x400 + (next - 0xdc00) + 0x10000;
        i++;
      }
    }
    if (point === 0x22) out += '\\"';
    else if (point === 0x5c) out += "\\\\";
    // Backtick and `$` are escaped too, so no template syntax ever appears.
    else if (point >= 0x20 && point <= 0x7e && point !== 0x60 && point !== 0x24) {
      out += String.fromCharCode(point);
    } else out += `\\u{${point.toString(16)}}`;
  }
  return out + '"';
}

/**
 * Sanitizes and caps server text for one surface line or note: one line, at
 * most `max` characters.
 *
 * @example Summarize a long description
 * ```ts
 * import { summarize } from "@loom/mcp/codegen";
 * console.log(summarize("Reads a file.\nArgs: path", 120)); // "Reads a file. Args: path"
 * ```
 */
export function summarize(text: string, max: number = MAX_NOTE_CHARS): string {
  return truncate(sanitize(text), max);
}

/**
 * Wraps sanitized paragraphs into a doc comment at
 * {@linkcode DOC_WRAP_COLUMN}, each line prefixed by `indent`. Paragraphs are
 * sanitized again, so every line break in the result is the generator's.
 *
 * @example Wrap a description
 * ```ts
 * import { docComment } from "@loom/mcp/codegen";
 * console.log(docComment(["Reads a file."], "")); // "/** Reads a file. *\/"
 * ```
 */
export function docComment(paragraphs: readonly string[], indent: string): string {
  const clean = paragraphs.map(sanitize).filter((p) => p.length > 0);
  if (clean.length === 0) return "";
  const width = Math.max(20, DOC_WRAP_COLUMN - indent.length - 3);
  const only = clean[0];
  if (clean.length === 1 && only !== undefined && only.length <= width - 4) {
    return `${indent}/** ${only} */\n`;
  }
  const lines: string[] = [];
  clean.forEach((paragraph, index) => {
    if (index > 0) lines.push("");
    lines.push(...wrap(paragraph, width));
  });
  const body = lines.map((line) => line.length === 0 ? `${indent} *` : `${indent} * ${line}`);
  return `${indent}/**\n${body.join("\n")}\n${indent} */\n`;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line.length === 0) line = word;
    else if (line.length + 1 + word.length <= width) line += " " + word;
    else {
      lines.push(line);
      line = word;
    }
    // A word longer than a line is cut, so no line grows without bound.
    while (line.length > width) {
      const points = Array.from(line);
      if (points.length <= width) break;
      lines.push(points.slice(0, width).join(""));
      line = points.slice(width).join("");
    }
  }
  if (line.length > 0) lines.push(line);
  return lines;
}
