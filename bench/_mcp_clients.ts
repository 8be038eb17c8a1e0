// Private to the SDK comparison benchmark: one shape over three ways of
// talking to an MCP server (ours, the official SDK client, a bare pipe),
// the servers they talk to, and the statistics printed.
//
// Both clients are imported dynamically, so a subprocess measuring one
// client's memory never loads the other.

import type { JsonObject } from "../codec/json.ts";
import { isLive } from "../tests/_proc.ts";
import { envelopeText } from "../client/worker/handshake.ts";
import { CLIENT_INFO } from "../client/worker/machine.ts";
import { MODERN_VERSIONS } from "../codec/protocol.ts";
import { childEnv } from "../client/_worker_launch.ts";
export { isLive };

/**
 * A server to run: executable, argv, extra environment; and, for a server our
 * client speaks the modern era with, the `_meta` envelope our client puts
 * first in every request's parameters, which the floors then send too, so
 * that every way of calling puts the same bytes on the wire and the server
 * does the same work for each.
 */
export type Target = {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  envelope?: string;
};

/** What the benchmark asks of a client, whichever it is. */
export interface Session {
  /** The servers' pids, in target order. */
  readonly pids: readonly number[];
  /** Lists every tool of server `index`; returns how many. */
  listTools(index: number): Promise<number>;
  /** Calls a tool on server `index`; returns the length of its first text block. */
  call(index: number, tool: string, args: JsonObject): Promise<number>;
  /** Retires every server; resolves when the client says they are gone. */
  close(): Promise<void>;
}

/** Which client a measurement used. */
export type ClientKind = "ours" | "sdk";

/** The npm server measured beside the fixture. */
export const MEMORY_SERVER = "npm:@modelcontextprotocol/server-memory@2026.8.31";

const ECHO_SERVER = new URL("../tests/fixtures/echo_server.ts", import.meta.url).pathname;

/** The fixture echo server, built on our server transport (both eras: ours speaks 2026-07-28). */
export function echoTarget(name: string): Target {
  return {
    name,
    command: Deno.execPath(),
    args: ["run", "--no-lock", ECHO_SERVER],
    env: {},
    envelope: envelopeText(MODERN_VERSIONS[0], CLIENT_INFO),
  };
}

/** The official memory server, its graph file in `dir`. */
export function memoryTarget(name: string, dir: string): Target {
  return {
    name,
    command: Deno.execPath(),
    args: ["run", "-A", "--no-lock", MEMORY_SERVER],
    env: { MEMORY_FILE_PATH: `${dir}/${name}.jsonl` },
  };
}

function textLength(content: unknown): number {
  if (!Array.isArray(content)) return 0;
  const first: unknown = content[0];
  if (typeof first !== "object" || first === null) return 0;
  const text = (first as { text?: unknown }).text;
  return typeof text === "string" ? text.length : 0;
}

/**
 * The environment our client gives a target's server: its defaults, the
 * allowlist's variables where set (`DENO_DIR` and the CA-file variables
 * among them), then the target's own pairs. The SDK's child gets it too: its
 * transport passes only `HOME`, `PATH` and a few more, so its `deno run
 * npm:...` would look for Deno's cache under `HOME` and reach the registry
 * without the CA files, and the two clients would not start the same server.
 */
export function serverEnv(target: Target): Record<string, string> {
  return childEnv({
    name: target.name,
    command: target.command,
    args: target.args,
    env: target.env,
    inheritEnv: [],
    stderr: "tail",
  });
}

/** Starts every target with our client: a census, one worker per server. */
export async function openOurs(targets: readonly Target[]): Promise<Session> {
  const { Census } = await import("../client/census.ts");
  const census = Census.prepare(targets.map((target) => ({
    name: target.name,
    command: target.command,
    args: target.args,
    env: target.env,
    inheritEnv: [],
    stderr: "tail" as const,
  })));
  const started = await census.connectAll();
  for (const [name, outcome] of started) {
    if (!outcome.ok) {
      await census.retire();
      throw new Error(`Cannot start "${name}" with our client: ${outcome.error.message}`);
    }
  }
  const clients = [...census.clients.values()];
  const client = (index: number) => {
    const found = clients[index];
    if (found === undefined) throw new RangeError(`No server ${index}`);
    return found;
  };
  return {
    pids: clients.map((one) => one.pid ?? -1),
    async listTools(index) {
      const listed = await client(index).listTools();
      if (!listed.ok) throw new Error(`tools/list failed: ${listed.error.message}`);
      return listed.value.length;
    },
    async call(index, tool, args) {
      const called = await client(index).callTool(tool, args);
      if (!called.ok) throw new Error(`tools/call ${tool} failed: ${called.error.message}`);
      if (called.value.isError) throw new Error(`tools/call ${tool} answered isError`);
      return textLength(called.value.content);
    },
    async close() {
      const report = await census.retire();
      if (!report.confirmed) throw new Error("Our client could not confirm every retirement");
    },
  };
}

