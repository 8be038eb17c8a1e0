import assert from "node:assert/strict";
import { Client } from "../../client/client.ts";
import type { StdioServerSpec } from "../../settings/mod.ts";
import { fixture } from "./_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const QUICK = { retirementTimeoutMs: 2_000 };

function peer(mode: string, extra: Partial<StdioServerSpec> = {}): StdioServerSpec {
  const spec = fixture(mode, "era_peer.ts", extra);
  return { ...spec, args: [...spec.args, mode] };
}

/**
 * The lines the fixture says it received, in order: read once the client is
 * retired, when every byte of the server's stderr has reached the tail.
 */
async function received(client: Client): Promise<string[]> {
  const retired = await client.retire();
  assert.ok(retired.ok && retired.value.kind === "exited", JSON.stringify(retired));
  return client.stderrTail().split("\n").filter((line) => line.startsWith("recv "));
}

/** Connects in the legacy era, calls, retires; the lines received. */
async function connected(spec: StdioServerSpec): Promise<string[]> {
  const client = new Client(spec, QUICK);
  const started = await client.connect();
  assert.ok(started.ok, JSON.stringify(started));
  assert.equal(started.value.era, "legacy");
  assert.equal(started.value.protocolVersion, "2025-11-25");
  const called = await client.callTool("go", {});
  assert.ok(called.ok, JSON.stringify(called));
  return await received(client);
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "auto falls back to initialize on the same process at each legacy signal",
  OPENS_CUSTODIAN,
  async (t) => {
    for (const mode of ["garbage", "unsupported", "neither_refused"]) {
      await t.step(mode, async () => {
        const spec = mode === "neither_refused" ? peer("refuse") : peer(mode);
        assert.deepEqual(await connected(spec), [
          "recv server/discover meta=2026-07-28",
          "recv initialize",
          "recv notifications/initialized",
          "recv tools/call",
        ]);
      });
    }
  },
);

Deno.test("auto falls back after a silent probe, at the probe's share of the deadline", async () => {
  // The probe given up is not announced: a legacy server hears no cancellation before initialize.
  // The probe waits for at most half the connect deadline: 2 s here.
  assert.deepEqual(await connected(peer("silent", { connectTimeoutMs: 4_000 })), [
    "recv server/discover meta=2026-07-28",
    "recv initialize",
    "recv notifications/initialized",
    "recv tools/call",
  ]);
});

Deno.test("a server that exits on the probe is started once more, straight to initialize", async () => {
  assert.deepEqual(await connected(peer("exit")), [
    "recv server/discover meta=2026-07-28",
    "recv initialize",
    "recv notifications/initialized",
    "recv tools/call",
  ]);
});

Deno.test("a server that answers neither is a start failure carrying both attempts", async () => {
  const client = new Client(peer("neither"), QUICK);
  const started = await client.connect();
  assert.ok(!started.ok && started.error.kind === "handshake_failed", JSON.stringify(started));
  assert.deepEqual(started.error.attempts?.map((a) => a.method), ["server/discover", "initialize"]);
  assert.match(started.error.attempts?.[0]?.outcome ?? "", /refused server\/discover: no/);
  assert.match(started.error.message, /failed the handshake: .*not today/);
  assert.match(started.error.message, /tried before it: server\/discover:/);
  assert.deepEqual(await received(client), [
    "recv server/discover meta=2026-07-28",
    "recv initialize",
  ]);
});

Deno.test("a pinned era never falls back, and legacy never probes", async (t) => {
  await t.step("modern against a server with no modern answer", async () => {
    const client = new Client(peer("unsupported", { era: "modern" }), QUICK);
    const started = await client.connect();
    assert.ok(!started.ok && started.error.kind === "version_unsupported", JSON.stringify(started));
    assert.equal(started.error.requested, "2026-07-28");
    assert.equal(started.error.received, "2099-01-01");
    assert.deepEqual(await received(client), ["recv server/discover meta=2026-07-28"]);
  });
  await t.step("legacy", async () => {
    assert.deepEqual(await connected(peer("garbage", { era: "legacy" })), [
      "recv initialize",
      "recv notifications/initialized",
      "recv tools/call",
    ]);
  });
  await t.step("versions offered: a legacy-only list does not probe", async () => {
    const spec = peer("garbage", { versions: ["2025-06-18"] });
    const client = new Client(spec, QUICK);
    const started = await client.connect();
    assert.ok(
      started.ok && started.value.protocolVersion === "2025-06-18",
      JSON.stringify(started),
    );
    assert.deepEqual(await received(client), ["recv initialize", "recv notifications/initialized"]);
  });
});

Deno.test("a modern session carries the envelope on every request, a result without resultType complete", async () => {
  const client = new Client(peer("modern_liar"), QUICK);
  const started = await client.connect();
  assert.ok(started.ok && started.value.era === "modern", JSON.stringify(started));
  const listed = await client.listTools();
  assert.ok(listed.ok, JSON.stringify(listed));
  const called = await client.callTool("go", {});
  assert.ok(called.ok, JSON.stringify(called));
  assert.deepEqual(await received(client), [
    "recv server/discover meta=2026-07-28",
    "recv tools/list meta=2026-07-28",
    "recv tools/call meta=2026-07-28",
  ]);
});
