import assert from "node:assert/strict";
import { isLive } from "../_proc.ts";
import { Terminal, tomlEntry } from "./_cli.ts";

// A server that never answers and ignores SIGTERM: only SIGKILL ends it.
const HUNG = `sh -c "trap '' TERM INT; exec sleep 300"`;

Deno.test("Ctrl-C typed on a terminal while a hung server starts cancels its start and ends the command", async () => {
  const started = performance.now();
  const term = Terminal.start(Deno.cwd(), ["--stdio", HUNG, "--name", "hang", "check"]);
  assert.ok(await term.waitFor(/server info/), term.shown);
  const typed = performance.now();
  await term.type("\x03");
  const code = await term.end();
  const after = performance.now() - typed;
  const shown = term.text();
  assert.equal(code, 130, shown);
  assert.match(
    shown,
    /^interrupted while starting 1 server; cancelling the starts and retiring every server \(Ctrl-C again to stop at once\)$/m,
  );
  assert.match(shown, /^ {2}hang +cancelled +- /m);
  const row = /^ {2}hang +exited +signal SIGKILL +group drained +after sigkill +pid (\d+)$/m.exec(
    shown,
  );
  assert.ok(row !== null, shown);
  assert.equal(isLive(Number(row[1])), false);
  // Cancelled, not waited out: the default connect deadline is 60 s.
  assert.ok(after < 30_000, `the command ended ${after} ms after Ctrl-C`);
  assert.ok(performance.now() - started < 60_000);
});

Deno.test("Ctrl-C typed during run's call names what it stopped, and the call as cancelled", async () => {
  const dir = await Deno.makeTempDir({ prefix: "loom-run-int-" });
  try {
    await Deno.writeTextFile(
      `${dir}/p.ts`,
      'import { wait } from "./mcp/slow.ts";\nawait wait({ ms: 600000 });\nexport default 1;\n',
    );
    await Deno.writeTextFile(
      `${dir}/loom.toml`,
      tomlEntry("slow", "slow_tool.ts", 'stderr = "forward"'),
    );
    const term = Terminal.start(dir, ["--catalog", "loom.toml", "run", "p.ts", "--deadline", "5m"]);
    // The server says so on its forwarded stderr once the program's call reached it.
    assert.ok(await term.waitFor(/\[slow\] waiting/), term.shown);
    await term.type("\x03");
    const code = await term.end();
    const shown = term.text();
    assert.equal(code, 130, shown);
    // The terminal's Ctrl-C reaches the sandbox too: whichever heard it first, it is named so.
    assert.match(
      shown,
      /^interrupted while (?:running p\.ts; retiring every server|retiring every server) \(Ctrl-C again/m,
    );
    assert.match(shown, /^error: the program was interrupted \(Ctrl-C\) and stopped$/m);
    assert.match(shown, /^ {2}slow\.wait +cancelled by Ctrl-C +/m);
    assert.doesNotMatch(shown, /call_timed_out|starting 1 server/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
