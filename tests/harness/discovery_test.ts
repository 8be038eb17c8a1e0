// The surface within its budget, the search and describe, made from boot
// reports in process (tests/harness/_reports.ts): every block when they fit,
// otherwise the smallest blocks whole beside an index of the rest that
// always fits, the same bytes for the same listings.

import assert from "node:assert/strict";
import { ToolIndex } from "../../harness/_discovery.ts";
import { renderSurface } from "../../harness/_surface.ts";
import {
  DEFAULT_SURFACE_BUDGET_BYTES,
  MAX_SERVER_NOTE_CHARS,
  MIN_SURFACE_BUDGET_BYTES,
} from "../../harness/limits.ts";
import type { ServerReport } from "../../harness/types.ts";
import { MAX_SEARCH_LIMIT, MAX_SEARCH_QUERY_CHARS } from "../../runner/host/limits.ts";
import { groupTools, LISTING_GROUPS, listingGroup } from "../fixtures/_listings.ts";
import { infoOf, listingReports, readyReport } from "./_reports.ts";

const encoder = new TextEncoder();
const bytes = (text: string): number => encoder.encode(text).length;
const REPORTS = listingReports();

function ready(report: ServerReport | undefined): ServerReport & { state: "ready" } {
  assert.ok(report?.state === "ready");
  return report;
}

/** The names the index shows for a server: those of the lines after its server line. */
function shownNames(surface: string, server: string): string[] {
  const lines = surface.split("\n");
  const start = lines.findIndex((line) => line.startsWith(`// mcp/${server}.ts `));
  assert.ok(start >= 0, `no line for ${server}`);
  const names: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith("//   ")) break;
    // Names, then perhaps "… N more".
    for (const word of line.slice(5).split("…")[0]?.split(" ") ?? []) {
      if (/^[A-Za-z_$][\w$]*,?$/.test(word)) names.push(word.replace(/,$/, ""));
    }
  }
  return names;
}

Deno.test("the surface holds every ready server's block when they fit the budget", () => {
  const reports = listingReports([listingGroup("github"), listingGroup("git")]);
  const index = new ToolIndex(reports, DEFAULT_SURFACE_BUDGET_BYTES);
  const modules = new Map([...reports.values()].map((r) => [r.name, ready(r).generated]));
  assert.equal(index.indexed, false);
  assert.equal(index.surface, renderSurface(modules));
});

Deno.test("past the budget the surface is an index that fits it, however small", async (t) => {
  for (const budget of [MIN_SURFACE_BUDGET_BYTES, 6_000, 8_192, 16_384, 32_768, 65_536]) {
    await t.step(`${budget} bytes`, () => {
      const index = new ToolIndex(REPORTS, budget);
      assert.equal(index.indexed, true);
      assert.ok(bytes(index.surface) <= budget, `${bytes(index.surface)} > ${budget}`);
      assert.match(index.surface, /import \{ search, describe \} from "\.\/tools\.ts";/);
    });
  }
});

Deno.test("the index has a line per server with its module, tool count and own description", () => {
  const index = new ToolIndex(REPORTS, DEFAULT_SURFACE_BUDGET_BYTES);
  assert.ok(index.whole.length < LISTING_GROUPS.length);
  for (const group of LISTING_GROUPS) {
    if (index.whole.includes(group.name)) continue;
    const count = ready(REPORTS.get(group.name)).generated.manifest.size;
    const line = `// mcp/${group.name}.ts (server "${group.name}", ${count} tools): ` +
      group.instructions;
    assert.ok(index.surface.includes(`${line}\n`), `no line ${line}`);
  }
});

Deno.test("past the budget the smallest servers are shown whole and the rest indexed", () => {
  const index = new ToolIndex(REPORTS, DEFAULT_SURFACE_BUDGET_BYTES);
  const sizes = new Map(
    LISTING_GROUPS.map((g) => [g.name, bytes(ready(REPORTS.get(g.name)).generated.surface)]),
  );
  assert.ok(index.whole.length > 0, "no server is whole: the test shows nothing");
  // Whole servers are the smallest, their blocks there as they are, in catalog order.
  const largestWhole = Math.max(...index.whole.map((name) => sizes.get(name)!));
  const catalog = LISTING_GROUPS.map((g) => g.name);
  assert.deepEqual(index.whole, catalog.filter((name) => index.whole.includes(name)));
  for (const name of catalog) {
    const block = ready(REPORTS.get(name)).generated.surface.trimEnd();
    if (index.whole.includes(name)) {
      assert.ok(index.surface.includes(block), `${name}'s block is not whole`);
      // Its block opens with its module line; no index line repeats it.
      const opened: number = index.surface.split(`// mcp/${name}.ts (server`).length - 1;
      assert.equal(opened, 1, `${name} is indexed too`);
    } else {
      assert.ok(sizes.get(name)! >= largestWhole, `${name} is smaller than a whole server`);
      assert.ok(index.surface.includes(`// mcp/${name}.ts (server "${name}"`), `${name}: no line`);
    }
  }
  // The discovery text says which servers are whole.
  const said = index.surface.replace(/\n\/\/ /g, " ");
  assert.ok(said.includes(`shown whole below (${index.whole.join(", ")})`), said.slice(0, 2000));
});

