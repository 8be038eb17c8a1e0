import assert from "node:assert/strict";
import { boot, type Harness } from "../../harness/harness.ts";
import { HOSTILE_TOOLS } from "../fixtures/hostile_tools.ts";
import { fixture, isLive, survivors } from "../client/_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const QUICK = { retirementTimeoutMs: 5_000 };

function text(result: Awaited<ReturnType<Harness["call"]>>): string {
  assert.ok(result.ok, JSON.stringify(result));
  return result.value.content.map((block) => block.type === "text" ? block.text : "").join("");
}

/** Retires every server and asserts each one exited with its process group drained. */
async function retireAll(harness: Harness, codes: Record<string, number> = {}): Promise<void> {
  const report = await harness.retire();
  assert.equal(report.confirmed, true, JSON.stringify([...report.clients]));
  assert.deepEqual([...report.clients.keys()], [...harness.census.clients.keys()]);
  for (const [name, outcome] of report.clients) {
    assert.ok(outcome.ok && outcome.value.kind === "exited", `${name}: ${JSON.stringify(outcome)}`);
    assert.equal(outcome.value.drained, true, `${name}: process group not drained`);
    if (name in codes) assert.equal(outcome.value.code, codes[name], `${name}: exit code`);
    assert.deepEqual(survivors(outcome.value.pid), [], `${name}: a process outlived retirement`);
  }
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "boot() reports a server that fails to start, leaves it out and still retires it",
  OPENS_CUSTODIAN,
  async () => {
    const seen: string[] = [];
    const harness = await boot([
      fixture("echo", "echo_server.ts"),
      fixture("broken", "exit_at_start.ts"),
    ], { ...QUICK, onServer: (report) => seen.push(`${report.name}:${report.state}`) });
    try {
      assert.deepEqual(seen.toSorted(), ["broken:failed", "echo:ready"]);
      assert.deepEqual([...harness.census.clients.keys()], ["echo", "broken"]);
      assert.deepEqual([...harness.reports.keys()], ["echo", "broken"]);
      const broken = harness.reports.get("broken");
      assert.ok(broken?.state === "failed", JSON.stringify(broken));
      assert.equal(broken.failure.stage, "start");
      assert.equal(broken.failure.error.kind, "handshake_failed");
      assert.match(broken.message, /"broken" exited with code 2 before answering initialize/);
      assert.match(broken.stderrTail, /fatal: GITHUB_TOKEN is not set/);
      const echo = harness.reports.get("echo");
      assert.ok(echo?.state === "ready", JSON.stringify(echo));
      assert.deepEqual(
        echo.tools.map((tool) => tool.name).sort(),
        ["add", "big", "echo", "echo_args", "fail", "sleep"],
      );
      assert.deepEqual([...harness.modules.keys()], ["echo"]);
      assert.match(harness.surface, /^A program is one TypeScript module/);
      assert.match(harness.surface, /\/\/ mcp\/echo\.ts \(server "echo", 6 tools\)/);
      assert.doesNotMatch(harness.surface, /broken/);
      const denied = await harness.call("broken", "go", {});
      assert.ok(!denied.ok && denied.error.kind === "server_failed", JSON.stringify(denied));
      assert.equal(denied.error.server, "broken");
      assert.equal(denied.error.cause.stage, "start");
      assert.match(denied.error.message, /it failed at boot/);
      assert.equal(text(await harness.call("echo", "echo", { text: "still here" })), "still here");
      // A program importing its module is told why there is none.
      const run = await harness.run('import { go } from "./mcp/broken.ts";\nawait go({});\n');
      assert.ok(run.outcome.kind === "rejected", JSON.stringify(run.outcome));
      assert.match(
        run.outcome.diagnostics[0]?.message ?? "",
        /^Cannot import "\.\/mcp\/broken\.ts": server "broken" failed at boot \(Server "broken" exited with code 2 before answering initialize[^]*\), so this harness has no module of it \(available: "\.\/mcp\/echo\.ts"\)$/,
      );
    } finally {
      await retireAll(harness, { broken: 2 });
    }
  },
);

Deno.test("boot() with no servers yields a surface saying so", async () => {
  const harness = await boot([], QUICK);
  assert.match(harness.surface, /No MCP server is available/);
  assert.equal(harness.modules.size, 0);
  const denied = await harness.call("echo", "echo", {});
  assert.ok(!denied.ok && denied.error.kind === "unknown_server");
  assert.match(denied.error.message, /known servers: none/);
  await retireAll(harness);
});

