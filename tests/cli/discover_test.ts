// `search <query>` and `describe <server> <tool>`: the harness's discovery
// through the real command line, in text and --json; a tool the flags leave
// out is refused in their words, an unknown one with the closest names.

import assert from "node:assert/strict";
import { catalogFolder, GOVERNED_TOML, inCatalog } from "./_cli.ts";
import { EXIT_OK, EXIT_USAGE } from "../../cli/exit_codes.ts";

function project(): Promise<string> {
  return catalogFolder("loom-discover-", GOVERNED_TOML);
}

Deno.test("search prints the best matches with their surface lines, and --json the same matches", async () => {
  const dir = await project();
  try {
    const found = await inCatalog(dir, ["search", "read", "a", "note"]);
    assert.equal(found.code, EXIT_OK, found.stderr);
    const lines = found.stdout.trimEnd().split("\n");
    assert.match(lines[0] ?? "", /^gov\.read-note {2}\(score \d+\.\d\d\)$/);
    assert.equal(lines[1], "  read_note(args: {}): Promise<ToolResult>  // Reads a note.");
    const json = await inCatalog(dir, ["search", "read a note", "--json"]);
    assert.equal(json.code, EXIT_OK, json.stderr);
    const document = JSON.parse(json.stdout);
    assert.equal(document.query, "read a note");
    assert.equal(document.matches[0].tool, "read-note");
    assert.equal(document.matches[0].name, "read_note");
    assert.deepEqual(document.failed, []);
    // A tool the flags leave out is never found.
    const denied = await inCatalog(dir, [
      "search",
      "delete all",
      "--json",
      "--deny-tool",
      "gov.delete_all",
    ]);
    const tools = JSON.parse(denied.stdout).matches.map((match: { tool: string }) => match.tool);
    assert.ok(!tools.includes("delete_all"), denied.stdout);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("describe prints one tool's block; a tool left out or unknown is a usage error", async () => {
  const dir = await project();
  try {
    const block = await inCatalog(dir, ["describe", "gov", "read-note"]);
    assert.equal(block.code, EXIT_OK, block.stderr);
    assert.match(block.stdout, /^export function read_note\(args: Record<string, never>\)/m);
    assert.match(block.stdout, /invoke\("gov", "read-note", args\)/);
    const json = await inCatalog(dir, ["describe", "gov", "count", "--json"]);
    assert.equal(json.code, EXIT_OK, json.stderr);
    assert.match(JSON.parse(json.stdout).block, /export function count\(/);
    const left = await inCatalog(dir, [
      "describe",
      "gov",
      "delete_all",
      "--deny-tool",
      "gov.delete_all",
    ]);
    assert.equal(left.code, EXIT_USAGE, left.stderr);
    assert.match(left.stderr, /--deny-tool gov\.delete_all leaves out tool "delete_all" of "gov"/);
    const unknown = await inCatalog(dir, ["describe", "gov", "cuont", "--json"]);
    assert.equal(unknown.code, EXIT_USAGE, unknown.stderr);
    const error = JSON.parse(unknown.stdout).error;
    assert.equal(error.kind, "unknown_tool");
    assert.match(error.message, /^Cannot describe tool "cuont": .*did you mean count/);
    // A name close to none still says what the server has, as call says it.
    const far = await inCatalog(dir, ["describe", "gov", "zzzzzz"]);
    assert.equal(far.code, EXIT_USAGE, far.stderr);
    assert.match(far.stderr, /did not list it; its tools: \S.*\bcount\b.*\bread-note\b/);
    const server = await inCatalog(dir, ["describe", "nope", "x"]);
    assert.equal(server.code, EXIT_USAGE);
    assert.match(server.stderr, /no server "nope"/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
