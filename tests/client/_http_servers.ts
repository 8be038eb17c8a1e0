// Shared by the remote-server tests: HTTP servers run as their own process on
// loopback (a fixture under tests/fixtures/ or a command), each printing
// "listening <port>" or a line with its URL once it serves.

/** A server running on loopback. */
export type Served = {
  /** Its origin, `http://127.0.0.1:<port>`. */
  origin: string;
  /** Stops it and waits for its exit. */
  close(): Promise<void>;
};

/** Runs `tests/fixtures/<file>` with this Deno and waits until it listens. */
export function serveFixture(
  file: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<Served> {
  const path = new URL(`../fixtures/${file}`, import.meta.url).pathname;
  return serveCommand(Deno.execPath(), ["run", "-A", "--quiet", "--no-lock", path, ...args], env);
}

/**
 * Runs a command and waits for the port it says it listens on, in a line of
 * its stdout or stderr: `listening <port>`, or a URL on 127.0.0.1 or localhost.
 */
export async function serveCommand(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Served> {
  const child = new Deno.Command(command, {
    args,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const seen: string[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    let found = false;
    const watch = async (stream: ReadableStream<Uint8Array>) => {
      const lines = stream.pipeThrough(new TextDecoderStream());
      let held = "";
      for await (const chunk of lines) {
        if (found) continue;
        held += chunk;
        const parts = held.split("\n");
        held = parts.pop() ?? "";
        for (const line of parts) {
          seen.push(line);
          const match = /listening (?:on port )?(\d+)/.exec(line) ??
            /(?:127\.0\.0\.1|localhost):(\d+)/.exec(line);
          if (match !== null && !found) {
            found = true;
            resolve(Number(match[1]));
          }
        }
      }
    };
    const done = Promise.all([watch(child.stdout), watch(child.stderr)]);
    void done.then(() => {
      if (!found) reject(new Error(`The server ended before listening: ${seen.join("\n")}`));
    });
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    async close() {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already gone.
      }
      await child.status;
    },
  };
}
