/**
 * Values checked against a tool's schemas: the arguments a program or a
 * harness passes against the tool's `inputSchema`, a result's
 * `structuredContent` against its `outputSchema`. Pure: no I/O, and a
 * server's schema is interpreted (by `@cfworker/json-schema`), never compiled
 * to code.
 *
 * Bounded and total: a schema past {@linkcode MAX_CHECKED_SCHEMA_NODES} nodes
 * or {@linkcode MAX_CHECKED_SCHEMA_DEPTH} levels, or one that refers to itself
 * without descending into the value, is not checked, and says so; a check
 * that would take more than its budget of steps (at least
 * {@linkcode MIN_CHECK_STEPS}, {@linkcode CHECK_STEPS_PER_VALUE_NODE} per node
 * of the value) stops and says so; a `pattern` that can take exponential time
 * is never run; a remote `$ref` is never fetched. Nothing throws. What could
 * not be checked is named in the result, which is `partly` or `none` rather
 * than `all`. JSON Schema 2020-12 by default; a schema's `$schema` naming
 * draft-07 (or 04, 06, 2019-09) is read as that draft. `format` is an
 * annotation, as 2020-12 says by default, and is not checked.
 *
 * @module
 */

import type { JsonValue } from "../codec/json.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { format, type OutputUnit, validate } from "./_json_schema.ts";
import {
  Abort,
  type CheckedSchema,
  checkedSchema,
  draftOf,
  type StringCheck,
} from "./checked_schema.ts";
import { issuesOf, type ValueIssue } from "./value_issues.ts";

export { MAX_CHECKED_SCHEMA_DEPTH, MAX_CHECKED_SCHEMA_NODES } from "./checked_schema.ts";
export { MAX_VALUE_ISSUES, type ValueIssue } from "./value_issues.ts";

/** The fewest steps a check may take before it stops, whatever the value's size. */
export const MIN_CHECK_STEPS = 200_000;

/** The further steps a check may take per JSON node of the value. */
export const CHECK_STEPS_PER_VALUE_NODE = 16;

/** The most a `pattern` may cost on one string (its length to the pattern's degree). */
export const MAX_PATTERN_STEPS = 10_000_000;

/** The most all the `pattern` tests of one check may cost together. */
export const MAX_PATTERN_WORK = 100_000_000;

/**
 * The most schema evaluations one check nests inside one another: a value's
 * depth times one more than the schema's longest chain of subschemas at one
 * place. Past it the validator, which recurses, could run out of stack.
 */
export const MAX_CHECK_NESTING = 300;

/** The longest array `uniqueItems` is checked on (it compares every pair). */
export const MAX_UNIQUE_ITEMS = 2_000;

/** The most distinct string rules (`pattern`, `minLength`, `maxLength`) checked in one process. */
export const MAX_STRING_RULES = 4_096;

/** What a check that found nothing wrong checked. */
export type ValueCheck =
  | { checked: "all"; steps: number }
  | { checked: "partly"; steps: number; unchecked: string[] }
  | { checked: "none"; steps: number; reason: string };

/** A value that breaks its schema: the first broken rule, and every one found. */
export type ValueError = {
  kind: "value_invalid";
  /** Where the first broken rule is, as `$.a[3].b`. */
  path: string;
  /** The JSON Schema keyword it breaks (`type`, `required`, `pattern`, ...). */
  rule: string;
  message: string;
  issues: ValueIssue[];
};

/** The JSON Schema drafts a schema can be read as. */
export type Draft = "2020-12" | "2019-09" | "7" | "4";

/** Options of {@linkcode valueValidator}. */
export type ValidatorOptions = {
  /** The draft of a schema with no `$schema`; default `"2020-12"`. */
  draft?: Draft;
  /** Look for every broken rule (the default), or stop at the first. */
  allErrors?: boolean;
};

