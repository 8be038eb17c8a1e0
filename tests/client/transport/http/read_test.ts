import assert from "node:assert/strict";
import { readResponseBody } from "../../../../client/transport/http/_read.ts";

const encoder = new TextEncoder();
const LIMIT = 64;

/** The gzip coding of `text`. */
async function gzip(text: string): Promise<Uint8Array> {
  const stream = new Blob([encoder.encode(text)]).stream()
    .pipeThrough(new CompressionStream("gzip"));
  return await new Response(stream).bytes();
}

/**
 * A loopback server over raw TCP that answers each connection with `answer`
 * (head and body as given, however they lie), then closes it.
 */
function hostile(answer: Uint8Array) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const served = (async () => {
    for await (const conn of listener) {
      try {
        await conn.read(new Uint8Array(64 * 1024));
        await conn.write(answer);
      } catch {
        // The client may hang up first; the next connection is served all the same.
      } finally {
        conn.close();
      }
    }
  })();
  const url = `http://127.0.0.1:${listener.addr.port}/mcp`;
  return {
    url,
    async close() {
      listener.close();
      await served;
    },
  };
}

function head(lines: string[]): string {
  return `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${lines.join("\r\n")}\r\n\r\n`;
}

function join(...parts: (string | Uint8Array)[]): Uint8Array {
  const bytes = parts.map((part) => typeof part === "string" ? encoder.encode(part) : part);
  const out = new Uint8Array(bytes.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of bytes) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

Deno.test("readResponseBody() bounds a body however its headers lie", async (t) => {
  const big = "x".repeat(10_000);
  const coded = await gzip(big);
  assert.ok(coded.length <= LIMIT, "the coded body declares a length within the cap");
  const table: Array<[string, Uint8Array, { kind: string; length?: number }]> = [
    ["an honest length within the cap is read whole", join(head(["content-length: 5"]), "hello"), {
      kind: "whole",
      length: 5,
    }],
    [
      "a body longer than its length is cut at the length",
      join(head(["content-length: 10"]), big),
      { kind: "whole", length: 10 },
    ],
    [
      "a body shorter than its length is broken",
      join(head(["content-length: 50"]), "short"),
      { kind: "broken" },
    ],
    [
      "a length past the cap is read only to the cap",
      join(head([`content-length: ${big.length}`]), big),
      { kind: "too_large", length: LIMIT },
    ],
    [
      "a coded body within the cap that decodes past it is cut at the cap",
      join(head(["content-encoding: gzip", `content-length: ${coded.length}`]), coded),
      { kind: "too_large", length: LIMIT },
    ],
    [
      "a body without a length is cut at the cap",
      join(head(["connection: close"]), big),
      { kind: "too_large", length: LIMIT },
    ],
    [
      "a length that is not digits is not trusted",
      join(head(["content-length: +10"]), big),
      { kind: "broken" },
    ],
  ];
  for (const [name, answer, expected] of table) {
    await t.step(name, async () => {
      const server = hostile(answer);
      try {
        let read;
        try {
          const response = await fetch(server.url, { method: "POST", body: "{}" });
          read = await readResponseBody(response, LIMIT);
        } catch {
          // fetch refuses a head it cannot parse: bounded too.
          read = { kind: "broken", bytes: new Uint8Array() };
        }
        assert.equal(read.kind, expected.kind);
        if (expected.length !== undefined) assert.equal(read.bytes.length, expected.length);
        assert.ok(read.bytes.length <= LIMIT);
      } finally {
        await server.close();
      }
    });
  }
});
