/**
 * How much of a tool's schemas the generator types: every schema node that
 * constrains its value (it has `type`, `properties`, `items`, `prefixItems`,
 * `enum`, `const`, `anyOf`, `oneOf`, `allOf` or a local `$ref`) is counted,
 * and so is each one the generated module renders as `JsonValue`.
 *
 * The count pairs the schema with the plan by the place in the value each
 * constrains: a node at `$.a[]` is typed when the plan has a type there and
 * no `JsonValue` widens it. Nodes reached through `properties`,
 * `patternProperties`, `additionalProperties`, `items`, `prefixItems`,
 * `additionalItems`, the members of `anyOf`/`oneOf`/`allOf` and local `$ref`s
 * count, each once; what sits under `not`, `if`, `contains` or
 * `propertyNames` shapes no type and is left out.
 *
 * It reads the plan only through `plan` and, where the tree has it,
 * `planOutput` of `codegen/mod.ts`, so the same file measures a tree from
 * before either existed (the output schema is then read as `generate()` read
 * it there).
 *
 * @module
 */

import type { JsonObject, JsonValue } from "../codec/json.ts";
import type { ToolDescriptor } from "../codec/protocol.ts";
import * as codegen from "../codegen/mod.ts";

/** One plan node, read structurally so that older and newer plans both fit. */
type Node = {
  kind: string;
  members?: Node[];
  items?: Node | Node[];
  rest?: Node;
  values?: Node;
  additional?: Node;
  properties?: { name: string; type: Node }[];
  ref?: string;
};

type Definitions = ReadonlyMap<string, Node>;

/** A root plan node with the definitions its refs name. */
type Planned = { type: Node; definitions: Definitions } | undefined;

/** Counts of one side (inputs or outputs) of some tools. */
export type Count = {
  /** Schema nodes that constrain their value. */
  constraining: number;
  /** Of those, the nodes rendered as `JsonValue`. */
  untyped: number;
  /** Top-level schemas that name no properties, are not closed, and take no argument. */
  openReadClosed: number;
  /** Where the first untyped nodes are, as `tool pointer`, at most {@linkcode MAX_EXAMPLES}. */
  untypedAt: string[];
};

/** The counts of one server's tools. */
export type Coverage = { input: Count; output: Count };

const CONSTRAINING = [
  "type",
  "properties",
  "items",
  "prefixItems",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "allOf",
] as const;

/** The most untyped places a count names. */
export const MAX_EXAMPLES = 20;

/** The most walk steps one schema may take; past it the rest counts as untyped. */
export const MAX_WALK_STEPS = 200_000;

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function own(object: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Whether a schema node constrains its value. */
export function constrains(schema: JsonValue): boolean {
  if (!isObject(schema)) return false;
  if (CONSTRAINING.some((keyword) => Object.hasOwn(schema, keyword))) return true;
  const ref = own(schema, "$ref");
  return typeof ref === "string" && ref.startsWith("#");
}

function resolvePointer(root: JsonValue, ref: string): JsonValue | undefined {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let at: JsonValue | undefined = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(at)) at = at[Number(key)];
    else if (isObject(at)) at = own(at, key);
    else return undefined;
  }
  return at;
}

type Segment = "prop" | "item" | "rest" | "items" | "key";

// The plan nodes at one place, refs and unions opened; `wide` when a
// JsonValue member makes the place any value.
function open(types: readonly Node[], definitions: Definitions): { nodes: Node[]; wide: boolean } {
  const nodes: Node[] = [];
  let wide = false;
  const seen = new Set<Node>();
  const visit = (type: Node, inIntersection: boolean): void => {
    if (seen.has(type)) return;
    seen.add(type);
    if (type.kind === "ref") {
      const target = definitions.get(type.ref ?? "");
      if (target === undefined) wide = true;
      else visit(target, inIntersection);
    } else if (type.kind === "union") {
      for (const member of type.members ?? []) visit(member, inIntersection);
    } else if (type.kind === "intersection") {
      for (const member of type.members ?? []) visit(member, true);
    } else if (type.kind === "structured") {
      if (!inIntersection) wide = true;
    } else nodes.push(type);
  };
  for (const type of types) visit(type, false);
  return { nodes, wide };
}

const ANY: Node = { kind: "structured" };

