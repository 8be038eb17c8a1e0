/**
 * The parameter headers of the modern era over HTTP (2026-07-28): a
 * tool's `inputSchema` may mark a property with `x-mcp-header: "Name"`, and
 * a call then says that argument again in an `Mcp-Param-Name` header. This
 * module reads the marks of a schema (refusing a tool whose marks break the
 * rules: an empty or non-token name, a name used twice in any case, a mark
 * on a property that is not a string, integer or boolean, or one not
 * reachable through `properties` alone) and renders the headers of a call.
 *
 * @module
 */

import { isJsonObject, type JsonValue } from "./json.ts";
import { quote } from "./quote.ts";
import { encodeHeaderValue } from "./streamable_http.ts";

/** The prefix of every parameter header. */
export const PARAM_HEADER_PREFIX = "Mcp-Param-";

/** One marked property: where it is in the arguments, and its header's name. */
export type ParamHeader = { path: readonly string[]; name: string };

/** A schema's marks, or why the tool that carries it must not be used. */
export type ParamHeaderScan =
  | { ok: true; headers: ParamHeader[] }
  | { ok: false; reason: string };

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const MARK = "x-mcp-header";
const PRIMITIVE: ReadonlySet<string> = new Set(["string", "integer", "boolean"]);
// Where a mark may not be: anything but a chain of `properties`. Every
// keyword of JSON Schema 2020-12 and draft-07 that holds subschemas, beside
// `properties` (`dependencies`, draft-07's, holds a schema or a list of names).
const ELSEWHERE = [
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "patternProperties",
  "dependentSchemas",
  "dependencies",
  "propertyNames",
  "contentSchema",
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "$defs",
  "definitions",
];
const MAPS: ReadonlySet<string> = new Set([
  "patternProperties",
  "dependentSchemas",
  "dependencies",
  "$defs",
  "definitions",
]);

/**
 * Reads the `x-mcp-header` marks of a tool's input schema. Total: a schema
 * of any shape gives marks or a reason.
 *
 * @example A tool with one marked property
 * ```ts
 * import { scanParamHeaders } from "@loom/mcp/codec";
 * const schema = { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } };
 * console.log(scanParamHeaders(schema)); // { ok: true, headers: [{ path: ["region"], name: "Region" }] }
 * ```
 */
export function scanParamHeaders(schema: JsonValue): ParamHeaderScan {
  const headers: ParamHeader[] = [];
  const seen = new Map<string, string>();
  const visit = (node: JsonValue, path: string[], reachable: boolean): string | undefined => {
    if (!isJsonObject(node)) return undefined;
    if (MARK in node) {
      const where = path.length === 0 ? "the schema itself" : `property ${quote(path.join("."))}`;
      if (!reachable || path.length === 0) {
        return `${where}: ${MARK} is allowed only on properties reached through "properties"`;
      }
      const name = node[MARK];
      if (typeof name !== "string" || name.length === 0) {
        return `${where}: ${MARK} must be a non-empty string`;
      }
      if (!TOKEN.test(name)) return `${where}: ${MARK} ${quote(name)} is not a token`;
      const type = node.type;
      if (typeof type !== "string" || !PRIMITIVE.has(type)) {
        return `${where}: ${MARK} is allowed only on a string, integer or boolean property`;
      }
      const prior = seen.get(name.toLowerCase());
      if (prior !== undefined) return `${MARK} ${quote(name)} is also ${prior}`;
      seen.set(name.toLowerCase(), quote(name));
      headers.push({ path: [...path], name });
    }
    const properties = node.properties;
    if (isJsonObject(properties)) {
      for (const key of Object.keys(properties)) {
        const fault = visit(properties[key] ?? null, [...path, key], reachable);
        if (fault !== undefined) return fault;
      }
    }
    for (const keyword of ELSEWHERE) {
      const sub = node[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : MAPS.has(keyword) && isJsonObject(sub)
        ? Object.values(sub)
        : [sub];
      for (const branch of branches) {
        const fault = visit(branch, [...path, `<${keyword}>`], false);
        if (fault !== undefined) return fault;
      }
    }
    return undefined;
  };
  const fault = visit(schema, [], true);
  return fault === undefined ? { ok: true, headers } : { ok: false, reason: fault };
}

/**
 * The parameter headers of one call: each marked argument that is present
 * and a string, a safe integer or a boolean, as `Mcp-Param-<Name>` with its
 * value encoded as every header value is.
 *
 * @example The headers of a call
 * ```ts
 * import { paramHeaders } from "@loom/mcp/codec";
 * console.log(paramHeaders([{ path: ["region"], name: "Region" }], { region: "eu-west" }));
 * // [["Mcp-Param-Region", "eu-west"]]
 * ```
 */
export function paramHeaders(
  marks: readonly ParamHeader[],
  args: JsonValue | undefined,
): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const mark of marks) {
    let value: JsonValue | undefined = args;
    for (const key of mark.path) value = isJsonObject(value) ? value[key] : undefined;
    const text = typeof value === "string"
      ? value
      : typeof value === "boolean"
      ? String(value)
      : typeof value === "number" && Number.isSafeInteger(value)
      ? String(value)
      : undefined;
    if (text !== undefined) {
      out.push([`${PARAM_HEADER_PREFIX}${mark.name}`, encodeHeaderValue(text)]);
    }
  }
  return out;
}

/**
 * The longest value, encoded, a header mirrored from a request may carry, in
 * bytes: 8 KiB. Servers and proxies bound a request's headers (nginx's
 * buffers hold 8 KiB, Node's parser 16 KiB for all of them) and drop a
 * request past the bound without an answer; a value past this one is refused
 * before anything is sent, failing that call alone.
 */
export const MAX_PARAM_HEADER_BYTES = 8 * 1024;

/**
 * The first header whose value is longer than
 * {@linkcode MAX_PARAM_HEADER_BYTES} (header values here are ASCII, encoded as
 * the specification says, so characters are bytes), or `undefined`.
 *
 * @example A marked argument too long for a header
 * ```ts
 * import { oversizedHeader, paramHeaders } from "@loom/mcp/codec";
 * const headers = paramHeaders([{ path: ["q"], name: "Q" }], { q: "x".repeat(9000) });
 * console.log(oversizedHeader(headers)); // { name: "Mcp-Param-Q", bytes: 9000 }
 * ```
 */
export function oversizedHeader(
  headers: Iterable<[string, string]>,
): { name: string; bytes: number } | undefined {
  for (const [name, value] of headers) {
    if (value.length > MAX_PARAM_HEADER_BYTES) return { name, bytes: value.length };
  }
  return undefined;
}
