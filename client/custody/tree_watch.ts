// The walk of every live server's process tree while it lives: a bounded
// step of each tree (`ProcessTree.step`) every TREE_SNAPSHOT_MS, the trees
// sharing TREE_READS_PER_TICK files of `/proc` a tick, so that a server that
// keeps thousands of idle children costs the main thread a bounded share of
// a core (BENCHMARKS.md, "Custody's cost").

import type { ProcessTree } from "./process_tree.ts";

/** How often every live server's process tree is walked, in milliseconds: 250. */
export const TREE_SNAPSHOT_MS = 250;

/** Files of `/proc` one tick of the walk reads, all watched trees together. */
export const TREE_READS_PER_TICK = 64;

type Watched = { tree: ProcessTree; rootAlive: () => boolean };
const watched: Watched[] = [];
let timer: ReturnType<typeof setInterval> | undefined;
let turn = 0;

/** One tick: TREE_READS_PER_TICK files shared among the trees, starting from a different one each tick. */
function tick(): void {
  let reads = 0;
  const count = watched.length;
  turn = (turn + 1) % Math.max(1, count);
  for (let index = 0; index < count && reads < TREE_READS_PER_TICK; index++) {
    const entry = watched[(turn + index) % count] as Watched;
    const share = Math.floor((TREE_READS_PER_TICK - reads) / (count - index));
    reads += entry.tree.step(Math.max(3, share), entry.rootAlive());
  }
}

/**
 * Walks `tree` a step every {@linkcode TREE_SNAPSHOT_MS} until the returned
 * function is called. The timer never keeps the process alive.
 */
export function watchTree(tree: ProcessTree, rootAlive: () => boolean): () => void {
  const entry = { tree, rootAlive };
  watched.push(entry);
  if (timer === undefined && tree.blind === false) {
    const interval = setInterval(tick, TREE_SNAPSHOT_MS);
    Deno.unrefTimer(interval);
    timer = interval;
  }
  return () => {
    const index = watched.indexOf(entry);
    if (index !== -1) watched.splice(index, 1);
    if (watched.length === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}
