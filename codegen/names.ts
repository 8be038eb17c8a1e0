/**
 * Names: a server-chosen tool name becomes an identifier a model can type
 * ({@linkcode identifierFor}, {@linkcode nameTools}); a server's catalog name
 * becomes a module segment ({@linkcode moduleSegment}). Wire names never
 * change: identifiers are for the program, the wire name travels as a string
 * literal.
 *
 * The rule, in the one sentence the model reads ({@linkcode NAMING_RULE}): a
 * tool name that is a valid identifier and not reserved is used as it is;
 * otherwise each character an identifier cannot hold becomes `_`, and a
 * leading digit or a reserved word gets a `_` in front; an 8-hex digest
 * suffix is added only where two tools would otherwise share an identifier.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { err, ok, type Result } from "../codec/result.ts";

/** How many hex characters of the digest a disambiguated identifier carries. */
export const DIGEST_SUFFIX_CHARS = 8;

/** The longest server name a module segment may be. */
export const MAX_SEGMENT_CHARS = 64;

/** The naming rule in one sentence, as the model reads it beside the surface. */
export const NAMING_RULE: string =
  "Each function is named as its tool; a tool name that is not a valid identifier has " +
  "each other character replaced by _ (and a _ in front of a leading digit or a reserved " +
  "word), and an 8-hex suffix is added only where two tools would otherwise share a name.";

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
  "readResource",
  "read_resource",
  "ResourceResult",
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

// The identifiers the generator mints: ASCII only (the backstop admits no
// other code point outside literals), and no `$` (it could start `${`).
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NOT_IDENTIFIER_CHAR = /[^A-Za-z0-9_]/gu;
const HEX = /^[0-9a-f]{8}/;

/**
 * The identifier a tool name gets when no other tool competes for it: the
 * name itself when it is a valid identifier (ASCII letters, digits and `_`,
 * not starting with a digit) and not in {@linkcode RESERVED_NAMES};
 * otherwise each code point an identifier cannot hold becomes `_`, and a
 * leading digit or a reserved word gets a `_` in front.
 *
 * @example Names as a model would type them
 * ```ts
 * import { identifierFor } from "@loom/mcp/codegen";
 * console.log(identifierFor("read_file")); // "read_file"
 * console.log(identifierFor("get-sum")); // "get_sum"
 * console.log(identifierFor("delete")); // "_delete"
 * console.log(identifierFor("3d")); // "_3d"
 * ```
 */
export function identifierFor(name: string): string {
  if (typeof name !== "string") {
    throw new TypeError(`Cannot name a tool: its name is ${typeof name}, not a string`);
  }
  if (IDENTIFIER.test(name) && !RESERVED_NAMES.has(name)) return name;
  const base = name.replace(NOT_IDENTIFIER_CHAR, "_");
  if (base.length === 0) return "_";
  return /^[0-9]/.test(base) || RESERVED_NAMES.has(base) ? `_${base}` : base;
}

/**
 * The identifier of a tool name that shares its {@linkcode identifierFor}
 * with another tool: that identifier, `_`, and the first
 * {@linkcode DIGEST_SUFFIX_CHARS} hex characters of `digest(name)`.
 *
 * `digest` must return lowercase hex (SHA-256 in production); anything else is
 * caller misuse and throws `TypeError`.
 *
 * @example Tell two similar names apart
 * ```ts
 * import { mangle } from "@loom/mcp/codegen";
 * console.log(mangle("get-sum", () => "0123456789abcdef")); // "get_sum_01234567"
 * ```
 */
export function mangle(name: string, digest: (s: string) => string): string {
  const hex = digest(name);
  if (typeof hex !== "string" || !HEX.test(hex)) {
    throw new TypeError(
      `Cannot mangle tool name: the digest returned ${JSON.stringify(String(hex))}, ` +
        "not lowercase hex of at least 8 characters",
    );
  }
  return `${identifierFor(name)}_${hex.slice(0, DIGEST_SUFFIX_CHARS)}`;
}

/** Two tools that would get one identifier even after disambiguation. */
export type NameCollision = { identifier: string; first: string; second: string };

/**
 * Names every tool of one listing. A name that is a valid identifier keeps
 * it; a changed name keeps its {@linkcode identifierFor} unless another tool
 * would get the same identifier, in which case it is {@linkcode mangle}d.
 * The result depends only on the set of names, never on their order. When
 * two tools still share an identifier (byte-identical names, or a wire name
 * that equals another's suffixed identifier), the listing is refused, naming
 * both, in listing order.
 *
 * @example Name a small listing
 * ```ts
 * import { nameTools, sha256Hex } from "@loom/mcp/codegen";
 * const named = nameTools(["get_sum", "get-sum", "echo"], sha256Hex);
 * if (named.ok) console.log(named.value.get("get_sum"), named.value.get("echo")); // get_sum echo
 * ```
 */
export function nameTools(
  names: readonly string[],
  digest: (s: string) => string,
): Result<Map<string, string>, NameCollision> {
  const wanted = new Map<string, number>();
  for (const name of names) {
    const base = identifierFor(name);
    wanted.set(base, (wanted.get(base) ?? 0) + 1);
  }
  const byIdentifier = new Map<string, string>();
  const byName = new Map<string, string>();
  for (const name of names) {
    const base = identifierFor(name);
    const identifier = base === name || wanted.get(base) === 1 ? base : mangle(name, digest);
    const first = byIdentifier.get(identifier);
    if (first !== undefined) return err({ identifier, first, second: name });
    byIdentifier.set(identifier, name);
    byName.set(name, identifier);
  }
  return ok(byName);
}