Deno.test("one large server costs its own detail, not the small servers' theirs", () => {
  const small = ["git", "databases"].map((name) => listingGroup(name));
  const large = listingGroup("aws");
  const reports = listingReports([...small, large]);
  const budget = DEFAULT_SURFACE_BUDGET_BYTES;
  const blocks = small.map((g) => ready(reports.get(g.name)).generated.surface);
  assert.ok(bytes(ready(reports.get("aws")).generated.surface) > budget);
  const index = new ToolIndex(reports, budget);
  assert.equal(index.indexed, true);
  assert.deepEqual(index.whole, ["git", "databases"]);
  for (const block of blocks) assert.ok(index.surface.includes(block.trimEnd()));
  assert.match(index.surface, /\/\/ mcp\/aws\.ts \(server "aws", 63 tools\)/);
  assert.ok(bytes(index.surface) <= budget);
});

Deno.test("the index names each server's tools in its listing's order, in turns across servers", () => {
  const index = new ToolIndex(REPORTS, 8_192);
  let truncated = 0;
  for (const group of LISTING_GROUPS) {
    if (index.whole.includes(group.name)) continue;
    const report = ready(REPORTS.get(group.name));
    const byWire = new Map([...report.generated.manifest].map(([name, wire]) => [wire, name]));
    const listed = report.tools.map((tool) => byWire.get(tool.name)).filter((name) => !!name);
    const shown = shownNames(index.surface, group.name);
    // Every server shows some, and what it shows is the start of its listing.
    assert.ok(shown.length > 0, `${group.name} shows no tool`);
    assert.deepEqual(shown, listed.slice(0, shown.length), group.name);
    if (shown.length < listed.length) {
      truncated++;
      assert.ok(
        index.surface.includes(`… ${listed.length - shown.length} more`),
        `${group.name}: no count of the rest`,
      );
    }
  }
  assert.ok(truncated > 0, "the budget cut no server's list: the test shows nothing");
});

Deno.test("an index is the same bytes for the same listings", () => {
  const again = new ToolIndex(listingReports(), DEFAULT_SURFACE_BUDGET_BYTES);
  assert.equal(again.surface, new ToolIndex(REPORTS, DEFAULT_SURFACE_BUDGET_BYTES).surface);
});

Deno.test("an index of more servers than the budget holds lines for counts the rest", () => {
  const tools = groupTools(listingGroup("git")).slice(0, 2) as never[];
  const long = "A server that describes itself at great length. ".repeat(10);
  const reports = new Map<string, ServerReport>();
  for (let i = 0; i < 256; i++) {
    const name = `server-${String(i).padStart(3, "0")}`;
    reports.set(name, readyReport(name, tools, infoOf(name, long)));
  }
  const index = new ToolIndex(reports, MIN_SURFACE_BUDGET_BYTES);
  assert.ok(bytes(index.surface) <= MIN_SURFACE_BUDGET_BYTES, String(bytes(index.surface)));
  const shown = index.surface.split("\n").filter((line) => line.startsWith("// mcp/server-"));
  assert.ok(shown.length > 0 && shown.length < 256, String(shown.length));
  assert.match(
    index.surface,
    new RegExp(`// and ${256 - shown.length} more servers with ${2 * (256 - shown.length)} tools`),
  );
});

Deno.test("a server's description is its instructions' first line, made inert and capped", () => {
  const hostile = "@ts-nocheck Files\u202e and more " + "x".repeat(300) + "\nSecond line";
  const reports = new Map<string, ServerReport>([
    ...REPORTS,
    // A large listing, so that the server is indexed, never whole.
    ["odd", readyReport("odd", groupTools(listingGroup("aws")) as never[], infoOf("odd", hostile))],
  ]);
  const index = new ToolIndex(reports, DEFAULT_SURFACE_BUDGET_BYTES);
  const line = index.surface.split("\n").find((each) => each.startsWith("// mcp/odd.ts "));
  assert.ok(line !== undefined);
  const note = line.slice(line.indexOf("): ") + 3);
  assert.ok(note.startsWith("＠ts-nocheck Files and more xxx"), note);
  assert.ok(note.endsWith("…") && Array.from(note).length === MAX_SERVER_NOTE_CHARS, note);
  assert.ok(!index.surface.includes("Second line"));
});

Deno.test("a server without instructions is described by its serverInfo", () => {
  const reports = new Map<string, ServerReport>([
    ...REPORTS,
    ["plain", readyReport("plain", groupTools(listingGroup("aws")) as never[])],
  ]);
  const index = new ToolIndex(reports, DEFAULT_SURFACE_BUDGET_BYTES);
  assert.match(index.surface, /\/\/ mcp\/plain\.ts \(server "plain", 63 tools\): plain 1\.0\.0\n/);
});