Deno.test("harness.call() denies before anything reaches a server", async (t) => {
  const harness = await boot([fixture("echo", "echo_server.ts")], QUICK);
  try {
    const map = new Map([["a", 1]]);
    const cases: {
      name: string;
      server: string;
      tool: string;
      args: unknown;
      kind: string;
      path?: string;
      message: RegExp;
    }[] = [
      {
        name: "a server not in the catalog",
        server: "nowhere",
        tool: "echo",
        args: {},
        kind: "unknown_server",
        message: /Cannot call "nowhere": no such server in the catalog; known servers: echo/,
      },
      {
        name: "a tool the server did not list",
        server: "echo",
        tool: "nope",
        args: {},
        kind: "unknown_tool",
        message: /Cannot call tool "nope": server "echo" did not list it/,
      },
      {
        name: "an inherited property name as a tool",
        server: "echo",
        tool: "constructor",
        args: {},
        kind: "unknown_tool",
        message: /did not list it/,
      },
      {
        name: "an integer past 2^64 - 1, with its path",
        server: "echo",
        tool: "echo_args",
        args: { outer: { n: 2n ** 64n } },
        kind: "invalid_arguments",
        path: "$.outer.n",
        message: /18446744073709551616/,
      },
      {
        name: "a Map, with its path",
        server: "echo",
        tool: "echo_args",
        args: { list: [0, map] },
        kind: "invalid_arguments",
        path: "$.list[1]",
        message: /Map/,
      },
      ...[[1, 2], "text", 7, null, true].map((args) => ({
        name: `arguments that are ${JSON.stringify(args)}`,
        server: "echo",
        tool: "echo_args",
        args,
        kind: "invalid_arguments",
        path: "$",
        message: /the arguments must be an object/,
      })),
      {
        name: "undefined arguments",
        server: "echo",
        tool: "echo_args",
        args: undefined,
        kind: "invalid_arguments",
        path: "$",
        message: /Cannot call tool "echo_args" of "echo"/,
      },
    ];
    for (const c of cases) {
      await t.step(c.name, async () => {
        const result = await harness.call(c.server, c.tool, c.args);
        assert.ok(!result.ok, JSON.stringify(result));
        assert.equal(result.error.kind, c.kind, result.error.message);
        assert.match(result.error.message, c.message);
        if (c.path !== undefined) {
          assert.ok("path" in result.error && result.error.path === c.path, result.error.message);
        }
      });
    }
    await t.step("an integer at 2^64 - 1 crosses exactly", async () => {
      const result = await harness.call("echo", "echo_args", {
        n: 2n ** 64n - 1n,
        m: -(2n ** 63n),
      });
      assert.ok(result.ok, JSON.stringify(result, (_, v) => typeof v === "bigint" ? `${v}n` : v));
      assert.deepEqual({ ...result.value.structuredContent as object }, {
        n: 2n ** 64n - 1n,
        m: -(2n ** 63n),
      });
    });
    await t.step("an isError result is a value, not a denial", async () => {
      const result = await harness.call("echo", "fail", {});
      assert.ok(result.ok && result.value.isError === true, JSON.stringify(result));
    });
  } finally {
    await retireAll(harness);
  }
});

Deno.test("harness.call() matches 200 concurrent calls over 3 servers to their callers", async () => {
  const names = ["one", "two", "three"];
  const harness = await boot(names.map((name) => fixture(name, "echo_server.ts")), QUICK);
  try {
    const calls = Array.from({ length: 200 }, (_, index) => {
      const server = names[index % names.length] as string;
      return index % 2 === 0
        ? harness.call(server, "echo", { text: `${server}#${index}` })
        : harness.call(server, "add", { a: index, b: 0.5 });
    });
    const results = await Promise.all(calls);
    results.forEach((result, index) => {
      const server = names[index % names.length] as string;
      assert.equal(text(result), index % 2 === 0 ? `${server}#${index}` : String(index + 0.5));
    });
  } finally {
    await retireAll(harness);
  }
});

Deno.test("harness.run() runs a program whose calls reach two servers", async () => {
  const harness = await boot(
    ["left", "right"].map((name) => fixture(name, "echo_server.ts")),
    QUICK,
  );
  try {
    const report = await harness.run(
      [
        'import { echo } from "./mcp/left.ts";',
        'import { add } from "./mcp/right.ts";',
        'const [a, b] = await Promise.all([echo({ text: "hi" }), add({ a: 1, b: 2 })]);',
        "console.log(a.text);",
        "export default { text: a.text, sum: b.structuredContent };",
      ].join("\n"),
      { timeoutMs: 30_000 },
    );
    assert.deepEqual(report.outcome, { kind: "returned", value: { text: "hi", sum: { sum: 3 } } });
    assert.deepEqual(report.logs, ["hi"]);
    assert.deepEqual(report.calls.map((call) => `${call.server}.${call.tool}`).sort(), [
      "left.echo",
      "right.add",
    ]);
  } finally {
    await retireAll(harness);
  }
});

