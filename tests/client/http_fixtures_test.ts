import assert from "node:assert/strict";
import { Client } from "../../client/client.ts";
import { grantOf } from "../../client/_worker_launch.ts";
import type { RemoteServerSpec } from "../../settings/mod.ts";
import { type Served, serveFixture } from "./_http_servers.ts";
import { OPENS_SUBREAPER } from "../_lifetime.ts";

function remote(url: string, extra: Partial<RemoteServerSpec> = {}): RemoteServerSpec {
  return {
    name: "peer",
    url,
    headers: {},
    connectTimeoutMs: 10_000,
    callTimeoutMs: 5_000,
    ...extra,
  };
}

async function withPeer(mode: string, body: (peer: Served) => Promise<void>): Promise<void> {
  const peer = await serveFixture("http_peer.ts", [mode]);
  try {
    await body(peer);
  } finally {
    await peer.close();
  }
}

async function requests(peer: Served): Promise<string[]> {
  return (await (await fetch(`${peer.origin}/log`)).text()).split("\n");
}

// The file's first client opens the subreaper's libc handle, kept for good (tests/_lifetime.ts).
Deno.test(
  "auto falls back to initialize over HTTP, then sends the session and version",
  OPENS_SUBREAPER,
  async () => {
    await withPeer("plain", async (peer) => {
      const client = new Client(remote(`${peer.origin}/mcp`));
      const started = await client.connect();
      assert.ok(started.ok, JSON.stringify(started));
      assert.equal(started.value.era, "legacy");
      assert.equal(started.value.protocolVersion, "2025-06-18");
      const called = await client.callTool("go", {});
      assert.ok(called.ok, JSON.stringify(called));
      assert.deepEqual(called.value.content, [{ type: "text", text: "gone" }]);
      const retired = await client.retire();
      assert.ok(
        retired.ok && retired.value.kind === "remote" && retired.value.session === "deleted",
      );
      const sent = await requests(peer);
      // The session's own stream is asked for once it is initialized (beside
      // the call, in either order); the peer's 405 leaves it alone for good.
      assert.deepEqual(sent.filter((line) => line.startsWith("GET")), [
        "GET /mcp - session-1 2025-06-18 -",
      ]);
      assert.deepEqual(sent.filter((line) => !line.startsWith("GET")), [
        "POST /mcp server/discover - 2026-07-28 -",
        "POST /mcp - - - -",
        "POST /mcp - session-1 2025-06-18 -",
        "POST /mcp - session-1 2025-06-18 -",
        "DELETE /mcp - session-1 2025-06-18 -",
      ]);
    });
  },
);

Deno.test("a 401 fails the start with its status, body and WWW-Authenticate", async () => {
  await withPeer("unauthorized", async (peer) => {
    const client = new Client(remote(`${peer.origin}/mcp`));
    const started = await client.connect();
    assert.ok(!started.ok);
    assert.equal(started.error.kind, "transport_failed");
    assert.ok(started.error.kind === "transport_failed" && started.error.http !== undefined);
    assert.deepEqual(started.error.http, {
      status: 401,
      statusText: "Unauthorized",
      body: "token required",
      wwwAuthenticate: 'Bearer realm="peer", error="invalid_token"',
    });
    assert.match(
      started.error.message,
      /HTTP 401 Unauthorized; it asks for: "Bearer realm=\\"peer\\"/,
    );
    // Credentials are never evidence of an era: nothing was tried after the 401.
    assert.equal((await requests(peer)).length, 1);
    await client.retire();
  });
});

Deno.test("an endless event stream is bounded by the call's deadline", async () => {
  await withPeer("endless", async (peer) => {
    const client = new Client(remote(`${peer.origin}/mcp`, { callTimeoutMs: 300 }));
    assert.ok((await client.connect()).ok);
    const called = await client.callTool("go", {});
    assert.ok(!called.ok && called.error.kind === "call_timed_out", JSON.stringify(called));
    // The client stays usable: only that request's stream was closed.
    assert.ok((await client.listTools()).ok);
    await client.retire();
  });
});

Deno.test("a body past 16 MiB ends the client, named", async (t) => {
  for (const mode of ["huge_body", "huge_event"]) {
    await t.step(mode, async () => {
      await withPeer(mode, async (peer) => {
        const client = new Client(remote(`${peer.origin}/mcp`));
        assert.ok((await client.connect()).ok);
        const called = await client.callTool("go", {});
        assert.ok(!called.ok && called.error.kind === "unavailable", JSON.stringify(called));
        assert.equal(called.error.cause, "http_failed");
        assert.match(called.error.message, /16777216|MAX_/);
        await client.retire();
      });
    });
  }
});

