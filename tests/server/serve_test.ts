import assert from "node:assert/strict";
import { MAX_LINE_BYTES } from "../../codec/framing.ts";
import { type JsonObject, type JsonValue, stringifyJson } from "../../codec/json.ts";
import {
  captureStderr,
  ReplayTransport,
  serve,
  STDERR_BLOCK_META_KEY,
  type Tool,
} from "../../server/mod.ts";
import { OPENS_CAPTURE } from "../_lifetime.ts";

const echo: Tool = {
  name: "echo",
  description: "Returns its text.",
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
  run: (args) => ({ content: [{ type: "text", text: String(args.text) }] }),
};

function tool(name: string, run: Tool["run"]): Tool {
  return { name, description: name, inputSchema: { type: "object" }, run };
}

function request(id: JsonValue, method: string, params?: JsonValue): string {
  const message: Record<string, JsonValue> = { jsonrpc: "2.0", id, method };
  if (params !== undefined) message.params = params;
  const text = stringifyJson(message);
  assert.ok(text.ok);
  return text.value;
}

function call(id: number, name: string, args: JsonValue = {}): string {
  return request(id, "tools/call", { name, arguments: args });
}

type Reply = {
  id: JsonValue;
  result?: Record<string, JsonValue>;
  error?: { code: number; message: string };
};

async function run(lines: (string | Uint8Array)[], tools: Tool[] = [echo]): Promise<Reply[]> {
  const transport = new ReplayTransport(lines);
  const end = await serve({ name: "test", version: "0.0.1", tools }, transport);
  assert.deepEqual(end, { kind: "end_of_input" });
  return transport.messages() as Reply[];
}

function byId(replies: Reply[], id: JsonValue): Reply {
  const found = replies.find((reply) => reply.id === id);
  assert.ok(found, `no reply to ${String(id)}`);
  return found;
}

function texts(reply: Reply): string[] {
  const content = reply.result?.content as { type: string; text: string }[];
  return content.map((block) => block.text);
}

// The file's first tool run opens capture's libc handle, kept for the process (tests/_lifetime.ts).
Deno.test("serve() answers each method", OPENS_CAPTURE, async (t) => {
  const cases: { name: string; line: string; expect: (reply: Reply) => void }[] = [
    {
      name: "initialize echoes a supported version",
      line: request(0, "initialize", { protocolVersion: "2025-03-26", capabilities: {} }),
      expect: (reply) => {
        assert.equal(reply.result?.protocolVersion, "2025-03-26");
        assert.deepEqual(reply.result?.capabilities, { tools: { listChanged: false } });
        assert.deepEqual(reply.result?.serverInfo, { name: "test", version: "0.0.1" });
      },
    },
    {
      name: "initialize answers the newest version for an unknown one",
      line: request(0, "initialize", { protocolVersion: "2099-01-01" }),
      expect: (reply) => assert.equal(reply.result?.protocolVersion, "2025-11-25"),
    },
    {
      name: "ping answers an empty object",
      line: request(1, "ping"),
      expect: (reply) => assert.deepEqual(reply.result, {}),
    },
    {
      name: "tools/list lists tools sorted by name",
      line: request(1, "tools/list"),
      expect: (reply) => {
        const tools = reply.result?.tools as { name: string }[];
        assert.deepEqual(tools.map((entry) => entry.name), ["a_tool", "echo", "z_tool"]);
      },
    },
    {
      name: "tools/list refuses a cursor it never issued",
      line: request(1, "tools/list", { cursor: "next" }),
      expect: (reply) => assert.equal(reply.error?.code, -32602),
    },
    {
      name: "tools/call runs the tool",
      line: call(1, "echo", { text: "hi" }),
      expect: (reply) => assert.deepEqual(texts(reply), ["hi"]),
    },
    {
      name: "tools/call without arguments passes an empty object",
      line: request(1, "tools/call", { name: "a_tool" }),
      expect: (reply) => assert.deepEqual(texts(reply), ["{}"]),
    },
    {
      name: "tools/call without a name is -32602",
      line: request(1, "tools/call", { arguments: {} }),
      expect: (reply) => assert.equal(reply.error?.code, -32602),
    },
    {
      name: "tools/call with a non-string name is -32602",
      line: request(1, "tools/call", { name: 7 }),
      expect: (reply) => assert.equal(reply.error?.code, -32602),
    },
    {
      name: "tools/call of an unknown tool is -32601",
      line: call(1, "nope"),
      expect: (reply) => assert.equal(reply.error?.code, -32601),
    },
    {
      name: "tools/call with array arguments is -32602",
      line: call(1, "echo", [1]),
      expect: (reply) => assert.equal(reply.error?.code, -32602),
    },
    {
      name: "params that are an array are -32602",
      line: request(1, "ping", [1]),
      expect: (reply) => assert.equal(reply.error?.code, -32602),
    },
    {
      name: "an unknown method is -32601 before initialize",
      line: request(1, "resources/list", {}),
      expect: (reply) => assert.equal(reply.error?.code, -32601),
    },
  ];
  const tools = [
    tool("z_tool", () => "z"),
    echo,
    tool("a_tool", (args) => JSON.stringify(args)),
  ];
  for (const entry of cases) {
    await t.step(entry.name, async () => {
      const replies = await run([entry.line], tools);
      assert.equal(replies.length, 1);
      entry.expect(byId(replies, replies[0]?.id ?? null));
    });
  }
});

