// Shared by the conformance tests: a loopback relay in front of an HTTP MCP
// server that adds the bearer token to each request, and one run of the
// conformance suite's server scenario.
//
// The relay is there because the suite sends no credential, while the token
// on every request is what the server requires (issue 39): the relay does
// what a host configured with the token does, and says the server's own port
// in Host and Origin, so the server sees the Host and Origin the suite chose,
// the rebound name included.

/** The conformance suite, pinned. */
export const SUITE = "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12";

/** A running relay: its port, and how to close it. */
export type Relay = { port: number; close(): Promise<void> };

/** A relay to `target` inserting `token` after each request line, loopback names pointed at `target`. */
export function relay(target: number, token: string): Relay {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const pipes: Promise<void>[] = [];
  const connections = new Set<Deno.Conn>();
  const requestLine = /^(GET|POST|DELETE|PUT|PATCH|OPTIONS|HEAD) [^\r\n]* HTTP\/1\.1\r\n/gm;
  const rewrite = (text: string): string =>
    text.replaceAll(`127.0.0.1:${port}`, `127.0.0.1:${target}`)
      .replaceAll(`localhost:${port}`, `localhost:${target}`)
      .replace(requestLine, (line) => `${line}Authorization: Bearer ${token}\r\n`);
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
        // closeWrite's promise rejects when the server has closed the connection first.
        await outbound.closeWrite().catch(() => {});
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

/** One run of the suite's server scenario `name` against `url`, at `version` when given. */
export async function scenario(
  url: string,
  name: string,
  version?: string,
): Promise<{ code: number; text: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      "--no-lock",
      SUITE,
      "server",
      "--url",
      url,
      "--scenario",
      name,
      ...(version === undefined ? [] : ["--spec-version", version]),
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const decoder = new TextDecoder();
  return { code: output.code, text: decoder.decode(output.stdout) + decoder.decode(output.stderr) };
}
