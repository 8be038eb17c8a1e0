// Private to harness/: the surface when the servers' blocks do not fit the
// budget. An index that always fits: the program convention, how to
// discover, one line per server (its module path, its name, its tool count,
// a short description in its own words), and as many tool names as the
// budget leaves room for, with the count of the rest.
//
// Which names come first: each server's in the order its listing gives them
// (the one sign of importance a listing carries: servers list their central
// tools first), taken in turns across the servers in catalog order, so that
// every server shows its first tools before any shows its tenth (a model
// needs to know what each server is for before it needs a long list of one
// server's). Nothing else (no clock, no usage count) decides, so the same
// listings under the same budget make the same bytes.
//
// When even one line per server does not fit, the descriptions are cut
// shorter, then left out, then the servers past what fits are counted in
// one closing line: the fixed text is sized so that MIN_SURFACE_BUDGET_BYTES
// always holds it.
//
// Servers whose blocks fit are shown whole before the index lines of the
// rest (`renderMixed`): the smallest blocks first, as many as the budget
// holds with the index of the others, so that one large server costs its own
// detail and not the small servers' theirs. Sizes and catalog order decide,
// so the same listings under the same budget still make the same bytes.

import { sanitizeLine, truncate } from "../codegen/text.ts";
import { PROGRAM_CONVENTION } from "../runner/host/run.ts";
import { TOOLS_SPECIFIER } from "../runner/host/discovery.ts";
import { MAX_SERVER_NOTE_CHARS } from "./limits.ts";

/** One ready server as its index line needs it. */
export type IndexedServer = {
  /** The server's name, which is also its module segment. */
  name: string;
  /** What the server says it is: its instructions or its serverInfo, raw. */
  about: string;
  /** Its callable tools' function names, most useful first. */
  names: readonly string[];
};

const encoder = new TextEncoder();

function bytes(text: string): number {
  return encoder.encode(text).length;
}

