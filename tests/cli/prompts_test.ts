// The commands that ask servers for what is not a tool, run as the real
// command line against server-everything: prompts, prompt (its arguments
// checked against the listing), resources, read, and --log-level's lines.

import assert from "node:assert/strict";
import { cli, DENO } from "./_cli.ts";

const EVERYTHING = `${DENO} run -A npm:@modelcontextprotocol/server-everything@2026.8.31 stdio`;

/** The command line with server-everything as its one server, in a fresh folder. */
async function everything(args: readonly string[]) {
  const dir = await Deno.makeTempDir({ prefix: "loom_cli_everything_" });
  try {
    return await cli(dir, ["--stdio", EVERYTHING, "--name", "everything", ...args]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("prompts lists server-everything's four prompts, a required argument starred", async () => {
  const run = await everything(["prompts"]);
  assert.equal(run.code, 0, run.stderr);
  for (const name of ["simple-prompt", "args-prompt", "completable-prompt", "resource-prompt"]) {
    assert.match(run.stdout, new RegExp(name));
  }
  assert.match(run.stdout, /city\* state/);
});

Deno.test("prompt fills a prompt's arguments and prints its messages", async () => {
  const run = await everything(["prompt", "everything", "args-prompt", "city=Lyon"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^\[user\] .*Lyon/m);
});

Deno.test("prompt refuses a required argument left out, naming the arguments it takes", async () => {
  const run = await everything(["prompt", "everything", "args-prompt", "state=Ohio"]);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /needs "city"=\.\.\.; its arguments: city \(required\), state/);
});

Deno.test("resources lists resources and templates, and read prints a text resource", async () => {
  const listed = await everything(["resources", "everything"]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /demo:\/\/resource\/dynamic\/text\/\{resourceId\}.*\(template\)/);
  const read = await everything(["read", "everything", "demo://resource/dynamic/text/1", "--json"]);
  assert.equal(read.code, 0, read.stderr);
  const document = JSON.parse(read.stdout) as { result: { contents: { text?: string }[] } };
  assert.ok(typeof document.result.contents[0]?.text === "string", read.stdout);
});

Deno.test("--log-level prints the server's log messages on stderr, quoted", async () => {
  const run = await everything([
    "--log-level",
    "debug",
    "call",
    "everything",
    "toggle-simulated-logging",
  ]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /^log "everything" \w+: ".*level.message"$/m);
});

Deno.test("--log-level refuses a word that is no level, naming the levels", async () => {
  const run = await everything(["--log-level", "loud", "prompts"]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--log-level "loud" is not a level; write one of debug, info/);
});