Deno.test("a redirect to another origin is refused, one within it followed", async (t) => {
  await t.step("another origin", async () => {
    await withPeer("redirect_away", async (peer) => {
      const client = new Client(remote(`${peer.origin}/mcp`));
      const started = await client.connect();
      assert.ok(!started.ok && started.error.kind === "transport_failed", JSON.stringify(started));
      assert.match(
        started.error.message,
        /redirected server\/discover \(HTTP 307\) to http:\/\/localhost:/,
      );
      assert.deepEqual((await requests(peer)).length, 1);
      await client.retire();
    });
  });
  await t.step("the same origin", async () => {
    await withPeer("plain", async (peer) => {
      const client = new Client(remote(`${peer.origin}/old`));
      const started = await client.connect();
      assert.ok(started.ok, JSON.stringify(started));
      await client.retire();
    });
  });
});

Deno.test("a stream dropped after a priming event is resumed with Last-Event-ID", async () => {
  await withPeer("resume", async (peer) => {
    const client = new Client(remote(`${peer.origin}/mcp`));
    assert.ok((await client.connect()).ok);
    const called = await client.callTool("go", {});
    assert.ok(called.ok, JSON.stringify(called));
    assert.deepEqual(called.value.content, [{ type: "text", text: "resumed" }]);
    await client.retire();
    const log = await requests(peer);
    assert.ok(log.includes("GET /mcp - session-1 2025-06-18 ev-1"), log.join("\n"));
  });
});

Deno.test("an HTTP error without a JSON-RPC answer fails the call with its status", async () => {
  await withPeer("error_page", async (peer) => {
    const client = new Client(remote(`${peer.origin}/mcp`));
    assert.ok((await client.connect()).ok);
    const called = await client.callTool("go", {});
    assert.ok(!called.ok && called.error.kind === "server_error", JSON.stringify(called));
    assert.equal(called.error.error.code, -32000);
    assert.match(
      called.error.message,
      /HTTP 500 Internal Server Error: an HTML page: "Internal error"/,
    );
    assert.deepEqual(called.error.error.data, {
      status: 500,
      body: "<h1>Internal error</h1>\\u{a}",
    });
    assert.ok((await client.listTools()).ok);
    await client.retire();
  });
});

Deno.test("a web server's error page at the URL is named by its text, never shown as markup", async () => {
  const page = '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    "<title>Error</title>\n<style>body { color: red }</style>\n</head>\n<body>\n" +
    "<pre>Cannot POST /nope</pre>\n</body>\n</html>\n";
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(page, { status: 404, headers: { "content-type": "text/html" } }),
  );
  try {
    const client = new Client(remote(`http://127.0.0.1:${server.addr.port}/nope`));
    const started = await client.connect();
    assert.ok(!started.ok, JSON.stringify(started));
    assert.match(started.error.message, /HTTP 404 Not Found: an HTML page: "Cannot POST \/nope"/);
    assert.doesNotMatch(started.error.message, /<|color/);
    await client.retire();
  } finally {
    await server.shutdown();
  }
});

Deno.test("a server that refuses DELETE leaves the session to expire, and says so", async () => {
  await withPeer("no_delete", async (peer) => {
    const client = new Client(remote(`${peer.origin}/mcp`));
    assert.ok((await client.connect()).ok);
    const retired = await client.retire();
    assert.deepEqual(retired, {
      ok: true,
      value: { kind: "remote", url: `${peer.origin}/mcp`, session: "not_deletable", status: 405 },
    });
  });
});

Deno.test("an unreachable endpoint fails the start as transport_failed", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const client = new Client(remote(`http://127.0.0.1:${port}/mcp`));
  const started = await client.connect();
  assert.ok(!started.ok && started.error.kind === "transport_failed", JSON.stringify(started));
  assert.match(
    started.error.message,
    /Cannot reach server "peer" at http:\/\/127\.0\.0\.1:\d+\/mcp/,
  );
  const retired = await client.retire();
  assert.ok(retired.ok && retired.value.kind === "remote" && retired.value.session === "stateless");
});

