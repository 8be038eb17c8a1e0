// Supervised restart with real subprocesses: a server killed with SIGKILL in
// the middle of a session is retired to evidence, its calls fail at once
// while it is down, and it comes back on a new pid after the backoff; a
// server whose group cannot be checked drained is never replaced.

import assert from "node:assert/strict";
import { Census } from "../../client/census.ts";
import type { Client } from "../../client/client.ts";
import type { GenerationEvent } from "../../client/supervisor.ts";
import { fixture, isLive, runToEnd } from "./_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

function next(client: Client, kind: GenerationEvent["kind"]): Promise<GenerationEvent> {
  return new Promise((resolve) => {
    const stop = client.listen((event) => {
      if (event.kind !== kind) return;
      stop();
      resolve(event);
    });
  });
}

async function whoami(client: Client): Promise<number> {
  const result = await client.callTool("whoami", {});
  assert.ok(result.ok, JSON.stringify(result));
  const block = result.value.content[0];
  assert.ok(block?.type === "text");
  return Number(block.text);
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "a server killed with SIGKILL is retired to evidence, refused while down, and back on a new pid",
  OPENS_CUSTODIAN,
  async () => {
    const spec = fixture("long", "long_server.ts", { restart: { max: 3, backoffMs: 300 } });
    const census = Census.prepare([spec]);
    const client = census.clients.get("long") as Client;
    try {
      assert.ok((await client.connect()).ok);
      const first = await whoami(client);
      assert.equal(first, client.pid);

      const died = next(client, "died");
      const restarted = next(client, "restarted");
      Deno.kill(first, "SIGKILL");
      const death = await died;
      assert.ok(death.kind === "died");
      assert.equal(death.pid, first);
      assert.ok(death.end.ok && death.end.value.kind === "exited", JSON.stringify(death.end));
      assert.equal(death.end.value.signal, "SIGKILL");
      assert.equal(death.end.value.drained, true);
      assert.deepEqual(death.next, { kind: "restart", attempt: 1, max: 3, inMs: 300 });

      // While it is down, a call fails at once, saying when the next attempt is.
      const down = await client.callTool("whoami", {});
      assert.ok(!down.ok && down.error.kind === "unavailable", JSON.stringify(down));
      assert.match(down.error.message, /next attempt to start it is in \d+ ms \(attempt 1 of 3\)/);
      assert.equal(down.error.restart?.attempt, 1);

      const back = await restarted;
      assert.ok(back.kind === "restarted" && back.generation === 2);
      const second = await whoami(client);
      assert.notEqual(second, first);
      assert.equal(second, client.pid);
      assert.ok(!isLive(first));
    } finally {
      const report = await census.retire();
      assert.ok(report.confirmed);
      const generations = report.generations.get("long") ?? [];
      assert.equal(generations.length, 2);
      const [old, current] = generations;
      assert.ok(old?.end?.ok && old.end.value.kind === "exited" && old.end.value.drained === true);
      assert.equal(old.end.value.pid, old.pid);
      assert.equal(old.death?.kind, "unavailable");
      assert.equal(old.next?.kind, "restart");
      assert.ok(current?.start?.ok && current.end?.ok);
    }
  },
);

Deno.test("a client without restart stays dead after its server is killed, its one generation recorded", async () => {
  const census = Census.prepare([fixture("long", "long_server.ts")]);
  const client = census.clients.get("long") as Client;
  try {
    assert.ok((await client.connect()).ok);
    const pid = await whoami(client);
    Deno.kill(pid, "SIGKILL");
    for (let i = 0; i < 200 && client.state === "ready"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(client.state, "dead");
    const down = await client.callTool("whoami", {});
    assert.ok(!down.ok && down.error.kind === "unavailable" && down.error.restart === undefined);
  } finally {
    const report = await census.retire();
    const generations = report.generations.get("long") ?? [];
    assert.equal(generations.length, 1);
    assert.ok(generations[0]?.end?.ok && generations[0].end.value.kind === "exited");
  }
});

Deno.test("a server whose group cannot be checked drained is never replaced, and the report says why", async () => {
  // The harness runs without read access to /proc: the drain is "unknown".
  const root = new URL("../../", import.meta.url).pathname;
  const out = await runToEnd("undrainable_harness.ts", [
    "--allow-run",
    "--allow-env",
    `--allow-read=${root}`,
  ], 30_000);
  const seen = JSON.parse(out.trim().split("\n").at(-1) ?? "{}");
  assert.equal(seen.next.kind, "no_restart", out);
  assert.equal(seen.next.reason, "drain_unknown");
  assert.equal(seen.drained, "unknown");
  assert.equal(seen.state, "dead");
  assert.match(seen.call, /it is not restarted: whether its process group/);
  assert.equal(seen.generations, 1);
});
