/**
 * The type aliases of one module: the definitions its plans name, the same
 * type once however many tools define it (FastMCP repeats its `$defs` in
 * every tool), at most {@linkcode MAX_TYPE_ALIASES}, each under an identifier
 * of the generator's alphabet. A definition's name is server text: it becomes
 * an identifier only through `identifierFor`, and takes a digest suffix when
 * two aliases, or an alias and a function, would share it.
 *
 * @module
 */

import { DIGEST_SUFFIX_CHARS, identifierFor } from "./names.ts";
import { type Definition, MAX_TYPE_ALIASES, type ParamType } from "./schema.ts";
import { eachPart, type Names } from "./_types.ts";

/** Which plan of a tool a definition belongs to. */
export type Side = "input" | "output";

/** One plan's types and definitions, as the module renders them. */
export type PlannedTypes = {
  /** The tool's identifier, for an alias of the schema's root. */
  identifier: string;
  side: Side;
  /** The types the function's signature renders. */
  types: readonly ParamType[];
  definitions: readonly Definition[];
};

/** One alias to render: its identifier, its definition, and its plan's names. */
export type Alias = { identifier: string; definition: Definition; names: Names };

/** A module's aliases and, per plan in the order given, the names its refs take. */
export type AliasTable = { aliases: Alias[]; names: Names[] };

const HEX = /^[0-9a-f]{8}/;

/**
 * Names the aliases a module's plans reach from their signatures, in the
 * order first reached. `taken` holds the identifiers already minted (the
 * functions). Deterministic for the same listing.
 */
export function nameAliases(
  plans: readonly PlannedTypes[],
  taken: ReadonlySet<string>,
  digest: (s: string) => string,
): AliasTable {
  const byRef = plans.map((planned) => new Map(planned.definitions.map((d) => [d.ref, d])));
  const keyed = new Map<string, { definition: Definition; plan: number }>();
  const order: string[] = [];
  const queue: { type: ParamType; plan: number }[] = [];
  plans.forEach((planned, plan) => planned.types.forEach((type) => queue.push({ type, plan })));
  while (queue.length > 0) {
    const { type, plan } = queue.shift() as { type: ParamType; plan: number };
    eachPart(type, (part) => {
      if (part.kind !== "ref") return;
      const definition = byRef[plan]?.get(part.ref);
      if (definition === undefined || keyed.has(definition.key)) return;
      if (order.length >= MAX_TYPE_ALIASES) return;
      keyed.set(definition.key, { definition, plan });
      order.push(definition.key);
      queue.push({ type: definition.type, plan });
    });
  }
  const hints = order.map((key) => {
    const { definition, plan } = keyed.get(key) as { definition: Definition; plan: number };
    const planned = plans[plan] as PlannedTypes;
    const hint = definition.name !== ""
      ? definition.name
      : `${planned.identifier}_${planned.side === "input" ? "args" : "result"}`;
    return identifierFor(hint);
  });
  const wanted = new Map<string, number>();
  for (const hint of hints) wanted.set(hint, (wanted.get(hint) ?? 0) + 1);
  const used = new Set(taken);
  const identifiers = new Map<string, string>();
  order.forEach((key, i) => {
    const base = hints[i] as string;
    let identifier = base;
    if (wanted.get(base) !== 1 || used.has(base)) {
      const hex = digest(key);
      if (typeof hex !== "string" || !HEX.test(hex)) {
        throw new TypeError(
          "Cannot name a type alias: the digest returned no lowercase hex of 8 characters",
        );
      }
      identifier = `${base}_${hex.slice(0, DIGEST_SUFFIX_CHARS)}`;
      for (let n = 2; used.has(identifier); n++) {
        identifier = `${base}_${hex.slice(0, DIGEST_SUFFIX_CHARS)}_${n}`;
      }
    }
    used.add(identifier);
    identifiers.set(key, identifier);
  });
  const aliases = order.map((key) => {
    const { definition, plan } = keyed.get(key) as { definition: Definition; plan: number };
    return { identifier: identifiers.get(key) as string, definition, names: namesOf(plan) };
  });
  function namesOf(plan: number): Names {
    return (ref) => {
      const definition = byRef[plan]?.get(ref);
      return definition === undefined ? undefined : identifiers.get(definition.key);
    };
  }
  return { aliases, names: plans.map((_, plan) => namesOf(plan)) };
}
