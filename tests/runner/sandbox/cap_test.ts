import assert from "node:assert/strict";
import type * as capTypes from "../../../runner/sandbox/cap.ts";

type Cap = typeof capTypes;
let fresh = 0;

// Each test gets its own instance of the module, so each installs its own channel.
async function load(): Promise<Cap> {
  return await import(`../../../runner/sandbox/cap.ts?instance=${fresh++}`);
}

Deno.test("cap.ts imports nothing", async () => {
  const text = await Deno.readTextFile(new URL("../../../runner/sandbox/cap.ts", import.meta.url));
  assert.doesNotMatch(text, /^\s*(import|export)\s[^;]*\sfrom\s/m);
  assert.doesNotMatch(text, /\bimport\s*\(/);
});

Deno.test("invoke() without a channel rejects with no_channel", async () => {
  const cap = await load();
  const error = await cap.invoke("files", "read_file", {}).then(() => undefined, (e) => e);
  assert.ok(error instanceof cap.McpCallError);
  assert.equal(error.code, "no_channel");
  assert.equal(error.server, "files");
  assert.equal(error.tool, "read_file");
  assert.match(error.message, /no channel is installed/);
});

Deno.test("installChannel() refuses a second channel and a non-function", async () => {
  const cap = await load();
  assert.throws(() => cap.installChannel("x" as unknown as capTypes.CapChannel), TypeError);
  cap.installChannel(() => Promise.resolve({ ok: false, code: "x", message: "x" }));
  assert.throws(
    () => cap.installChannel(() => Promise.resolve({ ok: false, code: "x", message: "x" })),
    TypeError,
  );
});

Deno.test("invoke() settles every reply as the program expects", async (t) => {
  const cap = await load();
  let reply: unknown;
  const seen: unknown[] = [];
  cap.installChannel((server, tool, args) => {
    seen.push([server, tool, args]);
    return reply instanceof Error
      ? Promise.reject(reply)
      : Promise.resolve(reply as capTypes.CapReply);
  });
  const call = () => cap.invoke("s", "t", { a: 1 }).then((v) => v, (e) => e);

  await t.step("a result resolves with blocks, structured content and joined text", async () => {
    reply = {
      ok: true,
      content: [{ type: "text", text: "a" }, { type: "image", data: "", mimeType: "image/png" }, {
        type: "text",
        text: "b",
      }],
      structuredContent: { n: 1 },
      isError: false,
    };
    const result = await call();
    assert.ok(result instanceof cap.ToolResult);
    assert.equal(result.text, "a\nb");
    assert.deepEqual(result.structuredContent, { n: 1 });
    assert.equal(result.content.length, 3);
    assert.deepEqual(seen.at(-1), ["s", "t", { a: 1 }]);
  });
  await t.step("an isError result rejects with McpToolError carrying every block", async () => {
    reply = {
      ok: true,
      content: [{ type: "text", text: "no such file" }, {
        type: "other",
        originalType: "x",
        raw: {},
      }],
      isError: true,
    };
    const error = await call();
    assert.ok(error instanceof cap.McpToolError);
    assert.equal(error.content.length, 2);
    assert.equal(error.text, "no such file");
    assert.equal(error.server, "s");
    assert.equal(error.tool, "t");
    assert.match(error.message, /^Tool "t" of server "s" reported an error: no such file$/);
  });
  await t.step("a denial rejects with McpCallError and its code", async () => {
    reply = { ok: false, code: "unknown_tool", message: "Cannot call tool" };
    const error = await call();
    assert.ok(error instanceof cap.McpCallError);
    assert.equal(error.code, "unknown_tool");
    assert.equal(error.message, "Cannot call tool");
  });
  await t.step("a malformed reply rejects with result_malformed", async () => {
    reply = { ok: true, content: "x", isError: false };
    assert.equal((await call()).code, "result_malformed");
  });
  await t.step("a failing channel rejects with channel_failed", async () => {
    reply = new Error("pipe closed");
    const error = await call();
    assert.equal(error.code, "channel_failed");
    assert.match(error.message, /pipe closed/);
  });
  await t.step("arguments that are not a plain object are refused before sending", async () => {
    const before = seen.length;
    const error = await cap.invoke("s", "t", [] as unknown as capTypes.JsonObject).then(
      () => undefined,
      (e) => e,
    );
    assert.equal(error.code, "invalid_arguments");
    assert.equal(seen.length, before);
  });
});

Deno.test("readResource() asks the installed reader, never the call channel", async () => {
  const cap = await load();
  const seen: unknown[] = [];
  cap.installChannel((server, tool) => {
    seen.push(["call", server, tool]);
    return Promise.resolve({ ok: false, code: "x", message: "x" });
  }, {
    read: (server, uri) => {
      seen.push(["read", server, uri]);
      const resource = { uri, text: "hello" };
      return Promise.resolve({
        ok: true,
        content: [{ type: "resource", resource }],
        isError: false,
      });
    },
  });
  const read = await cap.readResource("files", "demo://1");
  assert.ok(read instanceof cap.ResourceResult);
  assert.equal(read.text, "hello");
  assert.deepEqual(seen, [["read", "files", "demo://1"]]);
});

Deno.test("readResource() without a reader rejects with no_channel", async () => {
  const cap = await load();
  cap.installChannel(() => Promise.resolve({ ok: false, code: "x", message: "x" }));
  const error = await cap.readResource("files", "demo://1").then(() => undefined, (e) => e);
  assert.ok(error instanceof cap.McpCallError);
  assert.equal(error.code, "no_channel");
  assert.equal(error.tool, "resources/read");
});
