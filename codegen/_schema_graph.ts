/**
 * The shape of a prepared schema as a graph of subschemas: its cycles that
 * consume no part of a value, its longest chain evaluated at one place, and
 * the negative keywords (`not`, `if`, `oneOf`, a bounded `contains`) above a
 * constraint that was taken out, which then go too.
 *
 * @module
 */

import type { JsonObject } from "../codec/json.ts";

/** One subschema below another: under which keyword, and whether at the same place of the value. */
export type Edge = { to: object; keyword: string; inPlace: boolean };

/** Where the in-place edges close a cycle, as the pointer of a node on it. */
export function inPlaceCycle(
  edges: ReadonlyMap<object, Edge[]>,
  pointers: ReadonlyMap<object, string>,
): string | undefined {
  const state = new Map<object, 1 | 2>();
  for (const start of edges.keys()) {
    if (state.has(start)) continue;
    const stack: [object, number][] = [[start, 0]];
    state.set(start, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as [object, number];
      const next = (edges.get(top[0]) ?? []).filter((edge) => edge.inPlace)[top[1]++];
      if (next === undefined) {
        state.set(top[0], 2);
        stack.pop();
      } else if (state.get(next.to) === 1) {
        return pointers.get(next.to) ?? "";
      } else if (!state.has(next.to)) {
        state.set(next.to, 1);
        stack.push([next.to, 0]);
      }
    }
  }
  return undefined;
}

function isNegative(edge: Edge, owner: object): boolean {
  if (edge.keyword === "not" || edge.keyword === "if" || edge.keyword === "oneOf") return true;
  return edge.keyword === "contains" && Object.hasOwn(owner, "maxContains");
}

// Where taking a constraint out could fail a good value, takes out the whole
// negative keyword above it, and returns the nodes still under one.
export function settleNegatives(
  edges: Map<object, Edge[]>,
  loosened: ReadonlySet<object>,
  pointers: ReadonlyMap<object, string>,
  unchecked: string[],
): Set<object> {
  const owners = new Map<object, object[]>();
  for (const [owner, list] of edges) {
    for (const edge of list) owners.set(edge.to, [...(owners.get(edge.to) ?? []), owner]);
  }
  // Every node from which a loosened node can be reached.
  const tainted = new Set<object>();
  const stack = [...loosened];
  while (stack.length > 0) {
    const node = stack.pop() as object;
    if (tainted.has(node)) continue;
    tainted.add(node);
    stack.push(...(owners.get(node) ?? []));
  }
  for (const [owner, list] of edges) {
    const node = owner as JsonObject;
    const drop = new Set<string>();
    for (const edge of list) {
      if (isNegative(edge, owner) && tainted.has(edge.to)) drop.add(edge.keyword);
    }
    if (drop.size === 0) continue;
    for (const keyword of drop) {
      if (keyword === "oneOf" && !Object.hasOwn(node, "anyOf")) node.anyOf = node.oneOf ?? null;
      if (keyword === "if") {
        delete node.then;
        delete node.else;
      }
      delete node[keyword === "contains" ? "maxContains" : keyword];
      unchecked.push(
        `the "${keyword}" at ${pointers.get(owner) || "/"}, since a part of it is not checked`,
      );
    }
    edges.set(
      owner,
      list.flatMap((edge) =>
        !drop.has(edge.keyword) || edge.keyword === "contains"
          ? [edge]
          : edge.keyword === "oneOf" && node.anyOf !== undefined
          ? [{ ...edge, keyword: "anyOf" }]
          : []
      ),
    );
  }
  const under: object[] = [];
  for (const [owner, list] of edges) {
    for (const edge of list) if (isNegative(edge, owner)) under.push(edge.to);
  }
  const reached = new Set<object>(under);
  while (under.length > 0) {
    for (const edge of edges.get(under.pop() as object) ?? []) {
      if (!reached.has(edge.to)) {
        reached.add(edge.to);
        under.push(edge.to);
      }
    }
  }
  return reached;
}

// The longest chain of subschemas evaluated at one place of the value (the
// in-place edges form no cycle by now).
export function longestInPlace(edges: ReadonlyMap<object, Edge[]>): number {
  const memo = new Map<object, number>();
  const longest = (start: object): number => {
    const stack: [object, number][] = [[start, 0]];
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as [object, number];
      const list = (edges.get(top[0]) ?? []).filter((edge) => edge.inPlace);
      const next = list[top[1]++];
      if (next === undefined) {
        memo.set(top[0], Math.max(0, ...list.map((edge) => 1 + (memo.get(edge.to) ?? 0))));
        stack.pop();
      } else if (!memo.has(next.to)) stack.push([next.to, 0]);
    }
    return memo.get(start) ?? 0;
  };
  let most = 0;
  for (const node of edges.keys()) most = Math.max(most, longest(node));
  return most;
}
