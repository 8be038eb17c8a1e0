/**
 * A look at one inbound line that finds the id of a plain response without
 * parsing it: what a reader that hands the line on whole needs in order to
 * route it, with the full decode done once, by whoever receives it.
 *
 * @module
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const ZERO = 0x30;
const NINE = 0x39;
/** The longest id this look reads: 15 digits always fit a double exactly. */
const MAX_ID_DIGITS = 15;
const STRUCTURE = /["[\]{}]/g;

/**
 * The id of a line that looks like a JSON-RPC response (a top-level object
 * with `"result"` or `"error"`, no `"method"`, and an `"id"` written as plain
 * digits), or `undefined` for any other line. Linear in the line, and it
 * never throws; it validates nothing else, so it answers for a well-formed
 * response exactly what {@linkcode decodeInbound} would, and whoever routes a
 * line by it must still decode the line whole (and compare the ids): a line
 * it answers for may still be malformed. Where it answers `undefined`, the
 * line needs the full decode to be understood at all (a request, a
 * notification, a string or big id, an escaped key, not JSON).
 *
 * @example Find the id of a response
 * ```ts
 * import { peekResponseId } from "@loom/mcp/codec";
 * console.log(peekResponseId('{"jsonrpc":"2.0","id":7,"result":{}}')); // 7
 * console.log(peekResponseId('{"jsonrpc":"2.0","id":7,"method":"ping"}')); // undefined
 * ```
 */
export function peekResponseId(line: string): number | undefined {
  const end = line.length;
  let at = skipSpace(line, 0);
  if (line.charCodeAt(at) !== OPEN_BRACE) return undefined;
  at = skipSpace(line, at + 1);
  if (line.charCodeAt(at) === CLOSE_BRACE) return undefined;
  let id: number | undefined;
  let answered = false;
  for (;;) {
    if (line.charCodeAt(at) !== QUOTE) return undefined;
    const keyEnd = line.indexOf('"', at + 1);
    if (keyEnd === -1) return undefined;
    const key = line.slice(at + 1, keyEnd);
    // An escaped key may spell any name: only the full decode can tell.
    if (key.includes("\\")) return undefined;
    at = skipSpace(line, keyEnd + 1);
    if (line.charCodeAt(at) !== COLON) return undefined;
    at = skipSpace(line, at + 1);
    if (key === "method") return undefined;
    if (key === "id") {
      const start = at;
      while (at < end && at - start <= MAX_ID_DIGITS) {
        const code = line.charCodeAt(at);
        if (code < ZERO || code > NINE) break;
        at++;
      }
      const digits = at - start;
      if (digits === 0 || digits > MAX_ID_DIGITS) return undefined;
      if (digits > 1 && line.charCodeAt(start) === ZERO) return undefined;
      id = Number(line.slice(start, at));
    } else {
      if (key === "result" || key === "error") answered = true;
      at = skipValue(line, at);
      if (at === -1) return undefined;
    }
    at = skipSpace(line, at);
    const next = line.charCodeAt(at);
    if (next === COMMA) {
      at = skipSpace(line, at + 1);
      continue;
    }
    if (next !== CLOSE_BRACE) return undefined;
    if (skipSpace(line, at + 1) !== end) return undefined;
    return answered ? id : undefined;
  }
}

function skipSpace(line: string, at: number): number {
  for (;;) {
    const code = line.charCodeAt(at);
    if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return at;
    at++;
  }
}

/** The index just past the string whose opening quote is at `at`, or -1. */
function skipString(line: string, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = line.indexOf('"', from);
    if (quote === -1) return -1;
    let slashes = 0;
    while (line.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/**
 * The index just past the value starting at `at`, or -1. Scalars end at the
 * next comma or closing brace; containers are skipped by their brackets,
 * strings inside them by their quotes. Brackets are counted, not matched:
 * a line where they disagree is the full decode's to refuse.
 */
function skipValue(line: string, at: number): number {
  const first = line.charCodeAt(at);
  if (first === QUOTE) return skipString(line, at);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    let next = at;
    while (next < line.length) {
      const code = line.charCodeAt(next);
      if (code === COMMA || code === CLOSE_BRACE) break;
      next++;
    }
    return next === at ? -1 : next;
  }
  let depth = 0;
  STRUCTURE.lastIndex = at;
  for (;;) {
    const found = STRUCTURE.exec(line);
    if (found === null) return -1;
    const index = found.index;
    const code = line.charCodeAt(index);
    if (code === QUOTE) {
      const after = skipString(line, index);
      if (after === -1) return -1;
      STRUCTURE.lastIndex = after;
      continue;
    }
    if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth++;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return index + 1;
    }
  }
}

const ascii = (text: string) => Uint8Array.from(text, (char) => char.charCodeAt(0));
const HEAD_ID = ascii('{"jsonrpc":"2.0","id":');
const AFTER_ID = [ascii(',"result":'), ascii(',"error":')];
const HEADS_ANSWER = [
  ascii('{"result":'),
  ascii('{"error":'),
  ascii('{"jsonrpc":"2.0","result":'),
  ascii('{"jsonrpc":"2.0","error":'),
];
const TAIL_ID = ascii(',"id":');

function startsWith(line: Uint8Array, at: number, part: Uint8Array): boolean {
  if (at + part.length > line.length) return false;
  for (let index = 0; index < part.length; index++) {
    if (line[at + index] !== part[index]) return false;
  }
  return true;
}

/** The id written as plain digits from `start` to `end`, or -1. */
function digitsAt(line: Uint8Array, start: number, end: number): number {
  const count = end - start;
  if (count < 1 || count > MAX_ID_DIGITS) return -1;
  if (count > 1 && line[start] === ZERO) return -1;
  let id = 0;
  for (let at = start; at < end; at++) {
    const code = line[at] as number;
    if (code < ZERO || code > NINE) return -1;
    id = id * 10 + code - ZERO;
  }
  return id;
}

/**
 * The id of a response line, read from its ends only, as UTF-8 bytes: for a
 * line in one of the two compact shapes servers write,
 * `{"jsonrpc":"2.0","id":7,"result":…}` (or `"error"`) and
 * `{"result":…,"jsonrpc":"2.0","id":7}` (`"result"` or `"error"` first, the
 * id last), or `undefined` for any other line, whose id only
 * {@linkcode peekResponseId} on its text can find. Constant time whatever the
 * line's length, and it never throws. It validates nothing in between, and a
 * line of the first shape with a second `"id"` key is read by its first, where
 * {@linkcode decodeInbound} reads the last: whoever routes a line by it must
 * decode the line whole and compare the ids, and refuse the line when they
 * differ.
 *
 * @example Find the id of a response from its bytes
 * ```ts
 * import { peekResponseIdBytes } from "@loom/mcp/codec";
 * const line = new TextEncoder().encode('{"result":{},"jsonrpc":"2.0","id":7}');
 * console.log(peekResponseIdBytes(line)); // 7
 * ```
 */
export function peekResponseIdBytes(line: Uint8Array): number | undefined {
  if (startsWith(line, 0, HEAD_ID)) {
    let end = HEAD_ID.length;
    while (end < line.length && end - HEAD_ID.length <= MAX_ID_DIGITS) {
      const code = line[end] as number;
      if (code < ZERO || code > NINE) break;
      end++;
    }
    const id = digitsAt(line, HEAD_ID.length, end);
    if (id === -1) return undefined;
    for (const after of AFTER_ID) if (startsWith(line, end, after)) return id;
    return undefined;
  }
  const last = line.length - 1;
  if (line[last] !== CLOSE_BRACE || !HEADS_ANSWER.some((head) => startsWith(line, 0, head))) {
    return undefined;
  }
  let start = last;
  while (start > 0 && last - start <= MAX_ID_DIGITS) {
    const code = line[start - 1] as number;
    if (code < ZERO || code > NINE) break;
    start--;
  }
  const id = digitsAt(line, start, last);
  if (id === -1 || start < TAIL_ID.length) return undefined;
  return startsWith(line, start - TAIL_ID.length, TAIL_ID) ? id : undefined;
}