Deno.test("serve() answers hostile lines and keeps serving", async (t) => {
  const huge = new Uint8Array(MAX_LINE_BYTES + 2).fill(0x61);
  huge[huge.length - 1] = 0x0a;
  const cases: {
    name: string;
    line: string | Uint8Array;
    reply: { id: JsonValue; code?: number; result?: JsonValue } | "none";
  }[] = [
    {
      name: "non-JSON",
      line: "not json",
      reply: { id: null, code: -32700 },
    },
    {
      name: "a batch",
      line: `[${request(5, "ping")}]`,
      reply: { id: null, code: -32700 },
    },
    {
      name: "a scalar",
      line: "42",
      reply: { id: null, code: -32700 },
    },
    {
      name: "no method",
      line: '{"jsonrpc":"2.0","id":5}',
      reply: { id: null, code: -32700 },
    },
    {
      name: "wrong jsonrpc",
      line: '{"jsonrpc":"1.0","id":5,"method":"ping"}',
      reply: { id: 5, code: -32600 },
    },
    {
      name: "a non-string method",
      line: '{"jsonrpc":"2.0","id":5,"method":3}',
      reply: { id: 5, code: -32600 },
    },
    {
      name: "a float id",
      line: '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
      reply: { id: null, code: -32600 },
    },
    {
      name: "an object id",
      line: '{"jsonrpc":"2.0","id":{},"method":"ping"}',
      reply: { id: null, code: -32600 },
    },
    { name: "a string id", line: request("abc", "ping"), reply: { id: "abc", result: {} } },
    { name: "id 0", line: request(0, "ping"), reply: { id: 0, result: {} } },
    { name: "a null id (a notification)", line: request(null, "ping"), reply: "none" },
    {
      name: "a notification",
      line: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      reply: "none",
    },
    {
      name: "a cancellation of an unknown id",
      line: '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}',
      reply: "none",
    },
    {
      name: "non-UTF-8 bytes",
      line: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d, 0x0a]),
      reply: { id: null, code: -32700 },
    },
    {
      name: "a line past MAX_LINE_BYTES",
      line: huge,
      reply: { id: null, code: -32700 },
    },
  ];
  for (const entry of cases) {
    await t.step(entry.name, async () => {
      const replies = await run([entry.line, request("after", "ping")]);
      const last = replies.at(-1);
      assert.deepEqual(last, { jsonrpc: "2.0", id: "after", result: {} });
      if (entry.reply === "none") {
        assert.equal(replies.length, 1);
        return;
      }
      assert.equal(replies.length, 2);
      const first = replies[0] as Reply;
      assert.equal(first.id, entry.reply.id);
      if (entry.reply.code !== undefined) assert.equal(first.error?.code, entry.reply.code);
      if (entry.reply.result !== undefined) assert.deepEqual(first.result, entry.reply.result);
    });
  }
});