/** Starts every target with the official SDK client over its stdio transport. */
export async function openSdk(targets: readonly Target[]): Promise<Session> {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const clients = await Promise.all(targets.map(async (target) => {
    const client = new Client({ name: "bench", version: "1.0.0" }, { capabilities: {} });
    const transport = new StdioClientTransport({
      command: target.command,
      args: target.args,
      env: serverEnv(target),
      stderr: "ignore",
    });
    await client.connect(transport);
    return { client, transport };
  }));
  const entry = (index: number) => {
    const found = clients[index];
    if (found === undefined) throw new RangeError(`No server ${index}`);
    return found;
  };
  return {
    pids: clients.map((one) => one.transport.pid ?? -1),
    async listTools(index) {
      const { client } = entry(index);
      let count = 0;
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        count += page.tools.length;
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return count;
    },
    async call(index, tool, args) {
      const result = await entry(index).client.callTool({ name: tool, arguments: args });
      if (result.isError === true) throw new Error(`tools/call ${tool} answered isError`);
      return textLength(result.content);
    },
    async close() {
      await Promise.all(clients.map(({ client }) => client.close()));
    },
  };
}

/** Opens a session of the given kind. */
export function open(kind: ClientKind, targets: readonly Target[]): Promise<Session> {
  return kind === "ours" ? openOurs(targets) : openSdk(targets);
}

const NEWLINE = 0x0a;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The physical floor: a bare `Deno.Command` pipe, request lines written as
 * bytes and replies counted by their newline, no framing or JSON library.
 * With `parse`, each reply is also kept, decoded and parsed with
 * `JSON.parse` once its newline arrives: the least any client that hands
 * back the answer as a value pays.
 */
export class Pipe {
  #child: Deno.ChildProcess;
  #parse: boolean;
  #pieces: Uint8Array[] = [];
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #waiters: Array<(bytes: number) => void> = [];
  #head = 0;
  #lineBytes = 0;
  #nextId = 1;
  #reading: Promise<void>;
  #envelope: string | undefined;

  constructor(target: Target, options: { parse?: boolean } = {}) {
    this.#parse = options.parse ?? false;
    this.#child = new Deno.Command(target.command, {
      args: target.args,
      env: target.env,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#reading = this.#read();
    this.#envelope = target.envelope;
  }

  async #read(): Promise<void> {
    for await (const chunk of this.#child.stdout) {
      let start = 0;
      for (;;) {
        const end = chunk.indexOf(NEWLINE, start);
        if (end === -1) break;
        const bytes = this.#lineBytes + end - start;
        if (this.#parse) this.#parsed(chunk.subarray(start, end), bytes);
        this.#lineBytes = 0;
        start = end + 1;
        const waiter = this.#waiters[this.#head];
        this.#waiters[this.#head++] = undefined as unknown as (bytes: number) => void;
        waiter?.(bytes);
      }
      this.#lineBytes += chunk.length - start;
      if (this.#parse && start < chunk.length) this.#pieces.push(chunk.subarray(start));
    }
  }

  #parsed(last: Uint8Array, bytes: number): void {
    const line = new Uint8Array(bytes);
    let offset = 0;
    for (const piece of [...this.#pieces, last]) {
      line.set(piece, offset);
      offset += piece.length;
    }
    this.#pieces = [];
    JSON.parse(decoder.decode(line));
  }

  /**
   * Writes one request (its params already rendered, the target's envelope
   * put first, as our client does) and resolves with its reply's size.
   */
  request(method: string, paramsText: string): Promise<number> {
    const id = this.#nextId++;
    const params = this.#envelope === undefined || method === "initialize"
      ? paramsText
      : `{"_meta":${this.#envelope},${paramsText.slice(1)}`;
    const line = `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params}}\n`;
    return this.send(encoder.encode(line));
  }

  /** Writes pre-encoded request bytes (one line) and resolves with its reply's size. */
  send(bytes: Uint8Array): Promise<number> {
    return new Promise((resolve) => {
      this.#waiters.push(resolve);
      void this.#writer.write(bytes);
    });
  }

  /** Runs the handshake. */
  async initialize(): Promise<void> {
    await this.request(
      "initialize",
      '{"protocolVersion":"2025-11-25","capabilities":{},' +
        '"clientInfo":{"name":"pipe","version":"1"}}',
    );
    await this.#writer.write(
      encoder.encode('{"jsonrpc":"2.0","method":"notifications/initialized"}\n'),
    );
  }

