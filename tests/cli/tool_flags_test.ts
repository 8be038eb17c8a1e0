// --allow-tool and --deny-tool govern what a command may reach, as a
// catalog's lists do: a tool left out is counted (not listed) by `tools`,
// and a call to it is refused in the words of the flag that left it out; a
// flag naming a server the source lacks is a usage error, and one naming a
// tool its server does not list is a warning. A long call's progress is
// the status line of a terminal, and is not asked for when piped.

import assert from "node:assert/strict";
import { catalogFolder, GOVERNED_TOML, inCatalog, Terminal, tomlEntry } from "./_cli.ts";
import { EXIT_OK, EXIT_USAGE } from "../../cli/exit_codes.ts";

function project(): Promise<string> {
  return catalogFolder("loom-flags-", GOVERNED_TOML + tomlEntry("long", "long_server.ts"));
}

Deno.test("--deny-tool leaves a tool out of tools and refuses a call to it, naming the flag", async () => {
  const dir = await project();
  try {
    const listed = await inCatalog(dir, ["tools", "gov", "--deny-tool", "gov.delete_all"]);
    assert.equal(listed.code, EXIT_OK, listed.stderr);
    assert.match(listed.stdout, /^gov \(mcp\/gov\.ts, 6 tools; 1 left out by --deny-tool\)$/m);
    assert.doesNotMatch(listed.stdout, /delete_all/);
    const called = await inCatalog(dir, [
      "call",
      "gov",
      "delete_all",
      "--deny-tool",
      "gov.delete_all",
    ]);
    assert.equal(called.code, EXIT_USAGE, called.stderr);
    assert.match(
      called.stderr,
      /--deny-tool gov\.delete_all leaves out tool "delete_all" of "gov"; drop that flag to call it/,
    );
    // Without the flag, the same call goes through.
    const plain = await inCatalog(dir, ["call", "gov", "delete_all"]);
    assert.equal(plain.code, EXIT_OK, plain.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--allow-tool exposes only the tools it names and says how to reach another", async () => {
  const dir = await project();
  try {
    const listed = await inCatalog(dir, ["tools", "gov", "--allow-tool", "gov.echo", "--json"]);
    assert.equal(listed.code, EXIT_OK, listed.stderr);
    const [server] = JSON.parse(listed.stdout).servers;
    assert.deepEqual(server.tools.map((tool: { name: string }) => tool.name), ["echo"]);
    assert.ok(server.leftOut.includes("delete_all"));
    const called = await inCatalog(dir, ["call", "gov", "count", "--allow-tool", "gov.echo"]);
    assert.equal(called.code, EXIT_USAGE, called.stderr);
    assert.match(
      called.stderr,
      /--allow-tool names only "echo" of "gov", which leaves out tool "count" of "gov"; add --allow-tool gov\.count to call it/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a flag naming a server the source lacks is refused; a tool no server lists is a warning", async () => {
  const dir = await project();
  try {
    const unknown = await inCatalog(dir, ["tools", "--allow-tool", "nosuch.echo"]);
    assert.equal(unknown.code, EXIT_USAGE, unknown.stderr);
    assert.match(
      unknown.stderr,
      /--allow-tool "nosuch\.echo" names the server "nosuch", but .* has no such server; its servers: gov, long/,
    );
    const typo = await inCatalog(dir, ["tools", "gov", "--deny-tool", "gov.delete_al"]);
    assert.equal(typo.code, EXIT_OK, typo.stderr);
    assert.match(typo.stderr, /^warning: .*delete_al.*--deny-tool/m);
    assert.equal(typo.stderr.match(/delete_al\b/g)?.length, 1, typo.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a long call's progress is said on a terminal's stderr and not asked for when piped", async () => {
  const dir = await catalogFolder("loom-flood-", tomlEntry("flood", "progress_flood.ts"));
  try {
    // Piped, nothing would show it: the server is given no token to report to.
    const piped = await inCatalog(dir, ["call", "flood", "flood", "count=3"]);
    assert.equal(piped.code, EXIT_OK, piped.stderr);
    assert.match(piped.stdout, /flooded 3 \(token null\)/);
    assert.doesNotMatch(piped.stderr, /flood\.flood:/);
    const term = Terminal.start(dir, [
      "--catalog",
      "loom.toml",
      "call",
      "flood",
      "flood",
      "count=3",
    ]);
    assert.equal(await term.end(), EXIT_OK, term.text());
    assert.match(term.text(), /flood\.flood: \d of 3/);
    assert.match(term.text(), /flooded 3 \(token \d+\)/);
    // --quiet asks for none on a terminal either.
    const quiet = Terminal.start(dir, [
      "--catalog",
      "loom.toml",
      "call",
      "flood",
      "flood",
      "count=3",
      "-q",
    ]);
    assert.equal(await quiet.end(), EXIT_OK, quiet.text());
    assert.match(quiet.text(), /flooded 3 \(token null\)/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
