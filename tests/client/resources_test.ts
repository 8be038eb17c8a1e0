// Reading resources: a real fixture server's text and blob, a blob past the
// limit refused by its size before it is looked into, a URI the server never
// offered still sent, a server that declared no resources refused before
// anything is sent; and the decoder's table of hostile results.

import assert from "node:assert/strict";
import { Census } from "../../client/census.ts";
import type { Client } from "../../client/client.ts";
import { decodeReadResult } from "../../client/resources.ts";
import { MAX_RESOURCE_BYTES } from "../../settings/limits.ts";
import { fixture } from "./_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "readResource() answers text and blob contents, and refuses an oversized blob by size",
  OPENS_CUSTODIAN,
  async () => {
    const census = Census.prepare([fixture("long", "long_server.ts")]);
    const client = census.clients.get("long") as Client;
    try {
      assert.ok((await client.connect()).ok);
      const text = await client.readResource("fixture://text");
      assert.deepEqual(text, {
        ok: true,
        value: {
          contents: [{ uri: "fixture://text", mimeType: "text/plain", text: "a text resource" }],
        },
      });
      const blob = await client.readResource("fixture://blob");
      assert.ok(blob.ok && "blob" in (blob.value.contents[0] ?? {}), JSON.stringify(blob));
      const huge = await client.readResource("fixture://huge");
      assert.ok(
        !huge.ok && huge.error.kind === "resource_too_large",
        JSON.stringify(huge).slice(0, 300),
      );
      assert.ok(huge.error.bytes > MAX_RESOURCE_BYTES);
      // Never offered: still sent, and the server's refusal is the answer.
      const unknown = await client.readResource("fixture://never-offered");
      assert.ok(!unknown.ok && unknown.error.kind === "server_error", JSON.stringify(unknown));
      assert.equal(unknown.error.error.code, -32002);
    } finally {
      await census.retire();
    }
  },
);

Deno.test("readResource() of a server that declared no resources is refused before anything is sent", async () => {
  const census = Census.prepare([fixture("echo", "echo_server.ts")]);
  const client = census.clients.get("echo") as Client;
  try {
    assert.ok((await client.connect()).ok);
    const read = await client.readResource("file:///etc/passwd");
    assert.ok(!read.ok && read.error.kind === "resources_not_declared", JSON.stringify(read));
  } finally {
    await census.retire();
  }
});

Deno.test("decodeReadResult() refuses what a resources/read result must not be", async (t) => {
  const table: [string, unknown, string][] = [
    ["not an object", 3, "result_malformed"],
    ["contents not an array", { contents: {} }, "result_malformed"],
    ["a content without uri", { contents: [{ text: "x" }] }, "result_malformed"],
    ["neither text nor blob", { contents: [{ uri: "a://" }] }, "result_malformed"],
    ["a blob that is not base64", { contents: [{ uri: "a://", blob: "no!" }] }, "result_malformed"],
    ["a text past the limit", {
      contents: [{ uri: "a://", text: "é".repeat(MAX_RESOURCE_BYTES / 2 + 1) }],
    }, "resource_too_large"],
  ];
  for (const [name, value, kind] of table) {
    await t.step(name, () => {
      const read = decodeReadResult("s", value as never);
      assert.ok(!read.ok && read.error.kind === kind, JSON.stringify(read).slice(0, 200));
    });
  }
  await t.step(
    "a modern result without resultType is complete, one of another type refused",
    () => {
      assert.ok(decodeReadResult("s", { contents: [] }, "modern").ok);
      const read = decodeReadResult("s", { resultType: "task", contents: [] }, "modern");
      assert.ok(!read.ok && read.error.kind === "result_malformed");
    },
  );
});
