/**
 * How text a person reads quotes a value it did not write (a server's name, a
 * received field, a catalog entry): short, on one line, and unable to move the
 * cursor or fake a line of its own. Every message of the library quotes
 * through here.
 *
 * @module
 */

/** The most characters of a quoted text kept before it is cut with `…`: 80. */
export const MAX_QUOTED_CHARS = 80;

// Controls, format characters (bidi overrides, zero-width), line and
// paragraph separators, private-use and unassigned code points.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}]/gu;

/**
 * Quotes text as a double-quoted literal: JSON escapes, and every code point
 * that is invisible or moves the cursor as `\u{...}`; past `maxChars`
 * characters the rest is cut and marked with `…`.
 *
 * @example Quote a hostile server name
 * ```ts
 * import { quote } from "@loom/mcp/codec";
 * console.log(quote("evil\u202e\x1b[2J")); // "evil\u{202e}\u{1b}[2J"
 * ```
 */
export function quote(text: string, maxChars: number = MAX_QUOTED_CHARS): string {
  if (!Number.isSafeInteger(maxChars) || maxChars < 1) {
    throw new RangeError(`Cannot quote text: maxChars is ${maxChars}, not a positive integer`);
  }
  const whole = String(text);
  // Only the kept characters are read: a 16 MiB text costs what 80 cost.
  let end = 0;
  if (whole.length > maxChars) {
    let count = 0;
    for (const point of whole) {
      if (count === maxChars) break;
      end += point.length;
      count++;
    }
  } else {
    end = whole.length;
  }
  const cut = end < whole.length;
  const kept = cut ? whole.slice(0, end) : whole;
  const body = JSON.stringify(kept).slice(1, -1).replace(
    INVISIBLE,
    (point) => `\\u{${point.codePointAt(0)!.toString(16)}}`,
  );
  return `"${body}${cut ? "…" : ""}"`;
}

const UNPRINTABLE = /[^\t\n\P{Cc}]|[\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}]/gu;

/**
 * Makes text a peer wrote safe to show on a terminal as it is, not quoted nor
 * cut: every code point that is invisible or moves the cursor (`\r`, escape
 * sequences, bidirectional overrides, ...) becomes `\u{...}`; tab and
 * newline stay.
 *
 * @example Show a server's stderr line
 * ```ts
 * import { printable } from "@loom/mcp/codec";
 * console.log(printable("ok\r\x1b]0;title\x07")); // ok\u{d}\u{1b}]0;title\u{7}
 * ```
 */
export function printable(text: string): string {
  return String(text).replace(
    UNPRINTABLE,
    (point) => `\\u{${point.codePointAt(0)!.toString(16)}}`,
  );
}

const UNPRINTABLE_IN_LINE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}]/gu;

/**
 * Makes text a peer wrote safe to show as one line of a terminal, not quoted
 * nor cut: like {@linkcode printable}, but tab and newline become `\u{...}`
 * too, so a field (a tool's name, its description) can never start a line of
 * its own.
 *
 * @example Show a tool name that holds CR LF
 * ```ts
 * import { printableLine } from "@loom/mcp/codec";
 * console.log(printableLine("real\r\nforged")); // real\u{d}\u{a}forged
 * ```
 */
export function printableLine(text: string): string {
  return String(text).replace(
    UNPRINTABLE_IN_LINE,
    (point) => `\\u{${point.codePointAt(0)!.toString(16)}}`,
  );
}

/**
 * Says briefly what a received value is, for an error message: short scalars
 * quoted, containers by kind (`an object`, `an array`), `absent` for
 * `undefined`.
 *
 * @example Describe what a peer sent
 * ```ts
 * import { describeValue } from "@loom/mcp/codec";
 * console.log(describeValue([1, 2]), describeValue("2.0")); // an array "2.0"
 * ```
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return "absent";
  if (value === null) return "null";
  switch (typeof value) {
    case "bigint":
      return `${value}`;
    case "number":
    case "boolean":
      return String(value);
    case "string":
      return quote(value, 57);
    case "function":
    case "symbol":
      return `a ${typeof value}`;
  }
  return Array.isArray(value) ? "an array" : "an object";
}
