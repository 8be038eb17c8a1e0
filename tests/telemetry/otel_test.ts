// A harness run under Deno's built-in OpenTelemetry (OTEL_DENO=true) against
// an OTLP/HTTP JSON receiver on loopback: its spans, their attributes and
// parentage, the trace context its server received, the errors, the
// metrics; and, run without OTEL_DENO, nothing sent at all.

import assert from "node:assert/strict";

const HARNESS = new URL("../fixtures/traced_harness.ts", import.meta.url).pathname;

type Attribute = { key: string; value: Record<string, unknown> };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Attribute[];
  status: { code: number; message?: string };
};
type DataPoint = { attributes: Attribute[]; explicitBounds: number[]; count: string };
type OtlpMetric = { name: string; unit: string; histogram?: { dataPoints: DataPoint[] } };
type Export = { path: string; body: Record<string, unknown> };

const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;
const STATUS_ERROR = 2;

/** Runs the fixture harness, under OTEL_DENO when `otel`, with a receiver on loopback; returns what it received. */
async function runHarness(
  otel: boolean,
  content = false,
): Promise<{ exports: Export[]; meta: string[] }> {
  const exports: Export[] = [];
  const receiver = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    exports.push({ path: new URL(req.url).pathname, body: await req.json() });
    return Response.json({});
  });
  const metaFile = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    const env: Record<string, string> = {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.addr.port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "traced-harness",
    };
    if (otel) env.OTEL_DENO = "true";
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", HARNESS, metaFile, ...(content ? ["content"] : [])],
      env,
      stdout: "piped",
      stderr: "piped",
    });
    const output = await child.output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    const meta = (await Deno.readTextFile(metaFile)).split("\n").filter((line) => line !== "");
    return { exports, meta };
  } finally {
    await receiver.shutdown();
    await Deno.remove(metaFile);
  }
}

const traced = await runHarness(true);
const untraced = await runHarness(false);
const withContent = await runHarness(true, true);

function spansOf(exports: Export[]): Array<OtlpSpan & { service: string }> {
  const spans: Array<OtlpSpan & { service: string }> = [];
  for (const { path, body } of exports) {
    if (path !== "/v1/traces") continue;
    for (const resource of body.resourceSpans as Array<Record<string, unknown>>) {
      const attrs = (resource.resource as { attributes: Attribute[] }).attributes;
      const service = String(attribute(attrs, "service.name"));
      for (const scope of resource.scopeSpans as Array<{ spans: OtlpSpan[] }>) {
        for (const span of scope.spans) spans.push({ ...span, service });
      }
    }
  }
  return spans;
}

function metricsOf(exports: Export[]): OtlpMetric[] {
  const found: OtlpMetric[] = [];
  for (const { path, body } of exports) {
    if (path !== "/v1/metrics") continue;
    for (const resource of body.resourceMetrics as Array<Record<string, unknown>>) {
      for (const scope of resource.scopeMetrics as Array<{ metrics: OtlpMetric[] }>) {
        found.push(...scope.metrics);
      }
    }
  }
  return found;
}

function attribute(attributes: Attribute[], key: string): unknown {
  const value = attributes.find((item) => item.key === key)?.value;
  if (value === undefined) return undefined;
  return value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
}

const spans = spansOf(traced.exports);
const harnessSpans = spans.filter((span) => span.service === "traced-harness");
const byName = (name: string) => harnessSpans.filter((span) => span.name === name);
const one = (name: string): OtlpSpan => {
  const found = byName(name);
  assert.ok(found.length > 0, `no span named ${name}: ${harnessSpans.map((s) => s.name)}`);
  return found[0] as OtlpSpan;
};

Deno.test("a harness call is a CLIENT span named for its method and tool, with the conventions' attributes", () => {
  const call = harnessSpans.find((span) =>
    span.name === "tools/call echo" && attribute(span.attributes, "network.transport") === "pipe"
  );
  assert.ok(call !== undefined);
  assert.equal(call.kind, SPAN_KIND.client);
  assert.equal(attribute(call.attributes, "mcp.method.name"), "tools/call");
  assert.equal(attribute(call.attributes, "gen_ai.tool.name"), "echo");
  assert.equal(attribute(call.attributes, "gen_ai.operation.name"), "execute_tool");
  assert.match(String(attribute(call.attributes, "jsonrpc.request.id")), /^\d+$/);
  assert.match(String(attribute(call.attributes, "mcp.protocol.version")), /^\d{4}-\d{2}-\d{2}$/);
});

Deno.test("the tool call's span is a child of harness.call, in one trace with it", () => {
  const outer = byName("harness.call")[0];
  assert.ok(outer !== undefined);
  const inner = harnessSpans.find((span) => span.parentSpanId === outer.spanId);
  assert.ok(inner !== undefined);
  assert.equal(inner.name, "tools/call echo");
  assert.equal(inner.traceId, outer.traceId);
});

