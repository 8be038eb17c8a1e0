import assert from "node:assert/strict";
import { argv, catalogFolder, cli, fixture, inCatalog, tomlEntry } from "./_cli.ts";

Deno.test("--connect-timeout bounds a hung ad hoc server's start, says which servers it waits for, and names itself", async () => {
  const run = await cli(Deno.cwd(), ["--stdio", "sleep 300", "--connect-timeout", "4", "check"]);
  assert.equal(run.code, 1, run.stderr);
  assert.match(
    run.stderr,
    /^waiting for "sleep" to start \(3 s so far; its deadline: 4 s, set by --connect-timeout; Ctrl-C cancels\)$/m,
  );
  const error = /^error: .*$/m.exec(run.stdout)?.[0] ?? "";
  assert.match(
    error,
    /^error: server "sleep" failed to start: Server "sleep" did not answer initialize within 4000 ms /,
  );
  assert.match(
    error,
    /; check that its command starts an MCP server on stdio, or raise the deadline with --connect-timeout \(its [\d.]+ s include stopping it, which took a SIGTERM\)$/,
  );
  assert.doesNotMatch(error, /connect_timeout_ms|catalog entry|…/);
});

Deno.test("--timeout raises a catalog server's call deadline; the deadline's message names the table's key and the flag", async () => {
  const dir = await Deno.makeTempDir({ prefix: "loom-deadlines-" });
  try {
    await Deno.writeTextFile(
      `${dir}/loom.toml`,
      tomlEntry("echo", "echo_server.ts", "call_timeout_ms = 300"),
    );
    const [short, raised, adHoc] = await Promise.all([
      cli(dir, ["loom.toml", "call", "echo", "sleep", "ms=1500"]),
      cli(dir, ["loom.toml", "call", "echo", "sleep", "ms=1500", "--timeout", "20s"]),
      cli(dir, [
        "--stdio",
        fixture("echo_server.ts"),
        "call",
        "echo",
        "sleep",
        "ms=1500",
        "--timeout",
        "300ms",
      ]),
    ]);
    assert.equal(short.code, 1, short.stderr);
    assert.equal(
      short.stderr.split("\n").at(-2),
      'error: server "echo" did not answer tools/call within 300 ms; raise the deadline with call_timeout_ms in [mcp.echo] of loom.toml, or pass --timeout',
    );
    assert.equal(raised.code, 0, raised.stderr);
    assert.equal(raised.stdout, "slept 1500 ms\n");
    assert.equal(adHoc.code, 1, adHoc.stderr);
    assert.equal(
      adHoc.stderr.split("\n").at(-2),
      'error: server "echo" did not answer tools/call within 300 ms; raise the deadline with --timeout',
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("run --deadline is the program's deadline, and a program past it is said to be so", async () => {
  const dir = await Deno.makeTempDir({ prefix: "loom-deadline-" });
  try {
    await Deno.writeTextFile(
      `${dir}/p.ts`,
      'import { sleep } from "./mcp/echo.ts";\nawait sleep({ ms: 20000 });\nexport default 1;\n',
    );
    const run = await cli(dir, [
      "--stdio",
      fixture("echo_server.ts"),
      "run",
      "p.ts",
      "--deadline",
      "2s",
    ]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stderr,
      /^error: the program ran past its deadline of 2 s and was stopped; give it longer with run --deadline \(such as --deadline 2m\)$/m,
    );
    assert.match(run.stderr, /^ {2}echo\.sleep +cancelled at the run's deadline +/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--connect-timeout given for a catalog server is named alone, never the key the entry lacks", async () => {
  const dir = await catalogFolder("loom-knob-flag-", tomlEntry("silent", "silent.ts"));
  try {
    const run = await inCatalog(dir, ["check", "--connect-timeout", "4s"]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /its deadline: 4 s, set by --connect-timeout; Ctrl-C cancels\)$/m);
    const error = /^error: .*$/m.exec(run.stdout)?.[0] ?? "";
    assert.match(error, /, or raise the deadline with --connect-timeout(?: \(|$)/);
    assert.doesNotMatch(run.stdout + run.stderr, /connect_timeout_ms/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the default connect deadline is called the default, with the flag and the key that raise it", async () => {
  const dir = await catalogFolder("loom-knob-default-", tomlEntry("silent", "silent.ts"));
  try {
    const [command, ...args] = argv(["--catalog", "loom.toml", "check"]);
    const child = new Deno.Command(command as string, {
      args,
      cwd: dir,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).spawn();
    const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    // The waiting line comes at 3 s; the command is interrupted once it is seen.
    while (!/^waiting for .*$/m.test(seen)) {
      const { done, value } = await lines.read();
      if (done) break;
      seen += value;
    }
    child.kill("SIGINT");
    while (true) {
      const { done, value } = await lines.read();
      if (done) break;
      seen += value;
    }
    assert.equal((await child.status).code, 130, seen);
    assert.match(
      seen,
      /^waiting for "silent" to start \(3 s so far; its deadline: 60 s, the default \(raise it with --connect-timeout, or set connect_timeout_ms in \[mcp\.silent\] of loom\.toml\); Ctrl-C cancels\)$/m,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a tools/list past --timeout at boot is said to be that deadline's, with the flag that raises it", async () => {
  const run = await cli(Deno.cwd(), [
    "--stdio",
    fixture("unlisted.ts"),
    "--name",
    "unlisted",
    "--timeout",
    "1s",
    "tools",
  ]);
  assert.equal(run.code, 1, run.stderr);
  const error = /^error: .*$/m.exec(run.stderr)?.[0] ?? "";
  assert.equal(
    error,
    'error: server "unlisted" failed to list: Server "unlisted" did not answer tools/list within ' +
      "1000 ms, the deadline of each request (set by --timeout); raise it with --timeout",
  );
});