Deno.test("boot() starts code mode only when asked, and retire() ends it", async (t) => {
  await t.step("by default, nothing of code mode runs before the first program", async () => {
    const harness = await boot([fixture("echo", "echo_server.ts")], QUICK);
    try {
      assert.deepEqual(harness.runnerStats().checker.state, "idle");
      assert.equal(harness.runnerStats().warm, false);
    } finally {
      await retireAll(harness);
    }
    assert.equal(harness.runnerStats().checker.state, "retired");
  });
  await t.step("with prepareRunner, the checker and a sandbox start at boot", async () => {
    const harness = await boot([fixture("echo", "echo_server.ts")], {
      ...QUICK,
      prepareRunner: true,
    });
    try {
      assert.notEqual(harness.runnerStats().checker.state, "idle");
      assert.equal(harness.runnerStats().warm, true);
      const report = await harness.run(
        'import { add } from "./mcp/echo.ts";\nexport default (await add({ a: 2, b: 3 })).text;',
      );
      assert.deepEqual(report.outcome, { kind: "returned", value: "5" });
      assert.equal(harness.runnerStats().warmRuns, 1);
    } finally {
      await retireAll(harness);
    }
    assert.equal(harness.runnerStats().checker.state, "retired");
    assert.equal(harness.runnerStats().warm, false);
  });
  await t.step("prepareRunner() starts them later, once, and nothing after retire()", async () => {
    const harness = await boot([fixture("echo", "echo_server.ts")], QUICK);
    try {
      assert.equal(harness.runnerStats().checker.state, "idle");
      harness.prepareRunner();
      harness.prepareRunner();
      assert.notEqual(harness.runnerStats().checker.state, "idle");
      assert.equal(harness.runnerStats().waiting, 1);
      const report = await harness.run(
        'import { add } from "./mcp/echo.ts";\nexport default (await add({ a: 2, b: 3 })).text;',
      );
      assert.deepEqual(report.outcome, { kind: "returned", value: "5" });
      assert.equal(harness.runnerStats().warmRuns, 1);
      // One check of every module ahead, then the program's scan and check.
      assert.equal(harness.runnerStats().checker.answered, 3);
    } finally {
      await retireAll(harness);
    }
    harness.prepareRunner();
    assert.equal(harness.runnerStats().checker.state, "retired");
    assert.equal(harness.runnerStats().warm, false);
  });
});

Deno.test("boot() turns hostile tool names and descriptions into a safe module", async () => {
  const harness = await boot([fixture("hostile", "hostile_tools.ts")], QUICK);
  try {
    const report = harness.reports.get("hostile");
    assert.ok(report?.state === "ready", JSON.stringify(report));
    const generated = harness.modules.get("hostile");
    assert.ok(generated !== undefined);
    // Every wire name survives verbatim behind a display identifier.
    assert.deepEqual(
      [...generated.manifest.values()].sort(),
      HOSTILE_TOOLS.map((tool) => tool.name).sort(),
    );
    for (const identifier of generated.manifest.keys()) {
      assert.match(identifier, /^[A-Za-z_][A-Za-z0-9_]*$/);
      assert.ok(!["then", "__proto__", "constructor"].includes(identifier));
    }
    for (const text of [generated.source, harness.surface]) {
      assert.doesNotMatch(text, /[\u2028\u2029\u202e\r]/);
      assert.doesNotMatch(text, /^\s*export const pwned/m);
    }
    // The module compiles, exports only the manifest, and each function reaches its own tool.
    const identifiers = [...generated.manifest.keys()];
    const run = await harness.run(
      [
        'import * as hostile from "./mcp/hostile.ts";',
        `import { ${identifiers.join(", ")} } from "./mcp/hostile.ts";`,
        `const results = await Promise.all([${identifiers.map((id) => `${id}({})`).join(", ")}]);`,
        "export default { names: Object.keys(hostile).sort(), calls: results.map((r) => r.text) };",
      ].join("\n"),
      { timeoutMs: 30_000 },
    );
    assert.equal(run.outcome.kind, "returned", JSON.stringify(run.outcome));
    const value = (run.outcome as { value: { names: string[]; calls: string[] } }).value;
    assert.deepEqual(value.names, identifiers.toSorted());
    assert.deepEqual(
      value.calls.map((call) => (JSON.parse(call) as { name: string }).name),
      identifiers.map((id) => generated.manifest.get(id)),
    );
    const direct = await harness.call("hostile", "x".repeat(1000), {});
    assert.equal(JSON.parse(text(direct)).name, "x".repeat(1000));
    const proto = await harness.call("hostile", "__proto__", { "__proto__": 1 });
    assert.equal(JSON.parse(text(proto)).name, "__proto__");
  } finally {
    await retireAll(harness);
  }
});

Deno.test("boot() retires every server before rethrowing what its onServer threw", async () => {
  // A marker argument (the fixture ignores it) finds the servers' processes in /proc.
  const marker = `loom-marker-${crypto.randomUUID()}`;
  const specs = ["a", "b"].map((name) => {
    const spec = fixture(name, "echo_server.ts");
    return { ...spec, args: [...spec.args, marker] };
  });
  const seen: number[] = [];
  const progress = (): void => {
    seen.push(running(marker).length);
    throw new RangeError("progress output failed");
  };
  await assert.rejects(boot(specs, { ...QUICK, onServer: progress }), {
    name: "RangeError",
    message: "progress output failed",
  });
  assert.equal(seen.length, 2);
  assert.ok(seen.some((count) => count > 0), "the servers were running when onServer was called");
  assert.deepEqual(running(marker), []);
});

/** Live processes whose command line holds `marker`. */
function running(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
      if (cmdline.split("\0").includes(marker) && isLive(Number(entry.name))) {
        pids.push(Number(entry.name));
      }
    } catch {
      // The process ended while the folder was read.
    }
  }
  return pids;
}
