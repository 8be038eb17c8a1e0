/**
 * Names: a server-chosen tool name becomes a display identifier
 * ({@linkcode mangle}); a server's catalog name becomes a module segment
 * ({@linkcode moduleSegment}). Wire names never change: identifiers are for
 * display, the wire name travels as a string literal.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { err, ok, type Result } from "../codec/result.ts";

/** The longest identifier base kept before a digest suffix is required. */
export const MAX_IDENTIFIER_CHARS = 32;

/** How many hex characters of the digest a mangled identifier carries. */
export const DIGEST_SUFFIX_CHARS = 8;

/** The longest server name a module segment may be. */
export const MAX_SEGMENT_CHARS = 64;

/**
 * The names a tool identifier may never take as they are: ES and TypeScript
 * keywords and contextual keywords, names with special meaning to a module or
 * an object (`then` makes a module namespace thenable), globals a module
 * relies on, and the names a generated module imports or declares.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  // ES keywords and strict-mode reserved words
  "await",
  "break",
  "case",
  "catch",
  "class",
  "const",
  "continue",
  "debugger",
  "default",
  "delete",
  "do",
  "else",
  "enum",
  "export",
  "extends",
  "false",
  "finally",
  "for",
  "function",
  "if",
  "implements",
  "import",
  "in",
  "instanceof",
  "interface",
  "let",
  "new",
  "null",
  "package",
  "private",
  "protected",
  "public",
  "return",
  "static",
  "super",
  "switch",
  "this",
  "throw",
  "true",
  "try",
  "typeof",
  "var",
  "void",
  "while",
  "with",
  "yield",
  // contextual keywords
  "abstract",
  "accessor",
  "any",
  "as",
  "asserts",
  "assert",
  "async",
  "bigint",
  "boolean",
  "constructor",
  "declare",
  "from",
  "get",
  "global",
  "infer",
  "intrinsic",
  "is",
  "keyof",
  "module",
  "namespace",
  "never",
  "number",
  "object",
  "of",
  "out",
  "override",
  "readonly",
  "require",
  "satisfies",
  "set",
  "string",
  "symbol",
  "type",
  "undefined",
  "unique",
  "unknown",
  "using",
  "defer",
  "source",
  // special meaning to modules, objects and the runtime
  "then",
  "__proto__",
  "prototype",
  "arguments",
  "eval",
  "globalThis",
  "NaN",
  "Infinity",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "toJSON",
  // what a generated module imports or declares
  "invoke",
  "args",
  "ToolResult",
  "JsonValue",
  "JsonObject",
  "Promise",
  "Record",
]);

/**
 * The production digest: SHA-256 of the UTF-8 bytes of `text`, as lowercase
 * hex.
 *
 * @example Digest a tool name
 * ```ts
 * import { sha256Hex } from "@loom/mcp/codegen";
 * console.log(sha256Hex("").slice(0, 8)); // "e3b0c442"
 * ```
 */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

const WORDS = /[A-Za-z0-9]+/g;
const HEX = /^[0-9a-f]{8}/;

/**
 * Makes a camelCase identifier of a tool name. Whenever that altered anything,
 * or the name is in {@linkcode RESERVED_NAMES}, or it is longer than
 * {@linkcode MAX_IDENTIFIER_CHARS}, the identifier carries `_` and the first
 * eight hex characters of `digest(name)`, so `createIssue` and `create_issue`
 * stay distinct. An identifier that was not altered never contains `_`, so it
 * never meets a suffixed one.
 *
 * `digest` must return lowercase hex (SHA-256 in production); anything else is
 * caller misuse and throws `TypeError`.
 *
 * @example Keep two similar names apart
 * ```ts
 * import { mangle, sha256Hex } from "@loom/mcp/codegen";
 * console.log(mangle("createIssue", sha256Hex)); // "createIssue"
 * console.log(mangle("create_issue", sha256Hex).startsWith("createIssue_")); // true
 * ```
 */
export function mangle(name: string, digest: (s: string) => string): string {
  const words = name.match(WORDS) ?? [];
  let base = words.map((word, index) => {
    const head = word.charAt(0);
    return (index === 0 ? head.toLowerCase() : head.toUpperCase()) + word.slice(1);
  }).join("");
  if (base.length === 0) base = "tool";
  else if (/^[0-9]/.test(base)) base = "tool" + base;
  const plain = base === name && !RESERVED_NAMES.has(base) && base.length <= MAX_IDENTIFIER_CHARS;
  if (plain) return base;
  const hex = digest(name);
  if (typeof hex !== "string" || !HEX.test(hex)) {
    throw new TypeError(
      `Cannot mangle tool name: the digest returned ${JSON.stringify(String(hex))}, ` +
        "not lowercase hex of at least 8 characters",
    );
  }
  return `${base.slice(0, MAX_IDENTIFIER_CHARS)}_${hex.slice(0, DIGEST_SUFFIX_CHARS)}`;
}

/** Why a server name cannot name a generated module. */
export type SegmentError = { kind: "invalid_server_name"; message: string };

const SEGMENT = /^[a-z][a-z0-9_-]*$/;
// Names Windows refuses as file names, whatever the extension.
const DEVICE_NAMES = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;

/**
 * Checks a server name as a module segment: the module is `mcp/<name>.ts`.
 * The rule is exact, with no normalization: a lowercase ASCII letter, then up
 * to 63 lowercase ASCII letters, digits, `_` or `-`
 * (`/^[a-z][a-z0-9_-]{0,63}$/`), and not a Windows device name (`con`,
 * `nul`, `com1`, ...). Lowercase only, so two servers never map to one file
 * on a case-insensitive disk.
 *
 * @example Validate catalog names
 * ```ts
 * import { moduleSegment } from "@loom/mcp/codegen";
 * console.log(moduleSegment("github").ok); // true
 * console.log(moduleSegment("GitHub").ok); // false
 * ```
 */
export function moduleSegment(server: string): Result<string, SegmentError> {
  const shown = JSON.stringify(String(server).slice(0, 80));
  if (typeof server !== "string" || !SEGMENT.test(server)) {
    return err({
      kind: "invalid_server_name",
      message: `Cannot use ${shown} as a server name: use a lowercase ASCII letter followed by ` +
        "lowercase letters, digits, '_' or '-'",
    });
  }
  if (server.length > MAX_SEGMENT_CHARS) {
    return err({
      kind: "invalid_server_name",
      message: `Cannot use ${shown} as a server name: it is longer than ` +
        `${MAX_SEGMENT_CHARS} characters`,
    });
  }
  if (DEVICE_NAMES.test(server)) {
    return err({
      kind: "invalid_server_name",
      message: `Cannot use ${shown} as a server name: it is a reserved device name on Windows`,
    });
  }
  return ok(server);
}