/** The most names {@linkcode closestNames} returns. */
export const MAX_SUGGESTIONS = 3;

// Case, `_` and `-` are what a guess most often gets wrong (`getSum` for
// `get_sum`), so they are set aside before the edit distance is measured.
function fold(name: string): string {
  return name.toLowerCase().replace(/[-_]/g, "");
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * The names of `candidates` closest to `name`, best first, at most
 * {@linkcode MAX_SUGGESTIONS}: those equal to it but for case, `_` and `-`,
 * then those within a small edit distance of it (a third of its length, at
 * least 2); when none is, those sharing a word of three letters or more with
 * it (`echoText` and `echo`, `search` and `search_nodes`), most words shared
 * first. Empty when nothing is close.
 *
 * @example Suggest the name a guess meant
 * ```ts
 * import { closestNames } from "@loom/mcp/codegen";
 * console.log(closestNames("getSum", ["get_sum", "get_env", "echo"])); // ["get_sum"]
 * ```
 */
export function closestNames(name: string, candidates: Iterable<string>): string[] {
  const folded = fold(String(name));
  // Past 128 characters only a folded match counts, so the cost stays bounded.
  const long = folded.length > 128;
  const limit = Math.max(2, Math.floor(folded.length / 3));
  const scored: { candidate: string; score: number }[] = [];
  for (const candidate of new Set(candidates)) {
    if (candidate === name) continue;
    const other = fold(candidate);
    if (Math.abs(other.length - folded.length) > limit) continue;
    const distance = long || other.length > 128
      ? (other === folded ? 0 : limit + 1)
      : editDistance(folded, other);
    if (distance <= limit) {
      scored.push({ candidate, score: distance * 1_000 + editDistance(name, candidate) });
    }
  }
  if (scored.length === 0 && !long) scored.push(...sharingWords(name, candidates));
  scored.sort((a, b) =>
    a.score - b.score || (a.candidate < b.candidate ? -1 : a.candidate > b.candidate ? 1 : 0)
  );
  return scored.slice(0, MAX_SUGGESTIONS).map((each) => each.candidate);
}

// A guess far from every name by its letters may still hold one of a
// name's words: the more it shares, the nearer it is.
function sharingWords(
  name: string,
  candidates: Iterable<string>,
): { candidate: string; score: number }[] {
  const own = new Set(wordsOf(name));
  if (own.size === 0) return [];
  const scored: { candidate: string; score: number }[] = [];
  for (const candidate of new Set(candidates)) {
    if (candidate === name || candidate.length > 128) continue;
    const shared = new Set(wordsOf(candidate).filter((word) => own.has(word))).size;
    if (shared > 0) {
      scored.push({ candidate, score: -shared * 1_000 + editDistance(name, candidate) });
    }
  }
  return scored;
}

// The words of a name: split at case changes, digits and punctuation, in
// lower case, each of three letters or more.
function wordsOf(name: string): string[] {
  return String(name).replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z]+/)
    .filter((word) => word.length >= 3);
}

/** Why a server name cannot name a generated module. */
export type SegmentError = {
  kind: "invalid_server_name";
  /** The whole sentence: `Cannot use "GitHub" as a server name: use a lowercase ...`. */
  message: string;
  /** The broken part of the rule alone, to set after a caller's own context. */
  reason: string;
};

/**
 * The module-segment rule as a pattern: a lowercase ASCII letter, then up to
 * 63 lowercase ASCII letters, digits, `_` or `-`. {@linkcode moduleSegment}
 * also refuses the Windows device names this pattern lets through.
 *
 * @example Match a segment
 * ```ts
 * import { SEGMENT_PATTERN } from "@loom/mcp/codegen";
 * console.log(SEGMENT_PATTERN.test("github"), SEGMENT_PATTERN.test("GitHub")); // true false
 * ```
 */
export const SEGMENT_PATTERN: RegExp = new RegExp(`^[a-z][a-z0-9_-]{0,${MAX_SEGMENT_CHARS - 1}}$`);

// Names Windows refuses as file names, whatever the extension.
const DEVICE_NAMES = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;

function segmentReason(server: string): string | undefined {
  if (typeof server !== "string" || !SEGMENT_PATTERN.test(server.slice(0, MAX_SEGMENT_CHARS))) {
    return "use a lowercase ASCII letter followed by lowercase letters, digits, '_' or '-'";
  }
  if (server.length > MAX_SEGMENT_CHARS) {
    return `it is longer than ${MAX_SEGMENT_CHARS} characters`;
  }
  if (DEVICE_NAMES.test(server)) return "it is a reserved device name on Windows";
  return undefined;
}

/**
 * Checks a server name as a module segment: the module is `mcp/<name>.ts`.
 * This is the one statement of the rule; the census, the catalog and the
 * runner all ask it. The rule is exact, with no normalization: a lowercase
 * ASCII letter, then up to 63 lowercase ASCII letters, digits, `_` or `-`
 * ({@linkcode SEGMENT_PATTERN}), and not a Windows device name (`con`,
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
  const reason = segmentReason(server);
  if (reason === undefined) return ok(server);
  const shown = JSON.stringify(String(server).slice(0, 80));
  return err({
    kind: "invalid_server_name",
    message: `Cannot use ${shown} as a server name: ${reason}`,
    reason,
  });
}
