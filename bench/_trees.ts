// Private to the benches: the checkouts a bench compares, this one first and
// the one `--against DIR` names, each a path ending in "/", and the order a
// round takes them in (alternating, so neither always goes first).

/** This checkout's root, as a path ending in "/". */
export const HERE: string = new URL("../", import.meta.url).pathname;

/** This checkout, then `against` when given. */
export function treesAgainst(against: string | undefined): string[] {
  return against === undefined ? [HERE] : [HERE, against.endsWith("/") ? against : `${against}/`];
}

/** `trees` in the order round `round` takes them. */
export function inTurn<T>(trees: readonly T[], round: number): T[] {
  return round % 2 === 0 ? [...trees] : [...trees].reverse();
}
