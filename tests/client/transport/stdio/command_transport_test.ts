import assert from "node:assert/strict";
import { CommandTransport } from "../../../../client/transport/stdio/command_transport.ts";

const FIRST_READ = new URL("../../../fixtures/first_read.ts", import.meta.url).pathname;
const COPY_STDIN = new URL("../../../fixtures/copy_stdin.ts", import.meta.url).pathname;
const decoder = new TextDecoder();

/** A transport running a fixture script with this Deno; no group control. */
function fixtureTransport(name: string, path: string): CommandTransport {
  return new CommandTransport({
    name,
    command: Deno.execPath(),
    args: ["run", "--no-lock", path],
    env: {},
    group: { signal: () => {}, drain: () => Promise.resolve("unknown") },
  });
}

Deno.test("CommandTransport writes the lines of one synchronous run in one write", async () => {
  const transport = fixtureTransport("first_read", FIRST_READ);
  let stdout = "";
  const ready = Promise.withResolvers<void>();
  const exited = Promise.withResolvers<void>();
  const opened = await transport.open({
    bytes(chunk) {
      stdout += decoder.decode(chunk);
      if (stdout.startsWith("ready\n")) ready.resolve();
    },
    end: () => {},
    exit: () => exited.resolve(),
  });
  assert.ok(opened.ok);
  // The server is blocked in its read: a line written in parts would wake it
  // with the first part only.
  await ready.promise;
  const parts = [
    '{"jsonrpc":"2.0","id":0,"method":"tools/call","params":',
    '{"name":"echo","arguments":{"text":"hello"}}',
    "}\n",
    '{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
  ];
  for (const part of parts) transport.write(part);
  transport.closeStdin();
  await exited.promise;
  await transport.dispose();
  assert.equal(stdout, `ready\n${parts.join("").length}\n`);
});

Deno.test("CommandTransport writes text of any size through its kept buffer, and reads stdout back whole", async () => {
  const transport = fixtureTransport("copy_stdin", COPY_STDIN);
  // Each chunk is lent for the length of the call: what is kept is copied.
  const chunks: Uint8Array[] = [];
  const exited = Promise.withResolvers<void>();
  const opened = await transport.open({
    bytes: (chunk) => chunks.push(chunk.slice()),
    end: () => {},
    exit: () => exited.resolve(),
  });
  assert.ok(opened.ok);
  const sent: Array<string | Uint8Array> = [];
  const send = (data: string | Uint8Array) => {
    sent.push(data);
    transport.write(data);
  };
  for (let index = 0; index < 60; index++) {
    // Short and multi-byte text, text past the kept buffer (3 bytes a unit
    // for 30,000 units), bytes between; some in one turn, some across turns.
    send(`line ${index} ${"é😀".repeat(index * 40)}\n`);
    if (index % 7 === 0) send(`${"日".repeat(30_000)}\n`);
    if (index % 11 === 0) send(new TextEncoder().encode(`bytes ${index}\n`));
    if (index % 3 === 0) await new Promise((resolve) => setTimeout(resolve, 0));
  }
  transport.closeStdin();
  await exited.promise;
  await transport.dispose();
  const expected = sent.map((data) => typeof data === "string" ? data : decoder.decode(data));
  assert.equal(decoder.decode(joinAll(chunks)), expected.join(""));
});

function joinAll(chunks: Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.length;
  }
  return whole;
}