function step(types: readonly Node[], segment: Segment, name: string): Node[] {
  const out: Node[] = [];
  for (const type of types) {
    switch (type.kind) {
      case "object": {
        const found = segment === "prop"
          ? type.properties?.find((param) => param.name === name)
          : undefined;
        if (found !== undefined) out.push(found.type);
        else if ((segment === "prop" || segment === "key") && type.additional !== undefined) {
          out.push(type.additional);
        }
        break;
      }
      case "map":
        if ((segment === "prop" || segment === "key") && type.values) out.push(type.values);
        break;
      case "any_object":
        if (segment === "prop" || segment === "key") out.push(ANY);
        break;
      case "array":
        if (segment !== "prop" && segment !== "key" && type.items && !Array.isArray(type.items)) {
          out.push(type.items);
        }
        break;
      case "tuple": {
        const items = Array.isArray(type.items) ? type.items : [];
        if (segment === "item") {
          const at = items[Number(name)] ?? type.rest;
          if (at !== undefined) out.push(at);
        } else if (segment === "rest" && type.rest !== undefined) out.push(type.rest);
        else if (segment === "items") {
          out.push(...items);
          if (type.rest !== undefined) out.push(type.rest);
        }
        break;
      }
      default:
        break;
    }
  }
  return out;
}

function typesOf(schema: JsonObject): string[] | undefined {
  const type = own(schema, "type");
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((each): each is string => typeof each === "string");
  return undefined;
}

// Whether a node's `type`, if it has one, lets its value be of `kind`.
function admits(schema: JsonObject, kind: string): boolean {
  const types = typesOf(schema);
  return types === undefined || types.includes(kind);
}

const KINDS: Record<string, string[]> = {
  string: ["string"],
  number: ["number", "integer"],
  boolean: ["boolean"],
  null: ["null"],
  array: ["array"],
  tuple: ["array"],
  object: ["object"],
  map: ["object"],
  any_object: ["object"],
};

// Whether a plan node could be the reading of a union member: of a type the
// member allows, and for objects of its shape (named properties, a map, or
// any object).
function matches(root: JsonValue, member: JsonValue, node: Node, depth = 0): boolean {
  if (!isObject(member)) return false;
  const ref = own(member, "$ref");
  if (typeof ref === "string" && ref.startsWith("#") && depth < 8) {
    return matches(root, resolvePointer(root, ref) ?? null, node, depth + 1);
  }
  if (["anyOf", "oneOf", "allOf", "$ref", "enum", "const"].some((k) => Object.hasOwn(member, k))) {
    return true;
  }
  let types = typesOf(member);
  if (types === undefined) {
    if (Object.hasOwn(member, "properties")) types = ["object"];
    else if (Object.hasOwn(member, "items") || Object.hasOwn(member, "prefixItems")) {
      types = ["array"];
    } else return true;
  }
  const allowed = KINDS[node.kind];
  if (allowed === undefined) return true;
  if (!allowed.some((kind) => types.includes(kind))) return false;
  if (!["object", "map", "any_object"].includes(node.kind)) return true;
  const properties = own(member, "properties");
  const named = isObject(properties) && Object.keys(properties).length > 0;
  const extra = own(member, "additionalProperties");
  const mapped = isObject(extra) || isObject(own(member, "patternProperties"));
  if (node.kind === "object") return named || (!mapped && extra === false);
  if (node.kind === "map") return !named && mapped;
  return !named && !mapped;
}

