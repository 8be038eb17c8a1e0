import assert from "node:assert/strict";
import { CommandTransport } from "../../worker/command_transport.ts";

const FIRST_READ = new URL("../fixtures/first_read.ts", import.meta.url).pathname;
const decoder = new TextDecoder();

Deno.test("CommandTransport writes the lines of one synchronous run in one write", async () => {
  const transport = new CommandTransport({
    name: "first_read",
    command: Deno.execPath(),
    args: ["run", "--no-lock", FIRST_READ],
    env: {},
    group: { signal: () => {}, drain: () => Promise.resolve("unknown") },
  });
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
