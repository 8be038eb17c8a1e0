/**
 * Local `$ref`s: resolving a pointer or an anchor within one schema document,
 * the name a definition suggests, the key that tells two definitions of one
 * type apart from two of different types, and the circular definitions no
 * alias can say.
 *
 * @module
 */

import { isJsonObject, type JsonValue } from "../codec/json.ts";
import { type Definition, MAX_SCHEMA_NODES, type ParamType } from "./plan.ts";
import { canonical, own, structured } from "./_combine.ts";
import { sha256Hex } from "./names.ts";

function decodeSegment(raw: string): string {
  let text = raw;
  try {
    text = decodeURIComponent(raw);
  } catch {
    // A malformed escape is read as written.
  }
  return text.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** The node a local `$ref` names: a JSON pointer (`#/$defs/A`) or an `$anchor` (`#a`). */
export function resolveLocal(root: JsonValue, ref: string): JsonValue | undefined {
  if (ref === "#" || ref === "#/") return root;
  if (!ref.startsWith("#/")) return findAnchor(root, decodeSegment(ref.slice(1)));
  let node: JsonValue | undefined = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeSegment(raw);
    if (Array.isArray(node)) node = /^(0|[1-9][0-9]*)$/.test(key) ? node[Number(key)] : undefined;
    else if (isJsonObject(node)) node = own(node, key);
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

function findAnchor(root: JsonValue, anchor: string): JsonValue | undefined {
  const stack: JsonValue[] = [root];
  let visited = 0;
  while (stack.length > 0 && visited++ < MAX_SCHEMA_NODES) {
    const node = stack.pop() as JsonValue;
    // One push per item: spreading a long array into push() overflows the stack.
    if (Array.isArray(node)) { for (const item of node) stack.push(item); }
    else if (isJsonObject(node)) {
      if (own(node, "$anchor") === anchor) return node;
      for (const key of Object.keys(node)) stack.push(node[key] as JsonValue);
    }
  }
  return undefined;
}

// Keywords whose next segment is a name the schema's author chose.
const NAMING = new Set(["$defs", "definitions", "properties", "patternProperties"]);

/**
 * The name a definition suggests for its alias: the last name its pointer
 * passes (`Note` of `#/$defs/Note`, `tags` of `#/properties/tags/items`), or
 * an anchor's name; "" when it passes none (the root, `#/items/0`).
 */
export function nameHint(pointer: string): string {
  if (!pointer.startsWith("#/")) return pointer === "#" ? "" : decodeSegment(pointer.slice(1));
  const segments = pointer.slice(2).split("/").map(decodeSegment);
  let name = "";
  for (let i = 0; i + 1 < segments.length; i++) {
    if (NAMING.has(segments[i] as string)) name = segments[++i] as string;
  }
  return name;
}

// The refs a type names with no object, array or tuple in between: what a
// type alias may not reach itself through.
function immediateRefs(type: ParamType, into: string[]): string[] {
  if (type.kind === "ref") into.push(type.ref);
  else if (type.kind === "union" || type.kind === "intersection") {
    for (const member of type.members) immediateRefs(member, into);
  }
  return into;
}

/**
 * The definitions of a finished reading. One that reaches itself through
 * nothing but refs, unions and intersections (`A: {$ref: A}`) names no
 * value, and would be a circular alias: it becomes `JsonValue`.
 */
export function settle(byRef: ReadonlyMap<string, Definition>): Definition[] {
  const definitions = [...byRef.values()];
  const state = new Map<string, "open" | "done">();
  const looping = new Set<string>();
  const visit = (ref: string, path: string[]): void => {
    if (state.get(ref) === "done") return;
    if (state.get(ref) === "open") {
      for (const each of path.slice(path.indexOf(ref))) looping.add(each);
      return;
    }
    state.set(ref, "open");
    const definition = byRef.get(ref);
    if (definition !== undefined) {
      for (const next of immediateRefs(definition.type, [])) visit(next, [...path, ref]);
    }
    state.set(ref, "done");
  };
  for (const definition of definitions) visit(definition.ref, []);
  for (const definition of definitions) {
    if (looping.has(definition.ref)) {
      definition.type = structured("it is defined by nothing but itself");
    }
  }
  return definitions;
}

// A type with nothing to name: a primitive, a literal, any object, or a list
// or union of these. A ref to one is read in place.
export function isSimple(type: ParamType): boolean {
  switch (type.kind) {
    case "string":
    case "number":
    case "boolean":
    case "null":
    case "literal":
    case "any_object":
    case "structured":
      return true;
    case "union":
      return type.members.every(isSimple);
    case "array":
      return isSimple(type.items);
    default:
      return false;
  }
}

/**
 * The most work the exact keys of one schema's definitions take together: the
 * JSON nodes and characters walked to find what each definition reaches, plus
 * the characters of the keys. An exact key holds everything its definition
 * reaches, so in a schema whose `$ref`s all reach one another each key is the
 * whole schema; the bound keeps a reading linear in the schema's size. Past
 * it a definition is keyed by its pointer and a digest of its whole schema:
 * it is then shared only with the same definition of an identical schema,
 * never with an equal one in a different schema. The real listings under
 * `tests/corpus/servers/` spend at most 25,000 on one schema.
 */
export const MAX_EXACT_KEY_WORK = 262_144;

/** The keys of one schema's definitions: its document and the work spent on them so far. */
export type DefinitionKeys = {
  root: JsonValue;
  work: number;
  /** SHA-256 of the whole document's canonical text, once a key needs it. */
  digest?: string;
};

/** Fresh keys for the definitions of `root`. */
export function definitionKeys(root: JsonValue): DefinitionKeys {
  return { root, work: 0 };
}

/**
 * A text equal for two definitions only when they mean the same type: the
 * target's pointer, its schema and those of every definition it reaches, by
 * pointer; or, once the keys of its schema have spent
 * {@linkcode MAX_EXACT_KEY_WORK}, the pointer and a digest of the whole schema.
 */
export function closureKey(keys: DefinitionKeys, pointer: string): string {
  const exact = keys.work <= MAX_EXACT_KEY_WORK ? exactKey(keys, pointer) : undefined;
  if (exact !== undefined) return exact;
  keys.work = Infinity;
  keys.digest ??= sha256Hex(canonical(keys.root));
  return `${pointer} #${keys.digest}`;
}

// The exact key, or undefined once its work would pass the schema's budget.
function exactKey(keys: DefinitionKeys, pointer: string): string | undefined {
  const { root } = keys;
  const reached = new Set<string>([pointer]);
  const queue = [pointer];
  let work = keys.work;
  for (let next = 0; next < queue.length; next++) {
    const stack: JsonValue[] = [resolveLocal(root, queue[next] as string) ?? null];
    while (stack.length > 0) {
      const node = stack.pop() as JsonValue;
      if (++work > MAX_EXACT_KEY_WORK) return undefined;
      if (typeof node === "string") work += node.length;
      else if (Array.isArray(node)) {
        work += node.length;
        if (work > MAX_EXACT_KEY_WORK) return undefined;
        for (const item of node) stack.push(item);
      } else if (isJsonObject(node)) {
        const ref = own(node, "$ref");
        if (typeof ref === "string" && ref.startsWith("#") && !reached.has(ref)) {
          reached.add(ref);
          queue.push(ref);
        }
        for (const key of Object.keys(node)) {
          work += key.length;
          stack.push(node[key] as JsonValue);
        }
      }
    }
  }
  const parts = [...reached].sort().map((each) => [each, resolveLocal(root, each) ?? null]);
  const key = `${pointer} ${canonical(parts as JsonValue)}`;
  work += key.length;
  if (work > MAX_EXACT_KEY_WORK) return undefined;
  keys.work = work;
  return key;
}