Deno.test("serve() answers every non-UTF-8 line of one read, each in its place", async () => {
  const encoder = new TextEncoder();
  const chunk = [
    encoder.encode(`${request(1, "ping")}\n`),
    new Uint8Array([0x7b, 0xff, 0x7d, 0x0a]),
    encoder.encode(`${request(2, "ping")}\n`),
    new Uint8Array([0x7b, 0xc3, 0x7d, 0x0a]),
    encoder.encode(`\uFEFF${request(3, "ping")}\r\n`),
  ];
  const bytes = new Uint8Array(chunk.reduce((size, part) => size + part.length, 0));
  chunk.reduce((at, part) => (bytes.set(part, at), at + part.length), 0);
  const replies = await run([bytes]);
  assert.deepEqual(replies.map((reply) => reply.id), [1, null, 2, null, 3]);
  assert.equal(replies[1]?.error?.code, -32700);
  assert.match(replies[3]?.error?.message ?? "", /not valid UTF-8/);
});

Deno.test("serve() echoes a huge integer id exactly", async () => {
  const transport = new ReplayTransport([
    '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}',
  ]);
  await serve({ name: "test", version: "1", tools: [] }, transport);
  assert.deepEqual(transport.written, [
    '{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}',
  ]);
});

Deno.test("serve() turns a bad tool run into an isError result", async (t) => {
  const cases: { name: string; run: Tool["run"]; says: RegExp }[] = [
    {
      name: "a throw",
      run: () => {
        throw new Error("boom");
      },
      says: /Tool "bad" failed: boom/,
    },
    { name: "a rejection", run: () => Promise.reject(new Error("late boom")), says: /late boom/ },
    { name: "a number", run: () => 42 as unknown as string, says: /returned 42, not a result/ },
    {
      name: "a block of an unknown type",
      run: () => ({ content: [{ type: "video" }] }) as unknown as string,
      says: /content block 0 whose "type" is "video"/,
    },
    {
      name: "a value JSON cannot say",
      run: () => ({ structuredContent: { n: NaN } }),
      says: /JSON cannot say/,
    },
    {
      name: "a result past MAX_LINE_BYTES",
      run: () => "x".repeat(MAX_LINE_BYTES),
      says: /past the 16777216-byte line limit/,
    },
  ];
  for (const entry of cases) {
    await t.step(entry.name, async () => {
      const replies = await run([call(1, "bad"), request(2, "ping")], [tool("bad", entry.run)]);
      const reply = byId(replies, 1);
      assert.equal(reply.result?.isError, true);
      assert.match(texts(reply)[0] ?? "", entry.says);
      assert.deepEqual(byId(replies, 2).result, {});
    });
  }
});

Deno.test("serve() renders structuredContent alone as a JSON text block", async () => {
  const replies = await run([call(1, "s")], [
    tool("s", () => ({ structuredContent: { big: 2n ** 64n } })),
  ]);
  assert.deepEqual(texts(byId(replies, 1)), ['{"big":18446744073709551616}']);
});

// A tool whose runs wait until the test releases them.
function gate(): { tool: Tool; release: () => void; started: Promise<AbortSignal> } {
  let release = () => {};
  let started: (signal: AbortSignal) => void = () => {};
  const startedPromise = new Promise<AbortSignal>((resolve) => started = resolve);
  const held = new Promise<void>((resolve) => release = resolve);
  return {
    tool: tool("hold", async (_args, context) => {
      started(context.signal);
      await held;
      return context.signal.aborted ? "aborted" : "released";
    }),
    release: () => release(),
    started: startedPromise,
  };
}

