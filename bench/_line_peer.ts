// Private to the benches: a `deno` child spoken to as an MCP host speaks to
// a stdio server, one JSON-RPC line each way; answers to other ids, and
// notifications, are skipped.

const encoder = new TextEncoder();

/** One answer: its result, or its error. */
export type Answer = { result?: { isError?: boolean; [key: string]: unknown }; error?: unknown };

/** A `deno` child with piped stdin and stdout, its stderr dropped. */
export class LinePeer {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reader: ReadableStreamDefaultReader<string>;
  #held = "";
  #id = 0;

  /** Spawns `deno` with `args`. */
  constructor(args: string[]) {
    this.#child = new Deno.Command(Deno.execPath(), {
      args,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#reader = this.#child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** Writes a notification. */
  async notify(method: string): Promise<void> {
    await this.#writer.write(encoder.encode(JSON.stringify({ jsonrpc: "2.0", method }) + "\n"));
  }

  /** Writes a request and reads lines until its answer. */
  async request(method: string, params: unknown): Promise<Answer> {
    const id = this.#id++;
    const line = JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n";
    await this.#writer.write(encoder.encode(line));
    for (;;) {
      const newline = this.#held.indexOf("\n");
      if (newline >= 0) {
        const message = JSON.parse(this.#held.slice(0, newline));
        this.#held = this.#held.slice(newline + 1);
        if (message.id === id) return message;
        continue;
      }
      const { value, done } = await this.#reader.read();
      if (done) throw new Error("the child closed its stdout");
      this.#held += value;
    }
  }

  /** Closes its stdin and waits for it to exit. */
  async close(): Promise<void> {
    await this.#writer.close();
    await this.#reader.cancel();
    await this.#child.status;
  }
}