Deno.test("search() returns the best matches with each one's exact surface line", () => {
  const index = new ToolIndex(REPORTS, DEFAULT_SURFACE_BUDGET_BYTES);
  const found = index.search("comment on an existing GitHub issue", { limit: 3 });
  assert.equal(found.length, 3);
  const [best] = found;
  assert.ok(best !== undefined);
  assert.deepEqual(
    { server: best.server, tool: best.tool, name: best.name },
    { server: "github", tool: "add_issue_comment", name: "add_issue_comment" },
  );
  const surface = ready(REPORTS.get("github")).generated.surface.split("\n");
  for (const match of found) {
    const block = ready(REPORTS.get(match.server)).generated.surface.split("\n");
    assert.ok(block.includes(match.line), match.line);
  }
  assert.ok(surface.includes(best.line));
  assert.ok(found.every((match, i) => i === 0 || match.score <= (found[i - 1]?.score ?? 0)));
});

Deno.test("search() names a tool by its function's name where it differs from the wire's", () => {
  const index = new ToolIndex(REPORTS, DEFAULT_SURFACE_BUDGET_BYTES);
  const found = index.search("append paragraphs as block children to a Notion page", { limit: 5 });
  const match = found.find((each) => each.tool === "API-patch-block-children");
  assert.ok(match !== undefined, JSON.stringify(found));
  assert.equal(match.name, "API_patch_block_children");
  assert.ok(match.line.startsWith("API_patch_block_children(args: "));
});

Deno.test("search() refuses a query or a limit out of bounds", async (t) => {
  const index = new ToolIndex(REPORTS, DEFAULT_SURFACE_BUDGET_BYTES);
  await t.step("a query that is not a string", () => {
    assert.throws(() => index.search(42 as unknown as string), TypeError);
  });
  await t.step("a query past the cap", () => {
    assert.throws(() => index.search("x".repeat(MAX_SEARCH_QUERY_CHARS + 1)), RangeError);
  });
  for (const limit of [0, -1, 1.5, MAX_SEARCH_LIMIT + 1]) {
    await t.step(`limit ${limit}`, () => {
      assert.throws(() => index.search("read a file", { limit }), RangeError);
    });
  }
  await t.step("an empty query finds nothing", () => {
    assert.deepEqual(index.search(""), []);
  });
});

Deno.test("describe() gives a tool's whole block: its import, its types, its function", () => {
  const index = new ToolIndex(REPORTS, DEFAULT_SURFACE_BUDGET_BYTES);
  const block = index.describe("notes", "list_notes");
  assert.ok(block.ok, JSON.stringify(block));
  const text = block.value;
  assert.ok(text.startsWith('// import { list_notes } from "./mcp/notes.ts";\n'), text);
  // The aliases its result names, and the one they name in turn, before it.
  assert.ok(text.indexOf("export type Author = ") < text.indexOf("export function list_notes("));
  assert.ok(text.includes("export type Note = "));
  assert.match(text, /List notes, a page at a time\./);
  const source = ready(REPORTS.get("notes")).generated.source;
  const fn = text.slice(text.indexOf("/**\n * List Notes"));
  assert.ok(source.includes(fn), "the function is not as the module declares it");
});

Deno.test("describe() takes the function's name and the wire name alike", () => {
  const index = new ToolIndex(REPORTS, DEFAULT_SURFACE_BUDGET_BYTES);
  const byWire = index.describe("notion", "API-post-page");
  const byName = index.describe("notion", "API_post_page");
  assert.ok(byWire.ok && byName.ok);
  assert.equal(byWire.value, byName.value);
  assert.ok(byWire.value.startsWith('// import { API_post_page } from "./mcp/notion.ts";'));
});

Deno.test("describe() refuses an unknown server, an unknown tool and a failed server", async (t) => {
  const reports = new Map<string, ServerReport>([...REPORTS, ["down", {
    state: "failed",
    name: "down",
    failure: {
      stage: "start",
      error: { kind: "transport_failed", message: "it exited", stderrTail: "" },
    },
    message: "it exited",
    stderrTail: "",
    elapsedMs: 0,
  } as ServerReport]]);
  const index = new ToolIndex(reports, DEFAULT_SURFACE_BUDGET_BYTES);
  await t.step("unknown server", () => {
    const denied = index.describe("githib", "create_issue");
    assert.ok(!denied.ok && denied.error.kind === "unknown_server");
    assert.match(denied.error.message, /did you mean github\?/);
  });
  await t.step("unknown tool", () => {
    const denied = index.describe("github", "create_isue");
    assert.ok(!denied.ok && denied.error.kind === "unknown_tool");
    assert.deepEqual(denied.error.suggestions, ["create_issue"]);
  });
  await t.step("failed server", () => {
    const denied = index.describe("down", "anything");
    assert.ok(!denied.ok && denied.error.kind === "server_failed");
  });
});