  /** Closes stdin and waits for the exit. */
  async close(): Promise<void> {
    await this.#writer.close();
    await this.#reading;
    await this.#child.status;
  }
}

/** Resolves once none of `pids` is live, polling every millisecond. */
export async function allGone(pids: readonly number[], limitMs = 10_000): Promise<void> {
  const until = performance.now() + limitMs;
  while (pids.some(isLive)) {
    if (performance.now() > until) throw new Error(`Processes still live: ${pids.filter(isLive)}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** A field of `/proc/self/status` in KiB (VmHWM, VmRSS), or NaN off Linux. */
export function procStatusKib(field: string): number {
  try {
    const status = Deno.readTextFileSync("/proc/self/status");
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
    return match === null ? NaN : Number(match[1]);
  } catch {
    return NaN;
  }
}

/** A process's resident memory in MiB, from `/proc/<pid>/statm`; 0 for no process. */
export function processRssMib(pid: number | undefined): number {
  if (pid === undefined) return 0;
  return Number(Deno.readTextFileSync(`/proc/${pid}/statm`).split(" ")[1]) * 4096 / 1048576;
}

/** The value at quantile `q` (nearest rank) of unsorted samples. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? NaN;
}

/** The median of unsorted samples. */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? sorted[middle] ?? NaN
    : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
}

/**
 * The least a worker-hosted client could spend: a bare pipe owned by a
 * worker, one `postMessage` each way per batch of calls made in one turn.
 */
export class WorkerPipe {
  #worker: Worker;
  #outbox: Array<{ params: string; resolve: (value: number) => void }> = [];
  #batches = new Map<number, Array<(value: number) => void>>();
  #nextBatch = 0;
  #settled: Array<() => void> = [];

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.onmessage = (event: MessageEvent<unknown>) => this.#receive(event.data);
  }

  /** Starts the worker and its server, and runs the handshake. */
  static async open(target: Target): Promise<WorkerPipe> {
    const worker = new Worker(new URL("./_pipe_worker.ts", import.meta.url), { type: "module" });
    const pipe = new WorkerPipe(worker);
    await new Promise<void>((resolve) => {
      pipe.#settled.push(resolve);
      worker.postMessage({ target });
    });
    return pipe;
  }

  #receive(data: unknown): void {
    if (typeof data === "string") {
      this.#settled.shift()?.();
      return;
    }
    const [batch, replies] = data as [number, number];
    const resolvers = this.#batches.get(batch) ?? [];
    this.#batches.delete(batch);
    for (const resolve of resolvers) resolve(replies);
  }

  /** Sends one tools/call (params rendered) and resolves once its batch is answered. */
  request(params: string): Promise<number> {
    return new Promise((resolve) => {
      this.#outbox.push({ params, resolve });
      if (this.#outbox.length === 1) queueMicrotask(() => this.#flush());
    });
  }

  #flush(): void {
    const batch = this.#outbox;
    this.#outbox = [];
    const id = this.#nextBatch++;
    this.#batches.set(id, batch.map((entry) => entry.resolve));
    this.#worker.postMessage(`${id}\n${batch.map((entry) => entry.params).join("\n")}`);
  }

  /** Closes the server and ends the worker. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#settled.push(resolve);
      this.#worker.postMessage("close");
    });
    this.#worker.terminate();
  }
}
