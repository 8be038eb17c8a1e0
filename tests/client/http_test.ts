import assert from "node:assert/strict";
import { Client } from "../../client/client.ts";
import type { RemoteServerSpec } from "../../settings/mod.ts";
import { serveFixture } from "./_http_servers.ts";
import { OPENS_SUBREAPER } from "../_lifetime.ts";

function remote(url: string, extra: Partial<RemoteServerSpec> = {}): RemoteServerSpec {
  return { name: "remote", url, headers: {}, connectTimeoutMs: 20_000, ...extra };
}

type Stats = Record<string, number> & {
  ran: Record<string, number>;
  calledWith: Record<string, unknown[]>;
};

async function stats(origin: string): Promise<Stats> {
  return await (await fetch(`${origin}/stats`)).json();
}

// The file's first client opens the subreaper's libc handle, kept for good (tests/_lifetime.ts).
Deno.test("a remote SDK v2 server speaks the modern era over HTTP", OPENS_SUBREAPER, async () => {
  const server = await serveFixture("sdk_v2_http.ts");
  try {
    const client = new Client(remote(`${server.origin}/mcp`));
    const started = await client.connect();
    assert.ok(started.ok, JSON.stringify(started));
    assert.equal(started.value.era, "modern");
    assert.equal(started.value.protocolVersion, "2026-07-28");
    const tools = await client.listTools();
    assert.ok(tools.ok, JSON.stringify(tools));
    assert.deepEqual(tools.value.map((t) => t.name).sort(), [
      "add",
      "echo",
      "flaky_read",
      "flaky_write",
      "now",
    ]);
    const called = await client.callTool("add", { a: 2, b: 3 });
    assert.ok(called.ok, JSON.stringify(called));
    assert.deepEqual(called.value.content, [{ type: "text", text: "5" }]);
    const retired = await client.retire();
    assert.deepEqual(retired, {
      ok: true,
      value: { kind: "remote", url: `${server.origin}/mcp`, session: "stateless" },
    });
    const seen = await stats(server.origin);
    assert.equal(seen.legacyRequests, 0);
  } finally {
    await server.close();
  }
});

Deno.test("a remote SDK v2 server pinned to the legacy era keeps a session and deletes it", async () => {
  const server = await serveFixture("sdk_v2_http.ts");
  try {
    const client = new Client(remote(`${server.origin}/mcp`, { era: "legacy" }));
    const started = await client.connect();
    assert.ok(started.ok, JSON.stringify(started));
    assert.equal(started.value.era, "legacy");
    assert.equal(started.value.protocolVersion, "2025-11-25");
    const called = await client.callTool("echo", { text: "hé" });
    assert.ok(called.ok, JSON.stringify(called));
    assert.deepEqual(called.value.content, [{ type: "text", text: "hé" }]);
    const retired = await client.retire();
    assert.ok(retired.ok && retired.value.kind === "remote", JSON.stringify(retired));
    assert.equal(retired.value.session, "deleted");
    const seen = await stats(server.origin);
    assert.equal(seen.opened, 1);
    assert.equal(seen.deleted, 1);
    assert.equal(seen.modernRequests, 0);
  } finally {
    await server.close();
  }
});

Deno.test("a legacy session the server forgot (404) is opened again, and the call goes through", async () => {
  const server = await serveFixture("sdk_v2_http.ts");
  try {
    const client = new Client(remote(`${server.origin}/mcp`, { era: "legacy" }));
    assert.ok((await client.connect()).ok);
    assert.ok((await client.callTool("now", {})).ok);
    await fetch(`${server.origin}/forget`).then((r) => r.body?.cancel());
    const called = await client.callTool("echo", { text: "again" });
    assert.ok(called.ok, JSON.stringify(called));
    assert.deepEqual(called.value.content, [{ type: "text", text: "again" }]);
    const seen = await stats(server.origin);
    assert.equal(seen.opened, 2);
    const retired = await client.retire();
    assert.ok(retired.ok && retired.value.kind === "remote" && retired.value.session === "deleted");
  } finally {
    await server.close();
  }
});

Deno.test("a 2026-07-28 stream broken before its answer: a read-only call is re-issued with a new id, any other never sent again", async () => {
  const server = await serveFixture("sdk_v2_http.ts");
  try {
    const client = new Client(remote(`${server.origin}/mcp`, { era: "modern" }));
    assert.ok((await client.connect()).ok);
    assert.ok((await client.listTools()).ok);
    const read = await client.callTool("flaky_read", {});
    assert.ok(read.ok, JSON.stringify(read));
    assert.deepEqual(read.value.content, [{ type: "text", text: "ran 2" }]);
    const write = await client.callTool("flaky_write", {});
    assert.ok(!write.ok && write.error.kind === "server_error", JSON.stringify(write));
    assert.match(
      write.error.message,
      /tools\/call its event stream ended before its answer; it was not sent again because tool "flaky_write" is not marked read-only or idempotent, so it may or may not have run/,
    );
    const seen = await stats(server.origin);
    assert.deepEqual(seen.ran, { flaky_read: 2, flaky_write: 1 });
    const [first, again] = seen.calledWith.flaky_read ?? [];
    assert.notEqual(first, again, "the re-issued request has an id of its own");
    assert.equal(seen.calledWith.flaky_write?.length, 1);
    // The client goes on.
    assert.ok((await client.callTool("now", {})).ok);
    assert.ok((await client.retire()).ok);
  } finally {
    await server.close();
  }
});

Deno.test("a legacy session hears what belongs to no request on its own GET stream, opened again when it ends", async (t) => {
  // "forget": the server forgets the session (and what it held) after the
  // first touch; the stream is followed again on the session the next call
  // opens, and the subscription and log level are asked for again there.
  for (const mode of ["steady", "once", "forget"]) {
    await t.step(mode, async () => {
      const server = await serveFixture("http_updates.ts", [mode]);
      const client = new Client(
        remote(`${server.origin}/mcp`, { era: "legacy", logLevel: "warning" }),
      );
      try {
        assert.ok((await client.connect()).ok);
        const uri = "file:///watched";
        const updates: string[] = [];
        const subscribed = await client.subscribeResource(uri, (updated) => updates.push(updated));
        assert.ok(subscribed.ok, JSON.stringify(subscribed));
        // Each touch is told on the streams open at that moment: touched
        // until one was, twice (in "once" the second needs a stream opened again).
        for (const want of [1, 2]) {
          for (let turn = 0; turn < 200 && updates.length < want; turn++) {
            const touched = await client.callTool("touch", { uri });
            assert.ok(touched.ok, JSON.stringify(touched));
            if (updates.length < want) await new Promise((resolve) => setTimeout(resolve, 25));
          }
        }
        assert.deepEqual(updates.slice(0, 2), [uri, uri]);
        const { opened, levels } = await (await fetch(`${server.origin}/log`)).json();
        assert.equal(opened >= 2, mode !== "steady", `${opened} GET streams opened`);
        // A session opened again is told the level again, and its subscription is made again.
        assert.deepEqual(
          levels,
          mode === "forget" ? ["session-1 warning", "session-2 warning"] : ["session-1 warning"],
        );
      } finally {
        await client.retire();
        await server.close();
      }
    });
  }
});