Deno.test("a remote server's worker runs with the network to its one host, or inherits", async (t) => {
  const harness = new URL("../fixtures/remote_permissions_harness.ts", import.meta.url).pathname;
  await withPeer("plain", async (peer) => {
    for (
      const c of [{ flags: ["--unstable-worker-options"], permissions: "least" }, {
        flags: [],
        permissions: "inherit",
      }]
    ) {
      await t.step(c.permissions, async () => {
        const output = await new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", "--quiet", "--no-lock", ...c.flags, harness, `${peer.origin}/mcp`],
          stdin: "null",
        }).output();
        const stderr = new TextDecoder().decode(output.stderr);
        assert.equal(output.code, 0, stderr);
        assert.deepEqual(JSON.parse(new TextDecoder().decode(output.stdout)), {
          permissions: c.permissions,
          started: true,
          call: [{ type: "text", text: "gone" }],
          retired: "deleted",
        });
      });
    }
  });
});

Deno.test("the grant of a remote server's worker is its one host and port", () => {
  assert.deepEqual(grantOf(remote("https://mcp.example.com/mcp")), { net: "mcp.example.com" });
  assert.deepEqual(grantOf(remote("http://127.0.0.1:8931/mcp")), { net: "127.0.0.1:8931" });
});

Deno.test("a forgotten session whose renewal never answers fails the client within its connect timeout, never sending a request without the session", async () => {
  await withPeer("forget_hang", async (peer) => {
    const client = new Client(remote(`${peer.origin}/mcp`, { connectTimeoutMs: 1_500 }));
    assert.ok((await client.connect()).ok);
    assert.ok((await client.callTool("go", {})).ok);
    const called = await client.callTool("go", {});
    assert.ok(!called.ok && called.error.kind === "unavailable", JSON.stringify(called));
    assert.match(
      called.error.message,
      /it forgot session session-1 and did not open a new one within 1500 ms \(its connect timeout/,
    );
    const retired = await client.retire();
    // The DELETE names the forgotten session, which the server no longer knows.
    assert.deepEqual(retired, {
      ok: true,
      value: { kind: "remote", url: `${peer.origin}/mcp`, session: "already_ended", status: 404 },
    });
    const log = await requests(peer);
    assert.deepEqual(
      log.filter((line) => line.startsWith("POST /mcp - - ")),
      ["POST /mcp - - - -", "POST /mcp - - - -"],
      "only the two initialize requests go without a session",
    );
  });
});

Deno.test("a legacy JSON answer broken off fails its call alone; the next is answered", async () => {
  await withPeer("cut_body", async (peer) => {
    const client = new Client(remote(`${peer.origin}/mcp`));
    assert.ok((await client.connect()).ok);
    const broken = await client.callTool("go", {});
    assert.ok(!broken.ok && broken.error.kind === "server_error", JSON.stringify(broken));
    assert.match(broken.error.message, /to tools\/call broke: /);
    const whole = await client.callTool("go", {});
    assert.ok(whole.ok, JSON.stringify(whole));
    assert.deepEqual(whole.value.content, [{ type: "text", text: "whole" }]);
    await client.retire();
  });
});

Deno.test("a redirect loop within the origin is given up, saying how many were followed", async () => {
  await withPeer("redirect_loop", async (peer) => {
    const client = new Client(remote(`${peer.origin}/mcp`));
    assert.ok((await client.connect()).ok);
    const called = await client.callTool("go", {});
    assert.ok(!called.ok && called.error.kind === "server_error", JSON.stringify(called));
    assert.match(
      called.error.message,
      /redirected tools\/call \(HTTP 307\) to http:\/\/127\.0\.0\.1:\d+\/loop, after 5 redirects already followed \(MAX_REDIRECTS\); point its url at the endpoint itself/,
    );
    await client.retire();
  });
});

Deno.test("two requests that meet one forgotten session open one new session, and retirement deletes it", async () => {
  await withPeer("forget_once", async (peer) => {
    const client = new Client(remote(`${peer.origin}/mcp`));
    assert.ok((await client.connect()).ok);
    assert.ok((await client.callTool("go", {})).ok);
    // The slow one's 404 comes after the fast one's renewal is done.
    const [fast, slow] = await Promise.all([
      client.callTool("go", { fast: true }),
      client.callTool("go", { slow: true }),
    ]);
    assert.ok(fast.ok && slow.ok, JSON.stringify([fast, slow]));
    const retired = await client.retire();
    assert.ok(retired.ok && retired.value.kind === "remote" && retired.value.session === "deleted");
    const log = await requests(peer);
    assert.equal(log.filter((line) => line === "POST /mcp - - - -").length, 2, log.join("\n"));
    assert.deepEqual(log.filter((line) => line.startsWith("DELETE")), [
      "DELETE /mcp - session-2 2025-06-18 -",
    ]);
  });
});
