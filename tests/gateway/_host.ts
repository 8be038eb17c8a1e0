// Shared by the gateway tests: a scripted host that drives serveHarness over
// a ReplayTransport, sends requests and answers, and waits for what comes back.

import { ReplayTransport } from "../../server/mod.ts";
import type { ServeEnd } from "../../server/mod.ts";
import type { Harness } from "../../harness/mod.ts";
import { serveHarness } from "../../gateway/serve_harness.ts";
import type { GatewayOptions } from "../../gateway/session.ts";

// deno-lint-ignore no-explicit-any
export type Message = Record<string, any>;

/** How long a test waits for one message before it fails, in milliseconds. */
const WAIT_MS = 60_000;

export class ScriptedHost {
  readonly transport = new ReplayTransport([], { open: true });
  readonly served: Promise<ServeEnd>;
  #nextId = 1;
  #seen = 0;

  constructor(harness: Harness | Promise<Harness>, options: GatewayOptions = {}) {
    this.served = serveHarness(harness, { ...options, transport: this.transport });
  }

  /** Sends one line. */
  send(message: Message): void {
    this.transport.feed(JSON.stringify({ jsonrpc: "2.0", ...message }));
  }

  /** Sends a request and returns its id. */
  request(method: string, params: Message = {}): number {
    const id = this.#nextId++;
    this.send({ id, method, params });
    return id;
  }

  /** Sends a request and waits for its response. */
  async call(method: string, params: Message = {}): Promise<Message> {
    const id = this.request(method, params);
    return await this.next((message) => message.id === id && !("method" in message));
  }

  /** Waits for the first message not yet taken that `match` accepts. */
  async next(match: (message: Message) => boolean): Promise<Message> {
    const until = performance.now() + WAIT_MS;
    for (let index = 0; performance.now() < until; index++) {
      const messages = this.transport.messages() as Message[];
      for (let at = 0; at < messages.length; at++) {
        if (match(messages[at] as Message)) return messages[at] as Message;
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        this.transport.waitForWrites(messages.length + 1),
        new Promise((resolve) => timer = setTimeout(resolve, 200)),
      ]);
      clearTimeout(timer);
    }
    throw new Error("No message matched in time");
  }

  /** Every message written so far. */
  messages(): Message[] {
    return this.transport.messages() as Message[];
  }

  /** Opens a 2025 session declaring `capabilities`. */
  async initialize(capabilities: Message = {}): Promise<Message> {
    const answer = await this.call("initialize", {
      protocolVersion: "2025-11-25",
      capabilities,
      clientInfo: { name: "scripted", version: "1" },
    });
    this.send({ method: "notifications/initialized" });
    return answer;
  }

  /** Ends the host's input and waits for the loop to end. */
  async leave(): Promise<ServeEnd> {
    this.transport.finish();
    return await this.served;
  }

  get seen(): number {
    return this.#seen;
  }
}

/** The text of a tool result's first block. */
export function textOf(result: Message): string {
  return result.content?.[0]?.text ?? "";
}