Deno.test("each era's server receives the traceparent of its request's own span in params._meta", () => {
  const calls = traced.meta.map((line) => JSON.parse(line)).filter((r) =>
    r.method === "tools/call"
  );
  const clientSpans = harnessSpans.filter((span) => span.kind === SPAN_KIND.client);
  const modern = calls.filter((r) => r.meta["io.modelcontextprotocol/protocolVersion"]);
  const legacy = calls.filter((r) => !r.meta["io.modelcontextprotocol/protocolVersion"]);
  assert.ok(modern.length > 0 && legacy.length > 0);
  for (const record of calls) {
    const [, traceId, spanId] = String(record.meta.traceparent).split("-");
    const span = clientSpans.find((s) => s.spanId === spanId);
    assert.ok(span !== undefined, `no client span ${spanId}`);
    assert.equal(span.traceId, traceId);
  }
});

Deno.test("serve() continues the client's trace in a SERVER span, in each era", async (t) => {
  for (const [era, version] of [["legacy", /^2025-\d{2}-\d{2}$/], ["modern", /^2026-07-28$/]]) {
    await t.step(era as string, () => {
      const call = spans.find((span) =>
        span.service === `traced-${era}` && span.kind === SPAN_KIND.server &&
        span.name === "tools/call echo"
      );
      assert.ok(call !== undefined);
      const parent = harnessSpans.find((span) => span.spanId === call.parentSpanId);
      assert.ok(parent !== undefined);
      assert.equal(parent.traceId, call.traceId);
      assert.equal(parent.kind, SPAN_KIND.client);
      assert.match(String(attribute(call.attributes, "mcp.protocol.version")), version as RegExp);
    });
  }
});

Deno.test("serveHttp()'s SERVER spans say tcp, and serve()'s over stdio say pipe", () => {
  const server = spans.filter((span) => span.kind === SPAN_KIND.server);
  const web = server.find((span) =>
    span.service === "traced-harness" && span.name === "tools/call echo"
  );
  assert.ok(web !== undefined, "no SERVER span of the HTTP server");
  assert.equal(attribute(web.attributes, "network.transport"), "tcp");
  const piped = server.find((span) => span.service === "traced-legacy");
  assert.ok(piped !== undefined);
  assert.equal(attribute(piped.attributes, "network.transport"), "pipe");
});

Deno.test("an isError result is error.type tool_error, and the span's status is an error", () => {
  const fail = one("tools/call fail");
  assert.equal(attribute(fail.attributes, "error.type"), "tool_error");
  assert.equal(fail.status.code, STATUS_ERROR);
});

Deno.test("a JSON-RPC error is error.type its code", () => {
  const unknown = one("tools/call no_such_tool");
  assert.equal(attribute(unknown.attributes, "error.type"), "-32601");
  assert.equal(attribute(unknown.attributes, "rpc.response.status_code"), "-32601");
});

Deno.test("a call past its deadline is error.type timeout", () => {
  assert.equal(attribute(one("tools/call sleep").attributes, "error.type"), "timeout");
});

Deno.test("harness.run has its check and execution as children, and the program's call as a child", () => {
  const run = one("harness.run");
  const children = harnessSpans.filter((span) => span.parentSpanId === run.spanId);
  const names = children.map((span) => span.name).sort();
  assert.deepEqual(names, ["harness.run check", "harness.run execute", "tools/call echo"]);
});

Deno.test("boot holds each server's initialize span, and retirement has its own span", () => {
  const boot = one("harness.boot");
  // One per server: two started by the harness, and its own serveHttp server
  // (whose SERVER span of the same name is the server side of the third).
  const initializes = byName("initialize").filter((span) => span.kind === SPAN_KIND.client);
  assert.equal(initializes.length, 3);
  for (const span of initializes) {
    assert.equal(span.parentSpanId, boot.spanId);
    assert.equal(span.kind, SPAN_KIND.client);
  }
  assert.equal(one("harness.retire").kind, SPAN_KIND.internal);
});

Deno.test("the client's and the server's duration histograms are exported in seconds with the conventions' buckets", () => {
  const metrics = metricsOf(traced.exports);
  const bounds = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
  for (
    const name of [
      "mcp.client.operation.duration",
      "mcp.client.session.duration",
      "mcp.server.operation.duration",
      "mcp.server.session.duration",
    ]
  ) {
    const metric = metrics.find((m) => m.name === name);
    assert.ok(metric !== undefined, `no metric ${name}`);
    assert.equal(metric.unit, "s");
    assert.deepEqual(metric.histogram?.dataPoints[0]?.explicitBounds, bounds);
  }
  const calls = metrics.find((m) => m.name === "mcp.client.operation.duration");
  const points = calls?.histogram?.dataPoints ?? [];
  assert.ok(points.some((p) => attribute(p.attributes, "error.type") === "tool_error"));
  assert.ok(points.some((p) => attribute(p.attributes, "gen_ai.tool.name") === "echo"));
});

