/**
 * The sandbox room's main module: the one trusted module of the sandbox
 * process, started by `runner/host/_sandbox.ts` with no permission but reading the
 * build root.
 *
 * Why a bootstrap at all: a main module may import any local JSON file with
 * no permission, while a Worker's module loads are checked against the
 * process's read permission. So the program runs in a Worker started here.
 *
 * Started ahead: the host may start this process before its program exists
 * (a warm sandbox). The Worker is created at once, so its prelude and
 * `cap.ts` are loaded while the process waits; once they are, and only if the
 * nonce has not been read yet, this module writes the one line `ready` (no
 * program code can have run: the program is imported only after the Worker is
 * told `start`, which follows the nonce).
 *
 * The channel: the host writes `program.ts` into the build root, then one
 * line to stdin, the per-execution nonce, which this module reads before the
 * Worker is told to start, so no program code runs before it is consumed
 * (argv and the environment are visible to the program; consumed stdin is
 * not). Every frame
 * this module writes to stdout is that nonce, a space, and one JSON object;
 * the program can write to stdout too, but cannot know the nonce, so the host
 * tells frames from noise. Every later stdin line is a reply from the host,
 * relayed to the Worker as the text it is (the prelude parses it; parsing it
 * here too would only clone the tree across). Stdin ending means the host is
 * gone: the process exits. A `done`, `threw`, `exited` or `fault` frame is the
 * last one: the process exits once it is written.
 *
 * Part of the sandbox room (`runner/sandbox/`): it runs only inside the
 * sandbox, where the runner writes it as the JavaScript `deno task generate`
 * makes of it (`bootstrap.js`, carried in `_generated/sandbox_sources.ts`,
 * with `./prelude.ts` renamed `./prelude.js`) into the build root, and it
 * imports nothing.
 *
 * @module
 */

const NONCE = /^[0-9a-f]{32}$/;
const KINDS = new Set(["call", "read", "discover", "log", "done", "threw", "exited"]);
const FINAL = new Set(["done", "threw", "exited", "fault"]);

/**
 * The bytes of each read of stdin: what a pipe holds on Linux. Stdin is read
 * with `Deno.stdin.read`, not through `Deno.stdin.readable`: the first use of
 * a stream loads the runtime's streams code, which cost a sandbox's start 8
 * to 12 ms with the code cache off (BENCHMARKS.md, sixth pass).
 */
const READ_BYTES = 64 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const chunk = new Uint8Array(READ_BYTES);
let buffered = "";

/** The next line of stdin, without its newline; `undefined` once stdin ends or fails. */
async function readLine(): Promise<string | undefined> {
  // Only the text read since the last search can hold the next newline.
  let from = 0;
  while (true) {
    const newline = buffered.indexOf("\n", from);
    if (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      return line;
    }
    from = buffered.length;
    let read: number | null;
    try {
      read = await Deno.stdin.read(chunk);
    } catch {
      return undefined;
    }
    if (read === null) return undefined;
    buffered += decoder.decode(chunk.subarray(0, read), { stream: true });
  }
}

async function writeAll(bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await Deno.stdout.write(bytes.subarray(offset));
}

const worker = new Worker(new URL("./prelude.ts", import.meta.url), { type: "module" });

// Every frame waits for the nonce; nothing the Worker posts before it (a load
// failure) is lost or written unauthenticated.
let nonceRead = false;
const nonceLine = readLine().then((line) => {
  if (line === undefined || !NONCE.test(line)) Deno.exit(2);
  nonceRead = true;
  return line;
});
// The ready line, written before any frame: frames wait for the nonce, and
// then for this write.
let readyWritten: Promise<unknown> = Promise.resolve();
let writing: Promise<unknown> = nonceLine.then(() => readyWritten);
let ending = false;

function send(frame: Record<string, unknown>): void {
  if (ending) return;
  let body: string;
  try {
    body = JSON.stringify(frame);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    body = JSON.stringify({
      kind: "fault",
      message: `Cannot encode a message of the program: ${reason}`,
    });
    frame = { kind: "fault" };
  }
  const final = FINAL.has(String(frame.kind));
  if (final) ending = true;
  writing = writing.then(async () => writeAll(encoder.encode(`${await nonceLine} ${body}\n`)));
  if (final) writing.then(() => Deno.exit(0), () => Deno.exit(1));
}

worker.onmessage = (event: MessageEvent) => {
  const data: unknown = event.data;
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    send({ kind: "fault", message: "The program posted a message that is not an object" });
    return;
  }
  const kind = (data as { kind?: unknown }).kind;
  if (kind === "ready") {
    // The prelude's, once loaded; later ones (the program's) are ignored.
    if (!nonceRead) readyWritten = writeAll(encoder.encode("ready\n"));
    return;
  }
  if (typeof kind !== "string" || !KINDS.has(kind)) {
    send({ kind: "fault", message: "The program posted a message of no kind the runner knows" });
    return;
  }
  send(data as Record<string, unknown>);
};

worker.onmessageerror = () => {
  send({ kind: "fault", message: "The program posted a message that cannot be received" });
};

worker.onerror = (event: ErrorEvent) => {
  event.preventDefault();
  const where = event.filename ? `\n    at ${event.filename}:${event.lineno}:${event.colno}` : "";
  const text = String(event.message ?? "Uncaught error");
  // "Uncaught (in promise) TypeError: bad" names the error and its message.
  const parts = /^Uncaught (?:\(in promise\) )?([A-Za-z_$][\w$]*): ([\s\S]*)$/.exec(text);
  const name = parts?.[1] ?? "Error";
  const message = parts?.[2] ?? text;
  send({ kind: "threw", name, message, stack: `${name}: ${message}${where}` });
};

await nonceLine;
worker.postMessage({ kind: "start" });

while (true) {
  const line = await readLine();
  if (line === undefined) Deno.exit(1);
  worker.postMessage(line);
}