/** A schema prepared once, to check many values. */
export type ValueValidator = {
  /** What of the schema is never checked, whatever the value. */
  readonly unchecked: readonly string[];
  /** Checks one value; total. */
  validate(value: JsonValue): Result<ValueCheck, ValueError>;
};

type Context = { check: CheckedSchema; patternWork: number; skipped: Set<string> };
let current: Context | undefined;

const ruleNames = new Map<string, string>();

// A string rule becomes a `format` the validator calls with the string; its
// name is ours alone, since every `format` of a server's schema is dropped.
function nameRule(rule: Omit<StringCheck, "name">): string | undefined {
  const key = JSON.stringify([rule.pattern?.source, rule.minLength, rule.maxLength, rule.negative]);
  const known = ruleNames.get(key);
  if (known !== undefined) return known;
  if (ruleNames.size >= MAX_STRING_RULES) return undefined;
  const name = `x-loom-string-rule-${ruleNames.size}`;
  ruleNames.set(key, name);
  format[name] = (text: string) => runRule(rule, text);
  return name;
}

function runRule(rule: Omit<StringCheck, "name">, text: string): boolean {
  const meter = current?.check.meter;
  if (meter !== undefined) {
    meter.steps += 1 + Math.ceil(text.length / 64);
    if (meter.steps > meter.limit) throw new Abort(`the check took more than ${meter.limit} steps`);
  }
  if (rule.minLength !== undefined || rule.maxLength !== undefined) {
    let length = 0;
    for (const _ of text) length++;
    if (rule.minLength !== undefined && length < rule.minLength) return false;
    if (rule.maxLength !== undefined && length > rule.maxLength) return false;
  }
  if (rule.pattern === undefined) return true;
  const cost = text.length ** rule.pattern.degree;
  const work = current?.patternWork ?? 0;
  if (cost > MAX_PATTERN_STEPS || work + cost > MAX_PATTERN_WORK) {
    if (rule.negative) {
      throw new Abort(`the pattern at ${rule.pointer || "/"} is too costly for this value`);
    }
    current?.skipped.add(`the pattern at ${rule.pointer || "/"}, on a string this long`);
    return true;
  }
  if (current !== undefined) current.patternWork += cost;
  return rule.pattern.regex.test(text);
}

type Scan = { nodes: number; keys: number; items: number; depth: number; bigint: boolean };

function scan(value: JsonValue): Scan {
  const out: Scan = { nodes: 0, keys: 0, items: 0, depth: 0, bigint: false };
  const stack: JsonValue[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const node = stack.pop() as JsonValue;
    const depth = depths.pop() as number;
    out.depth = Math.max(out.depth, depth);
    out.nodes++;
    if (typeof node === "bigint") out.bigint = true;
    else if (Array.isArray(node)) {
      out.items = Math.max(out.items, node.length);
      for (const each of node) stack.push(each), depths.push(depth + 1);
    } else if (node !== null && typeof node === "object") {
      const keys = Object.keys(node);
      out.keys = Math.max(out.keys, keys.length);
      for (const key of keys) stack.push(node[key] as JsonValue), depths.push(depth + 1);
    }
  }
  return out;
}

// The validator knows no bigint: an integer past 2^53 is checked as the
// nearest number.
function withNumbers(value: JsonValue): JsonValue {
  if (typeof value === "bigint") return Number(value);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(withNumbers);
  const out: Record<string, JsonValue> = Object.create(null);
  for (const key of Object.keys(value)) out[key] = withNumbers(value[key] as JsonValue);
  return out;
}

/**
 * Prepares a schema to check values against; the preparation is the costly
 * part, so a harness keeps one per tool schema.
 *
 * @example Check a tool's arguments
 * ```ts
 * import { valueValidator } from "@loom/mcp/codegen";
 * const validator = valueValidator({
 *   type: "object",
 *   properties: { path: { type: "string" }, head: { type: "integer", minimum: 1 } },
 *   required: ["path"],
 * });
 * const result = validator.validate({ path: "a.txt", head: 0 });
 * if (!result.ok) console.log(result.error.message); // $.head must be >= 1 (it is 0)
 * ```
 */
