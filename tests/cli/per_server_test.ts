import assert from "node:assert/strict";
import { catalogFolder, cli, inCatalog, tomlEntry } from "./_cli.ts";

const TWO = tomlEntry("echo", "echo_server.ts") + tomlEntry("quiet", "no_tools.ts");

Deno.test("surface <server> boots only the servers named and prints their surface alone", async () => {
  const dir = await catalogFolder("loom-surface-one-", TWO);
  try {
    const run = await inCatalog(dir, ["surface", "echo"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^echo\(args: \{ text: string \}\)/m);
    assert.doesNotMatch(run.stdout + run.stderr, /quiet/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("surface takes a server name after --catalog, never a second catalog", async () => {
  const dir = await catalogFolder("loom-surface-catalog-", TWO);
  try {
    const run = await cli(dir, ["surface", "--catalog", "loom.toml", "echo"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^echo\(args: \{ text: string \}\)/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tools <server> <server> lists each server named, saying 1 tool in the singular", async () => {
  const dir = await catalogFolder(
    "loom-tools-two-",
    tomlEntry("echo", "echo_server.ts") + tomlEntry("env", "env_server.ts"),
  );
  try {
    const run = await inCatalog(dir, ["tools", "env", "echo", "--quiet"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^echo \(mcp\/echo\.ts, 6 tools\)$/m);
    assert.match(run.stdout, /^env \(mcp\/env\.ts, 1 tool\)$/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a server name that names none is answered with the nearest server's name", async () => {
  const dir = await catalogFolder("loom-tools-guess-", TWO);
  try {
    const run = await inCatalog(dir, ["tools", "ecoh"]);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(
      run.stderr,
      'error: no server "ecoh" in loom.toml; did you mean echo? (its servers: echo, quiet)\n',
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an unknown command is answered with the nearest command", async () => {
  const run = await cli(Deno.cwd(), ["tool", "memory"]);
  assert.equal(run.code, 2, run.stderr);
  assert.equal(
    run.stderr,
    'error: unknown command "tool"; did you mean tools? (run with --help to see the commands)\n',
  );
});

Deno.test("describe of a tool that names none is answered with the tool sharing its word", async () => {
  const dir = await catalogFolder("loom-describe-guess-", TWO);
  try {
    const run = await inCatalog(dir, ["describe", "echo", "args", "--quiet"]);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(
      run.stderr,
      'error: Cannot describe tool "args": server "echo" did not list it; did you mean echo_args?\n',
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
