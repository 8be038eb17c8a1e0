/**
 * The checks the checker's process makes of its own while nobody asks it
 * anything, once it said `ready`: programs written as the program
 * convention has a model write them (arrays and promises, objects and maps,
 * strings and JSON, narrowing on content blocks, the cap's errors, the
 * discovery of `tools.ts`, and a program the check refuses), against a
 * module shaped as the generator writes one.
 *
 * Why: TypeScript's checker builds its types anew for every check, but V8
 * keeps the code it compiled for it, and a path of the checker first taken
 * runs cold. The warm-up before `ready` takes only the paths of a program
 * that declares a number; a model's first program then paid for the rest.
 * With a second of idle after `ready`, a first program using array methods,
 * destructuring and a `Map` took 88 to 112 ms to check, and 41 to 44 once
 * these checks ran; the check `Runner.prepare` sends 34 to 35 against 13
 * to 16; the process holds 6 to 10 MiB more a second after, about 1 at 30 s
 * (`bench/checker_first_check.ts`, BENCHMARKS.md, eighth pass).
 *
 * Idle only: the checks (about 100, 55, 45 and 30 ms of a core, in order)
 * start {@linkcode WARM_IDLE_MS} after the last request's answer and run one
 * after another, each its own task, never while a request waits, so a
 * request arriving during one waits for that one alone, and the rest wait
 * for the next idle spell. Run at the first idle spell, they are over before
 * a first program comes in most harnesses; one that sends its checks right
 * after `ready` (a program sent while its servers started) finds the
 * process as before.
 *
 * @module
 */

import { CAP_SOURCE, TOOLS_SOURCE } from "../../_generated/sandbox_sources.ts";

/** Milliseconds without a request before the warm-up checks start: 50. */
export const WARM_IDLE_MS = 50;

/** Milliseconds between two warm-up checks, for a request to be read between them: 1. */
export const WARM_STEP_GAP_MS = 1;

// A module as the generator writes one (a structured tool, a plain one).
const MODULE = `import { invoke, type ToolResult } from "@loom/mcp/cap";

/** Adds the numbers. */
export function sum(args: {
  "values": number[];
}): Promise<ToolResult<{
  "total"?: number;
}>> {
  return invoke("warm", "sum", args, { structured: true });
}

/** Finds the items of a kind. */
export function find_items(args: {
  "kind": "file" | "note";
  "tags"?: string[];
  "limit"?: number;
}): Promise<ToolResult<{
  "items": {
    "id": number;
    "name": string;
    "tags"?: string[];
    "size"?: number;
  }[];
  "next"?: string;
}>> {
  return invoke("warm", "find_items", args, { structured: true });
}

/** Says the text back. */
export function echo(args: {
  "text": string;
  "times"?: number;
}): Promise<ToolResult> {
  return invoke("warm", "echo", args);
}
`;