Deno.test("serve() answers a ping while a tool runs, and runs tools one at a time", async () => {
  const held = gate();
  const order: string[] = [];
  const transport = new ReplayTransport([call(1, "hold"), call(2, "mark"), request(3, "ping")], {
    open: true,
  });
  const done = serve({
    name: "t",
    version: "1",
    tools: [held.tool, tool("mark", () => (order.push("mark"), "marked"))],
  }, transport);
  await held.started;
  await transport.waitForWrites(1);
  assert.deepEqual(transport.messages(), [{ jsonrpc: "2.0", id: 3, result: {} }]);
  assert.deepEqual(order, []);
  held.release();
  transport.finish();
  assert.deepEqual(await done, { kind: "end_of_input" });
  assert.deepEqual((transport.messages() as Reply[]).map((reply) => reply.id), [3, 1, 2]);
});

Deno.test("serve() drops a cancelled call: queued or running, it is not answered", async () => {
  const held = gate();
  const transport = new ReplayTransport([call(1, "hold"), call(2, "hold")], { open: true });
  const done = serve({ name: "t", version: "1", tools: [held.tool] }, transport);
  const signal = await held.started;
  transport.feed(
    '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}',
    '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}',
    request(3, "ping"),
  );
  await transport.waitForWrites(1);
  assert.equal(signal.aborted, true);
  held.release();
  transport.finish();
  await done;
  assert.deepEqual(transport.messages(), [{ jsonrpc: "2.0", id: 3, result: {} }]);
});

Deno.test("serve() ends with channel_dead when a write fails", async () => {
  const transport = new ReplayTransport([
    request(1, "ping"),
    request(2, "ping"),
    request(3, "ping"),
  ], {
    failWritesAfter: 1,
  });
  const end = await serve({ name: "t", version: "1", tools: [] }, transport);
  assert.equal(end.kind, "channel_dead");
  assert.equal(end.kind === "channel_dead" && end.failure.kind, "write_failed");
  assert.equal(transport.written.length, 1);
});

Deno.test("serve() throws TypeError for a malformed definition", async (t) => {
  const cases: { name: string; tools: Tool[]; serverName?: string }[] = [
    { name: "an empty server name", tools: [], serverName: "" },
    { name: "a tool name with a space", tools: [tool("a b", () => "")] },
    { name: "an empty tool name", tools: [tool("", () => "")] },
    { name: "two tools of one name", tools: [echo, echo] },
    {
      name: "an inputSchema that is not an object schema",
      tools: [{ ...echo, inputSchema: { type: "string" } }],
    },
    // The official SDK client refuses a whole listing holding one (outputSchema.type is "object").
    {
      name: "an outputSchema that is not an object schema",
      tools: [{ ...echo, outputSchema: { type: "string" } }],
    },
    {
      name: "an annotation hint that is not a boolean",
      tools: [{ ...echo, annotations: { readOnlyHint: "yes" } }],
    },
    {
      name: "an annotations title that is not a string",
      tools: [{ ...echo, annotations: { title: 1 } }],
    },
    {
      name: "annotations that are not an object",
      tools: [{ ...echo, annotations: [] as unknown as JsonObject }],
    },
    { name: "a title that is not a string", tools: [{ ...echo, title: 1 as unknown as string }] },
    {
      name: "an outputSchema that is not an object",
      tools: [{ ...echo, outputSchema: [] as unknown as JsonObject }],
    },
  ];
  for (const entry of cases) {
    await t.step(entry.name, () => {
      assert.throws(
        () =>
          serve(
            { name: entry.serverName ?? "t", version: "1", tools: entry.tools },
            new ReplayTransport(),
          ),
        TypeError,
      );
    });
  }
});