Deno.test("arguments and results are not recorded when the harness did not ask", () => {
  for (const span of harnessSpans) {
    assert.equal(attribute(span.attributes, "gen_ai.tool.call.arguments"), undefined);
    assert.equal(attribute(span.attributes, "gen_ai.tool.call.result"), undefined);
  }
});

Deno.test("without OTEL_DENO nothing reaches the receiver and no trace context reaches the server", () => {
  assert.deepEqual(untraced.exports, []);
  for (const line of untraced.meta) {
    const meta = JSON.parse(line).meta;
    assert.equal(meta?.traceparent, undefined);
  }
});

Deno.test("a harness booted with traceToolContent records a call's arguments and result", () => {
  const echo = spansOf(withContent.exports).find((span) =>
    span.service === "traced-harness" && span.name === "tools/call echo"
  );
  assert.ok(echo !== undefined);
  assert.deepEqual(JSON.parse(String(attribute(echo.attributes, "gen_ai.tool.call.arguments"))), {
    text: "one",
  });
  const result = JSON.parse(String(attribute(echo.attributes, "gen_ai.tool.call.result")));
  assert.deepEqual(result.content, [{ type: "text", text: "one" }]);
});

Deno.test("a server's start requests carry the traceparent of its initialize span, in both eras", () => {
  const starts = traced.meta.map((line) => JSON.parse(line)).filter((record) =>
    record.method === "initialize" || record.method === "server/discover"
  );
  const initializes = byName("initialize");
  assert.deepEqual(starts.map((record) => record.method).sort(), ["initialize", "server/discover"]);
  for (const record of starts) {
    const [, traceId, spanId] = String(record.meta.traceparent).split("-");
    const span = initializes.find((s) => s.spanId === spanId);
    assert.ok(span !== undefined, `no initialize span ${spanId}`);
    assert.equal(span.traceId, traceId);
  }
  const served = spans.find((span) => span.kind === SPAN_KIND.server && span.name === "initialize");
  assert.ok(served !== undefined);
  assert.ok(initializes.some((span) => span.spanId === served.parentSpanId));
});

Deno.test("failures a harness answers as values end its spans in error", async (t) => {
  await t.step("harness.call of a tool no server has", () => {
    const denied = byName("harness.call").find((span) =>
      attribute(span.attributes, "gen_ai.tool.name") === "no_such_tool"
    );
    assert.ok(denied !== undefined);
    assert.equal(denied.status.code, STATUS_ERROR);
    assert.ok(String(attribute(denied.attributes, "error.type")).length > 0);
  });
  await t.step("harness.call of a tool that answered isError", () => {
    const failed = byName("harness.call").find((span) =>
      attribute(span.attributes, "gen_ai.tool.name") === "fail"
    );
    assert.ok(failed !== undefined);
    assert.equal(attribute(failed.attributes, "error.type"), "tool_error");
    assert.equal(failed.status.code, STATUS_ERROR);
  });
  await t.step("harness.run of a program that threw, and its execution", () => {
    const threw = byName("harness.run").find((span) => span.status.code === STATUS_ERROR);
    assert.ok(threw !== undefined, "no harness.run span in error");
    assert.equal(attribute(threw.attributes, "error.type"), "threw");
    assert.match(threw.status.message ?? "", /TypeError: no/);
    const execute = harnessSpans.find((span) =>
      span.parentSpanId === threw.spanId && span.name === "harness.run execute"
    );
    assert.equal(execute?.status.code, STATUS_ERROR);
    const passed = byName("harness.run").filter((span) => span.status.code !== STATUS_ERROR);
    assert.equal(passed.length, 1);
  });
});

Deno.test("a name past MAX_TRACE_NAME_CHARS is cut on the client's span, and a tool the server does not serve never names its span", () => {
  const long = harnessSpans.find((span) => span.name.startsWith("tools/call nnn"));
  assert.ok(long !== undefined);
  assert.equal(long.name, `tools/call ${"n".repeat(127)}\u2026`);
  assert.equal(String(attribute(long.attributes, "gen_ai.tool.name")).length, 128);
  const served = spans.filter((span) =>
    span.service === "traced-legacy" && span.kind === SPAN_KIND.server
  );
  const names = new Set(served.map((span) => span.name));
  assert.ok(names.has("tools/call echo") && names.has("tools/call"), [...names].join(", "));
  assert.ok([...names].every((name) => !name.includes("nnn") && !name.includes("no_such")));
  const unknown = served.filter((span) => span.name === "tools/call");
  assert.ok(
    unknown.some((span) => attribute(span.attributes, "gen_ai.tool.name") === "no_such_tool"),
  );
});