export function valueValidator(schema: JsonValue, options: ValidatorOptions = {}): ValueValidator {
  const draft = draftOf(schema, options.draft ?? "2020-12");
  const allErrors = options.allErrors ?? true;
  const strict = checkedSchema(schema, draft, false, nameRule);
  let relaxed: CheckedSchema | string | undefined;
  const unchecked = typeof strict === "string" ? [strict] : strict.unchecked;
  return {
    unchecked,
    validate(value: JsonValue): Result<ValueCheck, ValueError> {
      if (typeof strict === "string") return ok({ checked: "none", steps: 0, reason: strict });
      const seen = scan(value);
      let check: CheckedSchema | string = strict;
      if (strict.usesUniqueItems && seen.items > MAX_UNIQUE_ITEMS) {
        check = relaxed ??= checkedSchema(schema, draft, true, nameRule);
        if (typeof check === "string") return ok({ checked: "none", steps: 0, reason: check });
      }
      if (seen.depth * (check.inPlaceDepth + 1) > MAX_CHECK_NESTING) {
        return ok({
          checked: "none",
          steps: 0,
          reason: `the value nests ${seen.depth} levels deep, too deep to check against this ` +
            `schema within ${MAX_CHECK_NESTING} nested evaluations`,
        });
      }
      return run(check, seen.bigint ? withNumbers(value) : value, value, seen, allErrors);
    },
  };
}

function run(
  check: CheckedSchema,
  instance: JsonValue,
  value: JsonValue,
  seen: Scan,
  allErrors: boolean,
): Result<ValueCheck, ValueError> {
  const meter = check.meter;
  meter.steps = 0;
  meter.limit = MIN_CHECK_STEPS + CHECK_STEPS_PER_VALUE_NODE * seen.nodes;
  meter.keys = seen.keys;
  meter.items = seen.items;
  const outer = current;
  const context: Context = { check, patternWork: 0, skipped: new Set() };
  current = context;
  let units: OutputUnit[];
  try {
    const result = validate(instance, check.root, check.draft, check.lookup, !allErrors);
    if (result.valid) {
      const unchecked = [...check.unchecked, ...context.skipped];
      return ok(
        unchecked.length === 0
          ? { checked: "all", steps: meter.steps }
          : { checked: "partly", steps: meter.steps, unchecked },
      );
    }
    units = result.errors;
  } catch (error) {
    const reason = error instanceof Abort
      ? error.message
      : error instanceof RangeError
      ? "the check grew past what the validator can hold (many alternatives failed at once)"
      : `the validator failed (${error instanceof Error ? error.message : String(error)})`;
    return ok({ checked: "none", steps: meter.steps, reason });
  } finally {
    current = outer;
  }
  const issues = issuesOf(check, value, units);
  const first = issues[0] ?? {
    path: "$",
    rule: units[0]?.keyword ?? "schema",
    message: "$ does not match its schema",
  };
  const more = issues.slice(1).map((issue) => issue.message);
  const message = more.length === 0 ? first.message : `${first.message}; also ${more.join("; ")}`;
  return err({ kind: "value_invalid", path: first.path, rule: first.rule, message, issues });
}

/**
 * Checks one value against a schema, preparing it for this one check.
 *
 * @example Check a result's structured content
 * ```ts
 * import { validateValue } from "@loom/mcp/codegen";
 * const schema = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };
 * const result = validateValue({ n: "3" }, schema);
 * if (!result.ok) console.log(result.error.path, result.error.rule); // $.n type
 * ```
 */
export function validateValue(
  value: JsonValue,
  schema: JsonValue,
  options: ValidatorOptions = {},
): Result<ValueCheck, ValueError> {
  return valueValidator(schema, options).validate(value);
}