/** The warm-up programs, each checked once; the last is refused (its diagnostics are the path). */
export const WARM_PROGRAMS: readonly string[] = [
  `import { echo, find_items, sum } from "./mcp/warm.ts";
const words = ["alpha", "beta", "gamma"];
const echoed = await Promise.all(words.map((word) => echo({ text: word })));
const texts = echoed.map((result) => result.text).filter((text) => text.length > 0);
const longest = texts.reduce((best, text) => text.length > best.length ? text : best, "");
const found = texts.find((text) => text.startsWith("a")) ?? texts[0];
const sorted = [...texts].sort((a, b) => a.localeCompare(b)).slice(0, 2);
const total = await sum({ values: texts.map((text) => text.length) });
const { items } = (await find_items({ kind: "note", tags: ["a"] })).structuredContent;
const large = items.filter((item) => (item.size ?? 0) > 10).map(({ id, name }) => \`\${id}:\${name}\`);
export default {
  large,
  longest,
  found,
  sorted,
  total: total.structuredContent.total ?? 0,
  any: texts.some((text) => text.includes("x")),
};
`,
  `import { echo } from "./mcp/warm.ts";
type Row = { name: string; size: number; tags?: string[] };
const rows: Row[] = [{ name: "a", size: 1 }, { name: "b", size: 2, tags: ["x"] }];
const byName = new Map<string, Row>(rows.map((row) => [row.name, row]));
const tags = new Set(rows.flatMap((row) => row.tags ?? []));
const counts: Record<string, number> = {};
for (const row of rows) counts[row.name] = (counts[row.name] ?? 0) + row.size;
const summary = Object.entries(counts)
  .map(([name, count]) => \`\${name.toUpperCase()}=\${count.toFixed(1)}\`)
  .join(", ");
const parsed = JSON.parse((await echo({ text: JSON.stringify(rows) })).text) as Row[];
const { name, ...rest } = parsed[0] ?? { name: "none", size: 0 };
console.log(summary.padStart(20), name, rest, [...tags], byName.get("a")?.size);
export default {
  summary,
  names: Object.keys(counts),
  when: new Date(0).toISOString(),
  matched: /a(b)?/.exec(summary)?.[1] ?? null,
};
`,
  `import { McpCallError, McpToolError } from "@loom/mcp/cap";
import { describe, search } from "./tools.ts";
import { echo } from "./mcp/warm.ts";
async function attempt(text: string): Promise<string | undefined> {
  try {
    const result = await echo({ text, times: 2 });
    const parts: string[] = [];
    for (const block of result.content) {
      if (block.type === "text") parts.push(block.text);
      else if (block.type === "resource_link") parts.push(block.uri);
    }
    return parts.join("\\n");
  } catch (error) {
    if (error instanceof McpToolError) return \`failed: \${error.text}\`;
    if (error instanceof McpCallError) return \`denied: \${error.code}\`;
    throw error;
  }
}
const hits = await search("echo text", { limit: 3 });
const block = hits.length > 0 ? await describe(hits[0]!.server, hits[0]!.tool) : "";
const outcomes = await Promise.allSettled(["a", "b"].map((text) => attempt(text)));
const kept = outcomes.flatMap((outcome) => outcome.status === "fulfilled" && outcome.value ? [outcome.value] : []);
export default { kept, block: block.length, lines: hits.map((hit) => hit.line) };
`,
  `import { echo, sum } from "./mcp/warm.ts";
const result = await sum({ values: ["1", 2] });
const text: number = (await echo({ txt: "a" })).text;
export default result.structuredContent.total.toFixed(2) + text;
`,
];

/** The files of one warm-up check, as the runner sends a program's, and those it vouches for. */
export function warmCheck(program: string): { files: [string, string][]; vouched: string[] } {
  return {
    files: [
      ["program.ts", program],
      ["cap.ts", CAP_SOURCE],
      ["tools.ts", TOOLS_SOURCE],
      ["mcp/warm.ts", MODULE],
    ],
    vouched: ["cap.ts", "tools.ts", "mcp/warm.ts"],
  };
}

/**
 * Runs the warm-up checks one at a time while the process is idle (see the
 * module doc). `check` makes one; what it throws is ignored. It waits on
 * `Atomics.waitAsync`, not `setTimeout`: the first timer of a process loads
 * the runtime's timer modules, which this process otherwise never needs.
 */
export class IdleWarmup {
  #check: (program: string) => void;
  #left: string[];
  // Bumped by every busy(): a wait armed before it wakes to nothing.
  #generation = 0;
  #armed = false;
  #cell = new Int32Array(new SharedArrayBuffer(4));

  constructor(check: (program: string) => void, programs: readonly string[] = WARM_PROGRAMS) {
    this.#check = check;
    this.#left = [...programs];
  }

  /** How many warm-up checks are still to run. */
  get left(): number {
    return this.#left.length;
  }

  /**
   * Nothing is asked now: once {@linkcode WARM_IDLE_MS} pass without a
   * request, the checks left run one after another, a task each, so that a
   * request read between two stops them.
   */
  idle(): void {
    if (this.#armed || this.#left.length === 0) return;
    this.#armed = true;
    this.#after(WARM_IDLE_MS, this.#generation);
  }

  #after(ms: number, generation: number): void {
    const wake = () => {
      if (generation !== this.#generation) return;
      const program = this.#left.shift();
      if (program === undefined) {
        this.#armed = false;
        return;
      }
      try {
        this.#check(program);
      } catch {
        // A warm-up that throws warms nothing; the process's answers are unaffected.
      }
      this.#after(WARM_STEP_GAP_MS, generation);
    };
    const waited = Atomics.waitAsync(this.#cell, 0, 0, ms);
    if (waited.async) void waited.value.then(wake);
    else queueMicrotask(wake);
  }

  /** A request came: no warm-up check runs until {@linkcode IdleWarmup.idle} is called again. */
  busy(): void {
    this.#generation++;
    this.#armed = false;
  }
}
