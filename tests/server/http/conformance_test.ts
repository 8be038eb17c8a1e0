// The conformance suite's server scenarios that need none of its own test
// tools, against serveHttp over loopback: server-initialize, ping,
// server-session-lifecycle and dns-rebinding-protection. The suite sends no
// credential, so it reaches the server through a loopback relay that adds
// the bearer token to each request, as a host configured with the token
// does, and says the server's own port in Host and Origin (so the server
// sees the Host and Origin the suite chose, the rebound name included).

import assert from "node:assert/strict";
import { serveHttp } from "../../../server/mod.ts";

const SUITE = "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12";
const TOKEN = "conformance-token-0123456789";

type Relay = { port: number; close(): Promise<void> };

// Inserts the token after each request line and points loopback names at the server's port.
function relay(target: number): Relay {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const pipes: Promise<void>[] = [];
  const connections = new Set<Deno.Conn>();
  const requestLine = /^(GET|POST|DELETE|PUT|PATCH|OPTIONS|HEAD) [^\r\n]* HTTP\/1\.1\r\n/gm;
  const rewrite = (text: string): string =>
    text.replaceAll(`127.0.0.1:${port}`, `127.0.0.1:${target}`)
      .replaceAll(`localhost:${port}`, `localhost:${target}`)
      .replace(requestLine, (line) => `${line}Authorization: Bearer ${TOKEN}\r\n`);
  const accepting = (async () => {
    for await (const inbound of listener) {
      const outbound = await Deno.connect({ hostname: "127.0.0.1", port: target });
      connections.add(inbound);
      connections.add(outbound);
      const up = (async () => {
        const buffer = new Uint8Array(65536);
        for (;;) {
          const read = await inbound.read(buffer).catch(() => null);
          if (read === null) break;
          // Latin-1 keeps every byte as it is.
          const text = Array.from(buffer.subarray(0, read), (b) => String.fromCharCode(b)).join("");
          const bytes = Uint8Array.from(rewrite(text), (c) => c.charCodeAt(0));
          await outbound.write(bytes).catch(() => 0);
        }
        try {
          outbound.closeWrite();
        } catch { /* already closed */ }
      })();
      const down = outbound.readable.pipeTo(inbound.writable).catch(() => {});
      pipes.push(up, down);
    }
  })();
  return {
    port,
    async close() {
      listener.close();
      await accepting.catch(() => {});
      for (const connection of connections) {
        try {
          connection.close();
        } catch { /* already closed */ }
      }
      await Promise.allSettled(pipes);
    },
  };
}

async function scenario(url: string, name: string): Promise<{ code: number; text: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--no-lock", SUITE, "server", "--url", url, "--scenario", name],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const decoder = new TextDecoder();
  return { code: output.code, text: decoder.decode(output.stdout) + decoder.decode(output.stderr) };
}

Deno.test("serveHttp() passes the conformance suite's server scenarios over HTTP", async (t) => {
  const listening = await serveHttp({
    name: "conformance",
    version: "1.0.0",
    tools: [{
      name: "echo",
      description: "Echoes its text.",
      inputSchema: { type: "object", properties: { text: { type: "string" } } },
      run: (args) => String(args.text),
    }],
  }, { token: TOKEN });
  assert.ok(listening.ok);
  const front = relay(Number(listening.value.url.port));
  try {
    const url = `http://127.0.0.1:${front.port}/mcp`;
    for (
      const name of [
        "server-initialize",
        "ping",
        "server-session-lifecycle",
        "dns-rebinding-protection",
      ]
    ) {
      await t.step(name, async () => {
        const run = await scenario(url, name);
        assert.equal(run.code, 0, run.text);
      });
    }
  } finally {
    await front.close();
    await listening.value.close();
  }
});
