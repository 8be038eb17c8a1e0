// A remote server that misbehaves at the HTTP level costs the client one
// call at most, never its sockets nor its life, and every failure says its
// cause: each test here is one way of misbehaving, with a loopback server.

import assert from "node:assert/strict";
import { Client } from "../../client/client.ts";
import type { RemoteServerSpec } from "../../settings/mod.ts";
import { MAX_PARAM_HEADER_BYTES } from "../../codec/param_headers.ts";
import { MAX_OPEN_NOTIFICATIONS } from "../../client/transport/http/http_transport.ts";
import { type Served, serveFixture } from "./_http_servers.ts";
import { OPENS_SUBREAPER } from "../_lifetime.ts";

function remote(url: string, extra: Partial<RemoteServerSpec> = {}): RemoteServerSpec {
  return {
    name: "peer",
    url,
    headers: {},
    connectTimeoutMs: 10_000,
    callTimeoutMs: 10_000,
    ...extra,
  };
}

async function withPeer(
  fixture: string,
  mode: string,
  body: (peer: Served) => Promise<void>,
): Promise<void> {
  const peer = await serveFixture(fixture, [mode]);
  try {
    await body(peer);
  } finally {
    await peer.close();
  }
}

/** Waits until `check` holds, or `withinMs` has passed; nothing else tells when sockets close. */
async function settled(check: () => boolean, withinMs: number): Promise<void> {
  const until = performance.now() + withinMs;
  while (!check() && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The established TCP connections to `port` (the peer's), from the kernel's
 * table: the test files running beside this one in the same process open
 * descriptors of their own, so a count of this process's descriptors would
 * be theirs too.
 */
function openSockets(port: number): number {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  let count = 0;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = Deno.readTextFileSync(table);
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // rem_address is "<address>:<port>"; st 01 is ESTABLISHED.
      if (fields[2]?.endsWith(`:${hex}`) && fields[3] === "01") count++;
    }
  }
  return count;
}

// The file's first client opens the subreaper's libc handle, kept for good (tests/_lifetime.ts).
Deno.test(
  "300 cancelled calls to a server that answers neither calls nor cancellations hold no sockets",
  OPENS_SUBREAPER,
  async () => {
    await withPeer("http_peer.ts", "silent_calls", async (peer) => {
      const client = new Client(remote(`${peer.origin}/mcp`));
      assert.ok((await client.connect()).ok);
      assert.ok((await client.listTools()).ok);
      const port = Number(new URL(peer.origin).port);
      const before = openSockets(port);
      for (let round = 0; round < 10; round++) {
        const calls = Array.from(
          { length: 30 },
          () => client.callTool("go", {}, { timeoutMs: 100 }),
        );
        for (const called of await Promise.all(calls)) {
          assert.ok(!called.ok && called.error.kind === "call_timed_out", JSON.stringify(called));
        }
      }
      // Deno closes an aborted fetch's socket a moment later: what is left is
      // at most the notifications still open (each under its own deadline).
      const bound = MAX_OPEN_NOTIFICATIONS + 4;
      await settled(() => openSockets(port) - before <= bound, 5_000);
      const grown = openSockets(port) - before;
      assert.ok(grown <= bound, `${grown} connections more after 300 calls`);
      assert.ok((await client.listTools()).ok, "the client lives on");
      assert.ok((await client.retire()).ok);
    });
  },
);

Deno.test("a notification the server refuses does not end the client", async () => {
  await withPeer("http_peer.ts", "refuse_notifications", async (peer) => {
    const client = new Client(remote(`${peer.origin}/mcp`));
    assert.ok((await client.connect()).ok, "notifications/initialized was refused, and no matter");
    const aborted = new AbortController();
    const called = client.callTool("go", {}, { signal: aborted.signal });
    aborted.abort();
    assert.ok(!(await called).ok);
    const listed = await client.listTools();
    assert.ok(listed.ok, JSON.stringify(listed));
    assert.equal(client.state, "ready");
    assert.ok((await client.retire()).ok);
  });
});

Deno.test("a 200 JSON body answering another id fails the call at once, not at its deadline", async () => {
  await withPeer("http_peer.ts", "wrong_id", async (peer) => {
    const client = new Client(remote(`${peer.origin}/mcp`, { callTimeoutMs: 30_000 }));
    assert.ok((await client.connect()).ok);
    const called = await client.callTool("go", {});
    assert.ok(!called.ok && called.error.kind === "server_error", JSON.stringify(called));
    assert.match(called.error.message, /answered tools\/call with a JSON body for request 10\d\d/);
    assert.ok((await client.listTools()).ok);
    assert.ok((await client.retire()).ok);
  });
});

Deno.test("a header value past MAX_PARAM_HEADER_BYTES is refused here, and the client goes on", async () => {
  await withPeer("raw_http_peer.ts", "modern", async (peer) => {
    const client = new Client(remote(`${peer.origin}/mcp`, { era: "modern" }));
    assert.ok((await client.connect()).ok);
    assert.ok((await client.listTools()).ok);
    const called = await client.callTool("go", { region: "x".repeat(1024 * 1024) });
    // The server refused nothing: the client did not send it.
    assert.ok(!called.ok && called.error.kind === "unavailable", JSON.stringify(called));
    assert.match(
      called.error.message,
      new RegExp(
        `^The client did not send tools/call to server "peer": its Mcp-Param-Region header ` +
          `would be 1048576 bytes, more than ` +
          `${MAX_PARAM_HEADER_BYTES} \\(MAX_PARAM_HEADER_BYTES\\); nothing was sent`,
        "i",
      ),
    );
    const next = await client.callTool("go", { region: "eu-west" });
    assert.ok(next.ok, JSON.stringify(next));
    const log = (await (await fetch(`${peer.origin}/log`)).text()).split("\n");
    assert.deepEqual(log.filter((line) => line.startsWith("tools/call")), ["tools/call go 7"]);
    assert.ok((await client.retire()).ok);
  });
});

Deno.test("a call whose connection is dropped before any answer fails alone", async () => {
  await withPeer("raw_http_peer.ts", "modern", async (peer) => {
    const client = new Client(remote(`${peer.origin}/mcp`, { era: "modern" }));
    assert.ok((await client.connect()).ok);
    const dropped = await client.callTool("drop", {});
    assert.ok(!dropped.ok && dropped.error.kind === "server_error", JSON.stringify(dropped));
    assert.match(dropped.error.message, /connection closed before message completed/);
    assert.match(dropped.error.message, /not marked read-only or idempotent/);
    const next = await client.callTool("go", { region: "eu" });
    assert.ok(next.ok, JSON.stringify(next));
    assert.ok((await client.retire()).ok);
  });
});

Deno.test("a 200 KB WWW-Authenticate is quoted and cut in the message and kept whole in error.http", async () => {
  await withPeer("raw_http_peer.ts", "big_challenge", async (peer) => {
    const client = new Client(remote(`${peer.origin}/mcp`, { era: "modern" }));
    const started = await client.connect();
    assert.ok(!started.ok && started.error.kind === "transport_failed", JSON.stringify(started));
    assert.ok(started.error.message.length < 1_000, `${started.error.message.length} characters`);
    assert.match(started.error.message, /it asks for: "Bearer realm=\\"peer\\", .*…"/);
    // No raw control reaches a message: C1 controls are shown as escapes.
    assert.doesNotMatch(started.error.message, /[\u0080-\u009f]/);
    assert.match(started.error.message, /\\u\{85\}/);
    assert.ok((started.error.http?.wwwAuthenticate?.length ?? 0) > 200_000);
    await client.retire();
  });
});

Deno.test("a response header with a bare CR says so, not only 'fetch failed'", async () => {
  await withPeer("raw_http_peer.ts", "bare_cr", async (peer) => {
    const client = new Client(remote(`${peer.origin}/mcp?key=secret-in-query`, { era: "modern" }));
    const started = await client.connect();
    assert.ok(!started.ok && started.error.kind === "transport_failed", JSON.stringify(started));
    assert.match(started.error.message, /fetch failed: invalid HTTP header parsed/);
    assert.doesNotMatch(started.error.message, /secret-in-query/);
    await client.retire();
  });
});

Deno.test("a redirect to file: or data: names the target's scheme", async (t) => {
  const cases = [["redirect_file", "file:"], ["redirect_data", "data:"]] as const;
  for (const [mode, scheme] of cases) {
    await t.step(scheme, async () => {
      await withPeer("http_peer.ts", mode, async (peer) => {
        const client = new Client(remote(`${peer.origin}/mcp`));
        assert.ok((await client.connect()).ok);
        const called = await client.callTool("go", {});
        assert.ok(!called.ok, JSON.stringify(called));
        assert.match(
          called.error.message,
          new RegExp(`redirected tools/call \\(HTTP 307\\) to a "${scheme}" URL`),
        );
        assert.doesNotMatch(called.error.message, /to null/);
        assert.ok((await client.listTools()).ok, "a refused redirect fails the call alone");
        await client.retire();
      });
    });
  }
});

Deno.test("a DELETE that never answers ends within its own deadline as session unconfirmed", async () => {
  await withPeer("http_peer.ts", "hang_delete", async (peer) => {
    const client = new Client(remote(`${peer.origin}/mcp`));
    assert.ok((await client.connect()).ok);
    const retired = await client.retire({ timeoutMs: 1_000 });
    assert.ok(retired.ok && retired.value.kind === "remote", JSON.stringify(retired));
    assert.equal(retired.value.session, "unconfirmed");
    assert.match(retired.value.message ?? "", /no answer to DELETE within 500 ms/);
  });
});

Deno.test("a session id too long to send is the client's refusal (unavailable), not the server's", async () => {
  await withPeer("reflecting_peer.ts", "long_session", async (peer) => {
    const client = new Client(remote(`${peer.origin}/mcp`));
    assert.ok((await client.connect()).ok);
    const listed = await client.listTools();
    assert.ok(!listed.ok && listed.error.kind === "unavailable", JSON.stringify(listed));
    assert.equal(listed.error.cause, "http_failed");
    assert.match(
      listed.error.message,
      new RegExp(
        `^The client did not send tools/list to server "peer": its Mcp-Session-Id header ` +
          `would be 61440 bytes, more than ${MAX_PARAM_HEADER_BYTES} \\(MAX_PARAM_HEADER_BYTES\\); ` +
          `nothing was sent, and the server refused nothing$`,
        "i",
      ),
    );
    assert.doesNotMatch(listed.error.message, /refused tools\/list|code -32000/);
    const log = (await (await fetch(`${peer.origin}/log`)).text()).split("\n");
    assert.ok(!log.some((line) => line.startsWith("tools/list")), log.join("\n"));
    await client.retire();
  });
});
