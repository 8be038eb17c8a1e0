// A server's log messages: server-everything's simulated ones, the level
// asked of a server in each era, a message's data cut past its limit, a
// flood rationed; and the worker's gate under an injected clock.

import assert from "node:assert/strict";
import { Census } from "../../client/census.ts";
import { Client } from "../../client/client.ts";
import type { LogEntry } from "../../client/logs.ts";
import { NoticeGate } from "../../client/worker/notices.ts";
import { LOG_LEVELS } from "../../codec/server_requests.ts";
import {
  LOG_MESSAGE_BURST,
  LOG_MESSAGES_PER_SECOND,
  MAX_LOG_DATA_CHARS,
} from "../../settings/limits.ts";
import { everything, fixture } from "./_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

function logServer(era: "legacy" | "modern", extra: Parameters<typeof fixture>[2] = {}) {
  const spec = fixture("logs", "log_server.ts", { era, ...extra });
  return { ...spec, args: [...spec.args, era] };
}

/** Waits for `count` entries, for a bounded number of turns of at most 20 ms each. */
async function awaitEntries(entries: LogEntry[], count: number): Promise<void> {
  for (let turn = 0; turn < 500 && entries.length < count; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "server-everything's simulated log messages reach onLog with the server's name",
  OPENS_CUSTODIAN,
  async () => {
    const entries: LogEntry[] = [];
    const census = Census.prepare([everything()], {
      onLog: (entry) => entries.push(entry),
      logLevel: "debug",
    });
    const client = census.clients.get("everything") as Client;
    try {
      assert.ok((await client.connect()).ok);
      const toggled = await client.callTool("toggle-simulated-logging", {});
      assert.ok(toggled.ok, JSON.stringify(toggled));
      await awaitEntries(entries, 1);
      const simulated = entries.find((entry) =>
        typeof entry.data === "string" && /level.message/i.test(entry.data)
      );
      assert.ok(simulated !== undefined, JSON.stringify(entries));
      assert.equal(simulated.server, "everything");
      assert.ok(LOG_LEVELS.includes(simulated.level));
    } finally {
      await census.retire();
    }
  },
);

Deno.test("a legacy server is sent logging/setLevel with the spec's level, ahead of any call", async () => {
  const client = new Client(logServer("legacy", { logLevel: "warning" }), { logLevel: "debug" });
  assert.ok((await client.connect()).ok);
  assert.ok((await client.callTool("say", { text: "after" })).ok);
  await client.retire();
  assert.match(client.stderrTail(), /^setLevel warning\ncall say$/m);
});

Deno.test("a modern server is asked the level in every request's _meta", async () => {
  const client = new Client(logServer("modern"), { logLevel: "error" });
  const started = await client.connect();
  assert.ok(started.ok && started.value.era === "modern", JSON.stringify(started));
  assert.ok((await client.callTool("say", { text: "hi" })).ok);
  await client.retire();
  assert.match(client.stderrTail(), /^meta error$/m);
  assert.doesNotMatch(client.stderrTail(), /setLevel/);
});

Deno.test("a server that is asked no level is sent no logging/setLevel", async () => {
  const client = new Client(logServer("legacy"), {});
  assert.ok((await client.connect()).ok);
  await client.retire();
  assert.doesNotMatch(client.stderrTail(), /setLevel/);
});

Deno.test("a log message's level, logger and data reach onLog as the server sent them", async () => {
  const entries: LogEntry[] = [];
  const client = new Client(logServer("legacy"), { onLog: (entry) => entries.push(entry) });
  try {
    assert.ok((await client.connect()).ok);
    assert.ok((await client.callTool("say", { text: "connected" })).ok);
    await awaitEntries(entries, 1);
    // Objects from the wire have no prototype: compared as JSON.
    assert.deepEqual(JSON.parse(JSON.stringify(entries)), [
      { server: "logs", level: "warning", logger: "db", data: { text: "connected" } },
    ]);
  } finally {
    await client.retire();
  }
});

Deno.test("a log message's data past MAX_LOG_DATA_CHARS arrives cut, as the start of its text", async () => {
  const entries: LogEntry[] = [];
  const client = new Client(logServer("legacy"), { onLog: (entry) => entries.push(entry) });
  try {
    assert.ok((await client.connect()).ok);
    assert.ok((await client.callTool("big", {})).ok);
    await awaitEntries(entries, 1);
    const [entry] = entries;
    assert.equal(entry?.cut, true);
    assert.equal((entry?.data as string).length, MAX_LOG_DATA_CHARS);
  } finally {
    await client.retire();
  }
});

Deno.test("a flood of log messages is rationed in the worker, not handed on whole", async () => {
  const entries: LogEntry[] = [];
  const client = new Client(logServer("legacy"), { onLog: (entry) => entries.push(entry) });
  try {
    assert.ok((await client.connect()).ok);
    assert.ok((await client.callTool("flood", {})).ok);
    assert.ok((await client.ping()).ok);
    assert.ok(entries.length >= LOG_MESSAGE_BURST, String(entries.length));
    assert.ok(entries.length < 5_000, String(entries.length));
  } finally {
    await client.retire();
  }
});

Deno.test("a throwing onLog changes nothing of the client", async () => {
  const client = new Client(logServer("legacy"), {
    onLog: () => {
      throw new Error("the handler's own");
    },
  });
  try {
    assert.ok((await client.connect()).ok);
    assert.ok((await client.callTool("say", { text: "x" })).ok);
    assert.ok((await client.ping()).ok);
  } finally {
    await client.retire();
  }
});

Deno.test("NoticeGate passes a burst, drops past it, and counts the dropped on the next", () => {
  let now = 0;
  const gate = new NoticeGate(() => now);
  const message = { level: "info", data: "x" };
  let passed = 0;
  for (let index = 0; index < 1_000; index++) {
    if (gate.take("notifications/message", message) !== null) passed++;
  }
  assert.equal(passed, LOG_MESSAGE_BURST);
  now += 1_000;
  const next = gate.take("notifications/message", message);
  assert.ok(next?.kind === "log" && next.dropped === 1_000 - LOG_MESSAGE_BURST);
  let refilled = 1;
  while (gate.take("notifications/message", message) !== null) refilled++;
  assert.equal(refilled, LOG_MESSAGES_PER_SECOND);
});

Deno.test("NoticeGate leaves other notifications to the host, and refuses a malformed log", () => {
  const gate = new NoticeGate(() => 0);
  assert.equal(gate.take("notifications/progress", {}), undefined);
  assert.equal(gate.take("notifications/message", { level: "loud", data: 1 }), null);
});

Deno.test("Census.prepare() throws TypeError on a log level that is not one", () => {
  assert.throws(() => Census.prepare([], { logLevel: "loud" as never }), TypeError);
});
