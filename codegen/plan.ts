/**
 * The vocabulary of the schema plan: the planned types, the plans, and the
 * bounds of a reading. `schema.ts` re-exports all of it.
 *
 * @module
 */

/** How many levels of nested schemas below a root (or a definition) are typed before `JsonValue`. */
export const MAX_SCHEMA_DEPTH = 32;

/** The most schema nodes one schema's reading visits; the rest is `JsonValue`. */
export const MAX_SCHEMA_NODES = 10_000;

/** The most type aliases one schema's plan defines, and one module holds; past it a `$ref` is `JsonValue`. */
export const MAX_TYPE_ALIASES = 128;

/** The most items a tuple lists one by one; a longer one is an array of their union. */
export const MAX_TUPLE_ITEMS = 16;

/** The most members an `enum` may list and still be typed as literals. */
export const MAX_ENUM_MEMBERS = 64;

/** The longest string an `enum` or `const` may hold and still be typed as a literal. */
export const MAX_LITERAL_CHARS = 100;

/** The most JSON nodes an object or array `const` (or `enum` member) is typed member by member. */
export const MAX_LITERAL_NODES = 64;

/** A literal value a type can name. */
export type Literal = string | number | bigint | boolean | null;

/** The type of one parameter, or of one part of a parameter. */
export type ParamType =
  | { kind: "string" }
  | { kind: "number" }
  | { kind: "boolean" }
  | { kind: "null" }
  | { kind: "literal"; value: Literal }
  | { kind: "union"; members: ParamType[] }
  | { kind: "intersection"; members: ParamType[] }
  | { kind: "array"; items: ParamType }
  /** The first `required` items must be there; `rest` types any further ones, absent when closed. */
  | { kind: "tuple"; items: ParamType[]; required: number; rest?: ParamType }
  /** Named properties; `additional` types the values of every other key. */
  | { kind: "object"; properties: Param[]; additional?: ParamType }
  | { kind: "map"; values: ParamType }
  | { kind: "any_object" }
  /** A definition of the same plan, by the pointer of its target. */
  | { kind: "ref"; ref: string }
  | { kind: "structured"; reason: string };

/** One named parameter (or member of an object type), under its wire name. */
export type Param = {
  name: string;
  type: ParamType;
  required: boolean;
  description?: string;
  /** What the schema says beyond the type (`integer`, `default: 10`, `pattern: ^a`), server text. */
  notes?: string[];
};

/** A schema part a local `$ref` names, which a module renders as a type alias. */
export type Definition = {
  /** The `$ref` that names it, within its own schema: `#/$defs/Note`, `#`. */
  ref: string;
  /** The name its schema suggests (`Note`), server text; "" for the root. */
  name: string;
  type: ParamType;
  description?: string;
  /** Equal for two definitions exactly when they mean the same type. */
  key: string;
};

/** The reading of one tool's input schema. */
export type Plan =
  | {
    kind: "typed";
    params: Param[];
    /** The values of keys the parameters do not name, when the schema types them. */
    additional?: ParamType;
    /** The definitions the types name, in the order they were met. */
    definitions?: Definition[];
  }
  | { kind: "whole_value"; reason: string };

/** The reading of one tool's output schema. */
export type OutputPlan =
  | { kind: "none" }
  | {
    kind: "typed";
    type: ParamType;
    definitions: Definition[];
    /** FastMCP's `x-fastmcp-wrap-result`: the tool's value is under `result`. */
    wrapped: boolean;
  }
  | { kind: "untyped"; reason: string };
