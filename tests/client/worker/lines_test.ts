import assert from "node:assert/strict";
import { LineWriter } from "../../../client/worker/_lines.ts";

const TRACED =
  '{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"},' +
  '"name":"x","arguments":{}}';
const TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01";
const ENVELOPE = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };

function written(run: (writer: LineWriter) => void): Record<string, unknown> {
  const parts: string[] = [];
  const writer = new LineWriter((data) => {
    parts.push(typeof data === "string" ? data : new TextDecoder().decode(data));
  });
  run(writer);
  return JSON.parse(parts.join("")).params;
}

Deno.test("a modern request whose parameters lead with trace context carries one _meta holding both", () => {
  const params = written((writer) => {
    writer.envelope(ENVELOPE);
    writer.request(3, "tools/call", TRACED);
  });
  assert.deepEqual(params, {
    _meta: { ...ENVELOPE, traceparent: TRACEPARENT },
    name: "x",
    arguments: {},
  });
});

Deno.test("a modern request's traced parameters as bytes carry one _meta holding both", () => {
  const params = written((writer) => {
    writer.envelope(ENVELOPE);
    writer.request(3, "tools/call", new TextEncoder().encode(TRACED));
  });
  assert.deepEqual(params, {
    _meta: { ...ENVELOPE, traceparent: TRACEPARENT },
    name: "x",
    arguments: {},
  });
});

Deno.test("a long call's traced parameters take its progress token into their _meta", () => {
  const params = written((writer) => {
    writer.requestWith(4, "tools/call", TRACED, {
      meta: '"progressToken":4',
      fields: '"task":{"ttl":5}',
    });
  });
  assert.deepEqual(params, {
    _meta: { progressToken: 4, traceparent: TRACEPARENT },
    task: { ttl: 5 },
    name: "x",
    arguments: {},
  });
});

Deno.test("a legacy request's traced parameters reach the server as they came", () => {
  assert.deepEqual(
    written((writer) => writer.request(1, "tools/call", TRACED)),
    JSON.parse(TRACED),
  );
});