Deno.test("a tool with an outputSchema that returns no structuredContent is answered isError", async (t) => {
  const outputSchema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
  const cases: { name: string; run: Tool["run"]; isError: boolean }[] = [
    { name: "a string", run: () => "just text", isError: true },
    {
      name: "content only",
      run: () => ({ content: [{ type: "text", text: "x" }] }),
      isError: true,
    },
    { name: "structuredContent", run: () => ({ structuredContent: { n: 1 } }), isError: false },
    // The schema is the tool's to keep; an error result needs no structured content.
    { name: "an isError result", run: () => ({ content: [], isError: true }), isError: true },
  ];
  for (const entry of cases) {
    await t.step(entry.name, async () => {
      const replies = await run([call(1, "counted")], [{
        ...tool("counted", entry.run),
        outputSchema,
      }]);
      const result = byId(replies, 1).result;
      assert.equal(result?.isError === true, entry.isError, JSON.stringify(result));
      if (entry.isError && entry.name !== "an isError result") {
        assert.match(texts(byId(replies, 1))[0] ?? "", /"counted" declares an outputSchema/);
      }
    });
  }
});

Deno.test("serve() returns a run's stderr as a last text block", async (t) => {
  const deno = Deno.execPath();
  // `deno test` routes console output around fd 2, so capture of the process's own
  // fd 2 is proven over real stdio, in real_clients_test.ts.
  const cases: { name: string; run: Tool["run"]; expect: RegExp }[] = [
    {
      name: "through the context",
      run: (_args, context) => (context.stderr("said\n"), "ok"),
      expect: /^said\n$/,
    },
    {
      name: "from a child run with context.output",
      run: async (_args, context) => {
        const out = await context.output(deno, {
          args: ["eval", "console.error('child says'); console.log('out')"],
        });
        return new TextDecoder().decode(out.stdout).trim();
      },
      expect: /^child says\n$/,
    },
    {
      name: "from a child spawned with context.spawn",
      run: async (_args, context) => {
        const child = context.spawn(deno, { args: ["eval", "console.error('spawned says')"] });
        return (await child.status).success ? "ok" : "child failed";
      },
      expect: /^spawned says\n$/,
    },
  ];
  for (const entry of cases) {
    await t.step(entry.name, async () => {
      const replies = await run([call(1, "noisy")], [tool("noisy", entry.run)]);
      const content = byId(replies, 1).result?.content as Record<string, JsonValue>[];
      const block = content.at(-1);
      assert.deepEqual(block?._meta, { [STDERR_BLOCK_META_KEY]: true });
      assert.match(String(block?.text), entry.expect);
    });
  }
});

Deno.test("captureStderr() refuses a nested capture and restores fd 2", async () => {
  const outer = await captureStderr(async () => {
    const inner = await captureStderr(() => Promise.resolve("inner"));
    return inner.ok ? "nested" : inner.error.kind;
  });
  assert.ok(outer.ok, JSON.stringify(outer));
  assert.equal(outer.value.value, "capture_busy");
  await assert.rejects(captureStderr(() => Promise.reject(new Error("run failed"))), /run failed/);
  const after = await captureStderr((sink) => {
    sink.write(new TextEncoder().encode("again"));
    return Promise.resolve(1);
  });
  assert.ok(after.ok);
  assert.equal(after.value.stderr, "again");
});

Deno.test("ReplayTransport.messages() parses exact ids, and feed() after the end throws", async () => {
  const transport = new ReplayTransport([request(2n ** 70n, "ping")]);
  await serve({ name: "t", version: "1", tools: [] }, transport);
  assert.deepEqual(transport.messages(), [{ jsonrpc: "2.0", id: 2n ** 70n, result: {} }]);
  assert.throws(() => transport.feed(request(1, "ping")), TypeError);
});
