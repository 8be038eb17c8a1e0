// boot() and Census.prepare() refuse what cannot work before anything runs,
// and whatever throws inside boot leaves no server running.

import assert from "node:assert/strict";
import { boot } from "../../harness/harness.ts";
import { Census } from "../../client/census.ts";
import type { Client } from "../../client/client.ts";
import { bootSteps } from "../../harness/_boot_steps.ts";
import type { StdioServerSpec } from "../../settings/mod.ts";
import { fixture, isLive, survivors } from "../client/_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

/** A spec that would leave a file behind if it ever ran. */
function marking(
  name: string,
  marker: string,
  extra: Partial<StdioServerSpec> = {},
): StdioServerSpec {
  return {
    name,
    command: "sh",
    args: ["-c", `touch '${marker}'`],
    env: {},
    inheritEnv: [],
    stderr: "tail",
    ...extra,
  };
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

Deno.test("boot() refuses a server name that cannot be a module segment, spawning nothing", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    for (const name of ["My Server", "GitHub", "../x", "con", "a".repeat(65)]) {
      await t.step(JSON.stringify(name).slice(0, 20), async () => {
        const marker = `${dir}/ran`;
        await assert.rejects(
          boot([marking("ok", marker), marking(name, marker)]),
          (error: Error) => error instanceof TypeError && /server name/.test(error.message),
        );
        assert.equal(await exists(marker), false, "a server was started");
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Census.prepare() refuses env keys no environment can hold", async (t) => {
  const cases: [string, Partial<StdioServerSpec>][] = [
    ["a key with '='", { env: { "A=B": "y" } }],
    ["a key with NUL", { env: { "A\0B": "y" } }],
    ["an empty key", { env: { "": "y" } }],
    ["a value with NUL", { env: { A: "x\0y" } }],
    ["an inherited name with '='", { inheritEnv: ["PATH=x"] }],
  ];
  for (const [name, extra] of cases) {
    await t.step(name, () => {
      assert.throws(
        () => Census.prepare([marking("env", "/nonexistent/never", extra)]),
        (error: Error) => error instanceof TypeError && /env|inheritEnv/.test(error.message),
      );
    });
  }
});

type Step = "connect" | "list" | "generate" | "onServer";

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "boot() retires every server it started when any step throws",
  OPENS_CUSTODIAN,
  async (t) => {
    const real = { ...bootSteps };
    for (const step of ["connect", "list", "generate", "onServer"] as Step[]) {
      await t.step(step, async () => {
        const started: Client[] = [];
        const injected = new Error(`injected at ${step}`);
        // Every step records the client it was given; only the second server's step throws.
        bootSteps.connect = async (client) => {
          started.push(client);
          const outcome = await real.connect(client);
          if (step === "connect" && client.name === "two") throw injected;
          return outcome;
        };
        bootSteps.list = (client, options) => {
          if (step === "list" && client.name === "two") throw injected;
          return real.list(client, options);
        };
        bootSteps.generate = (name, tools, options) => {
          if (step === "generate" && name === "two") throw injected;
          return real.generate(name, tools, options);
        };
        try {
          await assert.rejects(
            boot([fixture("one", "echo_server.ts"), fixture("two", "echo_server.ts")], {
              retirementTimeoutMs: 5_000,
              onServer: (report) => {
                if (step === "onServer" && report.name === "two") throw injected;
              },
            }),
            (error) => error === injected,
          );
        } finally {
          Object.assign(bootSteps, real);
        }
        assert.equal(started.length, 2);
        for (const client of started) {
          assert.equal(client.state, "retired", client.name);
          const pid = client.pid ?? -1;
          assert.ok(pid > 0, `${client.name} was spawned`);
          assert.equal(isLive(pid), false, `${client.name} still runs`);
          assert.deepEqual(survivors(pid), []);
        }
      });
    }
  },
);

Deno.test("boot() refuses bad options before spawning anything", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    const marker = `${dir}/ran`;
    const cases: [string, Record<string, unknown>, typeof Error][] = [
      ["maxSandboxes 0", { maxSandboxes: 0 }, RangeError],
      ["listTimeoutMs -1", { listTimeoutMs: -1 }, RangeError],
      ["an empty capSpecifier", { capSpecifier: "" }, TypeError],
    ];
    for (const [name, options, kind] of cases) {
      await t.step(name, async () => {
        await assert.rejects(boot([marking("ok", marker)], options), kind);
        assert.equal(await exists(marker), false);
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("two retire() at once both confirm the same exit, and nothing survives", async () => {
  const census = Census.prepare([fixture("echo", "echo_server.ts")], {
    retirementTimeoutMs: 5_000,
  });
  const started = await census.connectAll();
  assert.ok(started.get("echo")?.ok);
  const pid = census.clients.get("echo")?.pid ?? -1;
  const [first, second] = await Promise.all([census.retire(), census.retire()]);
  assert.ok(first.confirmed && second.confirmed);
  assert.deepEqual(first.clients.get("echo"), second.clients.get("echo"));
  assert.equal(isLive(pid), false);
  assert.deepEqual(survivors(pid), []);
});

Deno.test("boot() runs a minimal spec { name, command, args } with the documented defaults", async () => {
  const server = new URL("../fixtures/echo_server.ts", import.meta.url).pathname;
  const harness = await boot([{
    name: "echo",
    command: Deno.execPath(),
    args: ["run", "--quiet", "--no-lock", server],
  }]);
  try {
    const report = harness.reports.get("echo");
    assert.equal(report?.state, "ready", JSON.stringify(report));
    const called = await harness.call("echo", "echo", { text: "minimal" });
    assert.ok(called.ok, JSON.stringify(called));
    assert.deepEqual(called.value.content, [{ type: "text", text: "minimal" }]);
  } finally {
    const retired = await harness.retire();
    assert.ok(retired.confirmed, JSON.stringify([...retired.clients]));
  }
});
