// This client against a server built on the official SDK v2 and served with
// its dual-era `serveStdio`: the probe finds 2026-07-28, and the session is
// stateless; pinned to the legacy era, the same server speaks 2025-11-25. A
// 2026-07-28 subscription to its resource is acknowledged, hears the update
// the server sends, and its unsubscribe cancels the listen. Its prompt and
// resource that ask for input first (`input_required`) are answered.

import assert from "node:assert/strict";
import { Client } from "../../client/client.ts";
import type { EraMode, ServerSpec } from "../../settings/mod.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const SERVER = new URL("../fixtures/sdk_v2_server.ts", import.meta.url).pathname;
const RESOURCES = new URL("../fixtures/sdk_v2_resources.ts", import.meta.url).pathname;
const ASKING_READS = new URL("../fixtures/sdk_v2_asking_reads.ts", import.meta.url).pathname;

function spec(era: EraMode, server = SERVER): ServerSpec {
  return {
    name: "sdk-v2",
    command: Deno.execPath(),
    args: ["run", "--quiet", "--no-prompt", "-A", server],
    env: {},
    inheritEnv: ["DENO_DIR"],
    stderr: "tail",
    connectTimeoutMs: 60_000,
    era,
  };
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "the SDK v2 server over stdio: modern in auto mode, legacy when pinned",
  OPENS_CUSTODIAN,
  async (t) => {
    for (
      const [era, expected] of [["auto", ["modern", "2026-07-28"]], [
        "legacy",
        ["legacy", "2025-11-25"],
      ]] as const
    ) {
      await t.step(era, async () => {
        const client = new Client(spec(era));
        try {
          const started = await client.connect();
          assert.ok(started.ok, JSON.stringify(started));
          assert.deepEqual([started.value.era, started.value.protocolVersion], expected);
          assert.equal(started.value.serverInfo.name, "sdk-v2");
          const tools = await client.listTools();
          assert.deepEqual(tools.ok && tools.value.map((tool) => tool.name), ["echo"]);
          const called = await client.callTool("echo", { text: "both eras" });
          assert.ok(called.ok, JSON.stringify(called));
          assert.deepEqual(called.value.content, [{ type: "text", text: "both eras" }]);
          assert.ok((await client.ping()).ok);
        } finally {
          const retired = await client.retire();
          assert.ok(retired.ok && retired.value.kind === "exited", JSON.stringify(retired));
        }
      });
    }
  },
);

Deno.test("the SDK v2 server acknowledges a 2026-07-28 subscription and sends it updates", async () => {
  const client = new Client(spec("auto", RESOURCES));
  try {
    const started = await client.connect();
    assert.ok(started.ok && started.value.era === "modern", JSON.stringify(started));
    const updates: string[] = [];
    const subscribed = await client.subscribeResource(
      "file:///notes.txt",
      (uri) => updates.push(uri),
    );
    assert.ok(subscribed.ok, JSON.stringify(subscribed));
    assert.ok((await client.callTool("touch", {})).ok);
    for (let turn = 0; turn < 250 && updates.length === 0; turn++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.deepEqual(updates, ["file:///notes.txt"]);
    assert.deepEqual(await subscribed.value.unsubscribe(), { ok: true, value: undefined });
    // No update reaches a subscription once it is ended.
    assert.ok((await client.callTool("touch", {})).ok);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(updates, ["file:///notes.txt"]);
  } finally {
    await client.retire();
  }
});

Deno.test("the SDK v2 server's prompt and resource that ask for input first are answered", async () => {
  const client = new Client({
    ...spec("auto", ASKING_READS),
    roots: [{ uri: "file:///tmp/project", name: "project" }],
  }, {
    onElicit: (request) =>
      Promise.resolve(
        request.message === "Your name?"
          ? { action: "accept", content: { name: "Ada" } }
          : { action: "decline" },
      ),
  });
  try {
    const started = await client.connect();
    assert.ok(started.ok && started.value.era === "modern", JSON.stringify(started));
    const got = await client.getPrompt("greet");
    assert.ok(got.ok, JSON.stringify(got));
    const block = got.value.messages[0]?.content;
    assert.ok(block !== undefined && !Array.isArray(block) && block.type === "text");
    assert.deepEqual(JSON.parse(block.text), { action: "accept", content: { name: "Ada" } });
    const read = await client.readResource("file:///where.txt");
    assert.ok(read.ok, JSON.stringify(read));
    const contents = read.value.contents[0];
    assert.ok(contents !== undefined && "text" in contents);
    assert.deepEqual(JSON.parse(contents.text), {
      roots: [{ uri: "file:///tmp/project", name: "project" }],
    });
  } finally {
    await client.retire();
  }
});