/** Words wrapped into comment lines at the column. */
function commentLines(text: string): string[] {
  const lines: string[] = [];
  let line = "//";
  for (const word of text.split(" ")) {
    if (line !== "//" && line.length + 1 + word.length > WRAP_COLUMN) {
      lines.push(line);
      line = "//";
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}

/** The discovery instructions of an index of `servers` and `tools`, `whole` shown in full. */
function discovery(
  servers: number,
  tools: number,
  budget: number,
  whole: readonly string[],
): string {
  const opening = whole.length === 0
    ? [
      `// ${servers} servers with ${tools} tools: more than this surface's ${budget} bytes can show,`,
      "// so each server has one line and tools are named as room allows. To find a tool and",
      "// read its signature, import the discovery functions in a program:",
    ]
    : commentLines(
      `${servers} servers with ${tools} tools: more than this surface's ${budget} bytes can ` +
        `show, so ${whole.length === 1 ? "one server is" : `${whole.length} servers are`} ` +
        `shown whole below (${whole.join(", ")}) and each other server has one line, with ` +
        "tools named as room allows. To find a tool and read its signature, import the " +
        "discovery functions in a program:",
    );
  return [
    ...opening,
    `//   import { search, describe } from "${TOOLS_SPECIFIER}";`,
    '//   await search("what you need, in words", { limit: 5 });',
    "//     // [{ server, tool, name, line, score }], best first: line is its signature",
    '//   await describe("<server>", "<tool or function name>");',
    "//     // its whole block: the signature with every type, the full description",
    "// and call it from its module in the next program, as the naming rule names it:",
    '//   import { <name> } from "./mcp/<server>.ts";',
  ].join("\n");
}

function note(about: string, max: number): string {
  if (max === 0) return "";
  const first = about.split(/\r\n|\r|\n/u).find((line) => line.trim() !== "") ?? "";
  const clean = sanitizeLine(first);
  return clean === "" ? "" : `: ${truncate(clean, max)}`;
}

function serverLine(server: IndexedServer, noteChars: number): string {
  const count = `${server.names.length} tool${server.names.length === 1 ? "" : "s"}`;
  return `// mcp/${server.name}.ts (server "${server.name}", ${count})` +
    note(server.about, noteChars);
}

/** The column a names line wraps at. */
const WRAP_COLUMN = 100;
const NAMES_PREFIX = "//   ";

/** The first `shown` of `names`, and how many more there are, as lines wrapped at the column. */
function namesLine(names: readonly string[], shown: number): string {
  if (shown === 0) return "";
  const rest = names.length - shown;
  const words = names.slice(0, shown).map((name, i) =>
    i < shown - 1 || rest > 0 ? `${name},` : name
  );
  if (rest > 0) words.push(`… ${rest} more`);
  const lines: string[] = [];
  let line = NAMES_PREFIX;
  for (const word of words) {
    if (line !== NAMES_PREFIX && line.length + 1 + word.length > WRAP_COLUMN) {
      lines.push(line);
      line = NAMES_PREFIX;
    }
    line += line === NAMES_PREFIX ? word : ` ${word}`;
  }
  lines.push(line);
  return lines.join("\n");
}

function moreLine(servers: number, tools: number): string {
  return `// and ${servers} more servers with ${tools} tools: search() finds them`;
}

/** The header of every index: the convention and the discovery instructions. */
export function indexHeader(
  servers: number,
  tools: number,
  budget: number,
  whole: readonly string[] = [],
): string {
  return `${PROGRAM_CONVENTION.trimEnd()}\n\n${discovery(servers, tools, budget, whole)}\n`;
}

/** The index of `servers` within `budget` bytes (see the module comment). */
export function renderIndex(servers: readonly IndexedServer[], budget: number): string {
  const tools = servers.reduce((sum, server) => sum + server.names.length, 0);
  const header = indexHeader(servers.length, tools, budget);
  // The fixed text is sized so that the count of the servers always fits.
  const lines = indexLines(servers, budget - bytes(header) - 1, tools) ??
    `${moreLine(servers.length, tools)}\n`;
  return header + "\n" + lines;
}

/** One ready server as a surface past its budget takes it: its index entry and its block. */
export type SurfaceServer = { server: IndexedServer; block: string };

/** A surface past its budget: what it says, and which servers it shows whole. */
export type MixedSurface = { surface: string; whole: readonly string[] };

/**
 * The surface of `servers` (in catalog order) within `budget` bytes when
 * their blocks do not all fit: as many whole blocks as fit beside the index
 * of the others, the smallest first (see the module comment).
 */
export function renderMixed(servers: readonly SurfaceServer[], budget: number): MixedSurface {
  const order = servers.map((entry, i) => ({ i, size: bytes(entry.block) }))
    .sort((a, b) => a.size - b.size || a.i - b.i);
  const total = servers.reduce((sum, entry) => sum + entry.server.names.length, 0);
  let best: MixedSurface = {
    surface: renderIndex(servers.map((entry) => entry.server), budget),
    whole: [],
  };
  const chosen = new Set<number>();
  for (const { i } of order) {
    chosen.add(i);
    if (chosen.size === servers.length) break;
    const whole = servers.filter((_, j) => chosen.has(j));
    const rest = servers.filter((_, j) => !chosen.has(j)).map((entry) => entry.server);
    const names = whole.map((entry) => entry.server.name);
    const header = indexHeader(servers.length, total, budget, names);
    const blocks = whole.map((entry) => entry.block.trimEnd()).join("\n\n") + "\n";
    const room = budget - bytes(header) - 1 - bytes(blocks) - 1;
    // A whole block is worth less than every other server's line and first tool.
    if (room < leastIndexBytes(rest)) break;
    const restTools = rest.reduce((sum, server) => sum + server.names.length, 0);
    const lines = indexLines(rest, room, restTools);
    if (lines === undefined) break;
    best = { surface: `${header}\n${blocks}\n${lines}`, whole: names };
  }
  return best;
}

/** The bytes of an index of `servers` whole: each line with its note, and its first tool. */
function leastIndexBytes(servers: readonly IndexedServer[]): number {
  return servers.reduce((sum, server) => {
    const first = namesLine(server.names, Math.min(1, server.names.length));
    return sum + bytes(serverLine(server, MAX_SERVER_NOTE_CHARS)) + 1 +
      (first === "" ? 0 : bytes(first) + 1);
  }, 0);
}

/** The index lines of `servers` within `room` bytes; undefined if not even the count fits. */
function indexLines(
  servers: readonly IndexedServer[],
  room: number,
  tools: number,
): string | undefined {
  for (const noteChars of [MAX_SERVER_NOTE_CHARS, MAX_SERVER_NOTE_CHARS / 2, 0]) {
    const lines = servers.map((server) => serverLine(server, noteChars));
    const used = lines.reduce((sum, line) => sum + bytes(line) + 1, 0);
    if (used <= room) return withNames(servers, lines, room - used);
  }
  // Not even a line each: as many servers as fit, and a count of the rest.
  const lines: string[] = [];
  let used = 0;
  let shownTools = 0;
  for (const server of servers) {
    const line = serverLine(server, 0);
    const rest = servers.length - lines.length - 1;
    const closing = rest > 0
      ? bytes(moreLine(rest, tools - shownTools - server.names.length)) + 1
      : 0;
    if (used + bytes(line) + 1 + closing > room) break;
    lines.push(line);
    used += bytes(line) + 1;
    shownTools += server.names.length;
  }
  const closing = moreLine(servers.length - lines.length, tools - shownTools);
  if (used + bytes(closing) + 1 > room) return undefined;
  lines.push(closing);
  return lines.join("\n") + "\n";
}

// Names in turns across the servers, each within what is left of the room.
function withNames(servers: readonly IndexedServer[], lines: string[], room: number): string {
  const shown = servers.map(() => 0);
  const full = servers.map((server) => server.names.length === 0);
  let left = room;
  for (let turn = 0; full.some((done) => !done); turn++) {
    servers.forEach((server, i) => {
      if (full[i] || (shown[i] as number) !== turn) return;
      const before = namesLine(server.names, turn);
      const after = namesLine(server.names, turn + 1);
      // A names line costs its newline too, counted once it exists.
      const cost = bytes(after) - bytes(before) + (turn === 0 ? 1 : 0);
      if (cost > left) {
        full[i] = true;
        return;
      }
      left -= cost;
      shown[i] = turn + 1;
      if (turn + 1 === server.names.length) full[i] = true;
    });
  }
  const blocks = servers.map((server, i) => {
    const names = namesLine(server.names, shown[i] as number);
    return names === "" ? lines[i] as string : `${lines[i]}\n${names}`;
  });
  return blocks.join("\n") + "\n";
}