function walk(root: JsonValue, planned: Planned, count: Count, tool: string): void {
  const typed = new Map<string, boolean>();
  const ids = new Map<Node, number>();
  const idOf = (node: Node) => {
    let id = ids.get(node);
    if (id === undefined) ids.set(node, id = ids.size);
    return id;
  };
  const visited = new Set<string>();
  let steps = 0;
  const definitions = planned?.definitions ?? new Map();
  const visit = (schema: JsonValue, pointer: string, types: readonly Node[]): void => {
    if (!isObject(schema) || ++steps > MAX_WALK_STEPS) return;
    const { nodes, wide } = open(types, definitions);
    const key = `${pointer} ${nodes.map(idOf).sort().join(",")} ${wide}`;
    if (visited.has(key)) return;
    visited.add(key);
    const isTyped = !wide && nodes.length > 0;
    if (constrains(schema)) typed.set(pointer, (typed.get(pointer) ?? false) || isTyped);
    const here = isTyped ? nodes : [];
    const child = (value: JsonValue | undefined, at: string, next: Node[]) => {
      if (value !== undefined) visit(value, at, next);
    };
    const escape = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");
    for (const keyword of ["properties", "patternProperties"]) {
      const map = own(schema, keyword);
      if (!isObject(map) || !admits(schema, "object")) continue;
      for (const name of Object.keys(map)) {
        const next = keyword === "properties" ? step(here, "prop", name) : step(here, "key", "");
        child(map[name], `${pointer}/${keyword}/${escape(name)}`, next);
      }
    }
    if (admits(schema, "object")) {
      const extra = own(schema, "additionalProperties");
      child(extra, `${pointer}/additionalProperties`, step(here, "key", ""));
    }
    const items = own(schema, "items");
    const prefix = own(schema, "prefixItems");
    if (!admits(schema, "array")) {
      // `items` beside a type that is not an array constrains nothing.
    } else if (Array.isArray(items)) {
      items.forEach((item, i) => child(item, `${pointer}/items/${i}`, step(here, "item", `${i}`)));
      child(own(schema, "additionalItems"), `${pointer}/additionalItems`, step(here, "rest", ""));
    } else if (Array.isArray(prefix)) {
      prefix.forEach((item, i) =>
        child(item, `${pointer}/prefixItems/${i}`, step(here, "item", `${i}`))
      );
      child(items, `${pointer}/items`, step(here, "rest", ""));
    } else child(items, `${pointer}/items`, step(here, "items", ""));
    for (const keyword of ["anyOf", "oneOf", "allOf"]) {
      const list = own(schema, keyword);
      if (!Array.isArray(list)) continue;
      list.forEach((member, i) => {
        // A union's members share its place: each is paired with the plan
        // nodes of its own shape, so one member's JsonValue does not widen
        // another's.
        const mine = keyword === "allOf"
          ? here
          : here.filter((node) => matches(root, member, node));
        child(member, `${pointer}/${keyword}/${i}`, mine.length > 0 ? mine : here);
      });
    }
    const ref = own(schema, "$ref");
    if (typeof ref === "string" && ref.startsWith("#")) {
      child(resolvePointer(root, ref), ref === "#" ? "" : ref.slice(1), here);
    }
  };
  visit(root, "", planned === undefined ? [] : [planned.type]);
  for (const [pointer, isTyped] of typed) {
    count.constraining++;
    if (isTyped) continue;
    count.untyped++;
    if (count.untypedAt.length < MAX_EXAMPLES) count.untypedAt.push(`${tool} #${pointer}`);
  }
}

type Plan = { kind: string; params?: { name: string; type: Node }[]; additional?: Node };
type Definition = { ref: string; type: Node };
type WithDefinitions = { definitions?: readonly Definition[] };

function definitionsOf(planned: WithDefinitions): Definitions {
  return new Map((planned.definitions ?? []).map((each) => [each.ref, each.type]));
}

function inputPlan(schema: JsonValue): Planned {
  const planned = codegen.plan(schema) as Plan & WithDefinitions;
  if (planned.kind !== "typed") return { type: { kind: "any_object" }, definitions: new Map() };
  const type: Node = { kind: "object", properties: planned.params ?? [] };
  if (planned.additional !== undefined) type.additional = planned.additional;
  return { type, definitions: definitionsOf(planned) };
}

type OutputPlan = { kind: string; type?: Node } & WithDefinitions;
const planOutput = (codegen as unknown as { planOutput?: (schema: JsonValue) => OutputPlan })
  .planOutput;

function outputPlan(schema: JsonValue): Planned {
  if (planOutput !== undefined) {
    const planned = planOutput(schema);
    if (planned.kind !== "typed" || planned.type === undefined) {
      return { type: ANY, definitions: new Map() };
    }
    return { type: planned.type, definitions: definitionsOf(planned) };
  }
  // The reading of generate() before planOutput: untyped unless the schema
  // plans as parameters and names some or is closed.
  const planned = codegen.plan(schema) as Plan;
  const closed = isObject(schema) && schema.additionalProperties === false;
  if (planned.kind !== "typed" || ((planned.params ?? []).length === 0 && !closed)) {
    return { type: ANY, definitions: new Map() };
  }
  return { type: { kind: "object", properties: planned.params ?? [] }, definitions: new Map() };
}

function openReadClosed(schema: JsonValue): boolean {
  if (!isObject(schema) || Object.hasOwn(schema, "properties")) return false;
  if (own(schema, "additionalProperties") === false) return false;
  const planned = codegen.plan(schema) as Plan;
  return planned.kind === "typed" && (planned.params ?? []).length === 0 &&
    planned.additional === undefined;
}

/** Counts the schema nodes of some tools and how many the generator leaves untyped. */
export function schemaCoverage(tools: readonly ToolDescriptor[]): Coverage {
  const input: Count = { constraining: 0, untyped: 0, openReadClosed: 0, untypedAt: [] };
  const output: Count = { constraining: 0, untyped: 0, openReadClosed: 0, untypedAt: [] };
  for (const tool of tools) {
    walk(tool.inputSchema, inputPlan(tool.inputSchema), input, tool.name);
    if (openReadClosed(tool.inputSchema)) input.openReadClosed++;
    if (tool.outputSchema !== undefined) {
      walk(tool.outputSchema, outputPlan(tool.outputSchema), output, tool.name);
    }
  }
  return { input, output };
}
