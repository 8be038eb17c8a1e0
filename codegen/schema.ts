/**
 * The schema plan: a total, three-tier reading of a tool's raw `inputSchema`
 * (and `outputSchema`), JSON Schema 2020-12 with the draft-07 forms real
 * listings use.
 *
 * - **Typed**: parameters whose schemas render as TypeScript types:
 *   primitives, literal `enum` and `const` (objects and arrays of literals
 *   too), `type` arrays and `nullable`, `anyOf`/`oneOf` as unions, `allOf` as
 *   intersections, arrays, tuples (`prefixItems`, or draft-07's list of
 *   `items`), objects with required and optional keys, index signatures for
 *   `additionalProperties` and `patternProperties`, and local `$ref`s (into
 *   `$defs`, `definitions` or anywhere in the schema) as named definitions,
 *   recursion allowed.
 * - **Structured(reason)**: a part no type can say (a remote `$ref`, which is
 *   never fetched; a part past a bound; a schema that constrains nothing),
 *   typed `JsonValue`, the reason kept for the doc comment.
 * - **WholeValue(reason)**: an unusable top level; the function takes one
 *   `JsonObject`. A top level that names no `properties` and is not closed
 *   accepts any object, and is one.
 *
 * No parameter is ever dropped: a key listed in `required` without a schema is
 * a parameter too. Unknown keywords (a `tsType`, say) are ignored, never
 * rendered; `description`, `default`, `format`, bounds and `pattern` become
 * notes for the member's doc comment.
 *
 * @module
 */

import { isJsonObject, type JsonValue } from "../codec/json.ts";
import type { OutputPlan, ParamType, Plan } from "./plan.ts";
import { own, structured } from "./_combine.ts";
import { reading, readType } from "./_reader.ts";
import { settle } from "./_refs.ts";

export * from "./plan.ts";

// A reason read at a schema's root, said of that schema: "its $ref ..." becomes
// "the input schema's $ref ...".
function ofRoot(reason: string, side: "input" | "output"): string {
  const schema = `the ${side} schema`;
  if (reason === 'its schema names no "type"') {
    return side === "input"
      ? `${schema} names no properties and accepts any object`
      : `${schema} names no type`;
  }
  if (reason.startsWith("it ")) return `${schema} ${reason.slice(3)}`;
  const its = reason.search(/\bits\b/);
  return its < 0
    ? `${schema}: ${reason}`
    : `${reason.slice(0, its)}${schema}'s ${reason.slice(its + 4)}`.replace(
      "schema's schema",
      "schema",
    );
}

function describe(type: ParamType): string {
  switch (type.kind) {
    case "union":
      return "a union of shapes";
    case "intersection":
      return "an intersection that is not one object";
    case "array":
    case "tuple":
      return "a list";
    default:
      return `not an object (${type.kind})`;
  }
}

/**
 * Reads a raw `inputSchema`. Total: any JSON value gives a plan, and every
 * property the schema names (or requires) is a parameter of it.
 *
 * @example Plan a small schema
 * ```ts
 * import { plan } from "@loom/mcp/codegen";
 * const result = plan({
 *   type: "object",
 *   properties: { path: { type: "string" }, tail: { type: "integer" } },
 *   required: ["path"],
 * });
 * if (result.kind === "typed") console.log(result.params.map((p) => p.name)); // ["path", "tail"]
 * ```
 */
export function plan(inputSchema: JsonValue): Plan {
  if (!isJsonObject(inputSchema)) {
    return { kind: "whole_value", reason: "the input schema is not an object" };
  }
  const type = own(inputSchema, "type");
  if (type !== undefined && type !== "object") {
    return { kind: "whole_value", reason: 'the input schema\'s "type" is not "object"' };
  }
  const properties = own(inputSchema, "properties");
  if (properties !== undefined && !isJsonObject(properties)) {
    return { kind: "whole_value", reason: 'the input schema\'s "properties" is not an object' };
  }
  const at = reading(inputSchema);
  let read = readType(inputSchema, 0, at);
  const definitions = settle(at.definitions);
  const seen = new Set<string>();
  while (read.kind === "ref" && !seen.has(read.ref)) {
    seen.add(read.ref);
    read = at.definitions.get(read.ref)?.type ?? structured("its $ref names nothing");
  }
  const typed = (params: Plan & { kind: "typed" }): Plan =>
    definitions.length === 0 ? params : { ...params, definitions };
  switch (read.kind) {
    case "object":
      return typed(
        read.additional === undefined
          ? { kind: "typed", params: read.properties }
          : { kind: "typed", params: read.properties, additional: read.additional },
      );
    case "map":
      return typed({ kind: "typed", params: [], additional: read.values });
    case "any_object":
      // A top level that lists `properties`, even none, names its parameters.
      if (properties !== undefined) return typed({ kind: "typed", params: [] });
      return {
        kind: "whole_value",
        reason: "the input schema names no properties and accepts any object",
      };
    case "structured":
      return { kind: "whole_value", reason: ofRoot(read.reason, "input") };
    default:
      return { kind: "whole_value", reason: `the input schema is ${describe(read)}` };
  }
}

/**
 * Reads a raw `outputSchema` as the type of a result's `structuredContent`:
 * `none` when there is no schema, `untyped` when it says nothing a type can
 * (its root is `JsonValue`), and any type otherwise, an object or not.
 *
 * @example Plan the output of a FastMCP tool that returns a list
 * ```ts
 * import { planOutput } from "@loom/mcp/codegen";
 * const result = planOutput({
 *   type: "object",
 *   properties: { result: { type: "array", items: { type: "string" } } },
 *   required: ["result"],
 *   "x-fastmcp-wrap-result": true,
 * });
 * if (result.kind === "typed") console.log(result.wrapped, result.type.kind); // true object
 * ```
 */
export function planOutput(outputSchema: JsonValue | undefined): OutputPlan {
  if (outputSchema === undefined) return { kind: "none" };
  const at = reading(outputSchema);
  let type = readType(outputSchema, 0, at);
  const definitions = settle(at.definitions);
  if (type.kind === "ref" && at.definitions.get(type.ref)?.type.kind === "structured") {
    type = at.definitions.get(type.ref)?.type ?? type;
  }
  if (type.kind === "structured") {
    return { kind: "untyped", reason: ofRoot(type.reason, "output") };
  }
  const wrapped = isJsonObject(outputSchema) &&
    own(outputSchema, "x-fastmcp-wrap-result") === true;
  return { kind: "typed", type, definitions, wrapped };
}
