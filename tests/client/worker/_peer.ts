// A scripted MCP server on a ChannelPeer, for the state machine's tests.

import type { ChannelPeer, PeerBehaviour } from "../../../client/transport/channel_transport.ts";

/** A decoded line the client wrote. */
export type Sent = {
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string };
};

/** What a handler answers: a result, an error, or nothing (silence). */
export type Answer = { result: unknown } | { error: { code: number; message: string } } | undefined;

/** Handlers by method; anything unlisted is answered by the defaults. */
export type Handlers = Record<string, (message: Sent, peer: ChannelPeer) => Answer>;

export const INIT_RESULT = {
  protocolVersion: "2025-11-25",
  capabilities: { tools: {} },
  serverInfo: { name: "peer", version: "1.0.0" },
};

const DEFAULTS: Handlers = {
  initialize: () => ({ result: INIT_RESULT }),
  "tools/list": () => ({ result: { tools: [{ name: "echo", inputSchema: { type: "object" } }] } }),
  "tools/call": (message) => ({
    result: { content: [{ type: "text", text: JSON.stringify(message.params?.arguments) }] },
  }),
  ping: () => ({ result: {} }),
};

/** Reply line for an answer. */
export function reply(id: number | string | undefined, answer: NonNullable<Answer>): string {
  return JSON.stringify({ jsonrpc: "2.0", id, ...answer }) + "\n";
}

/** A peer behaviour that answers like a small MCP server. */
export function mcpPeer(
  handlers: Handlers = {},
  extra: Omit<PeerBehaviour, "line"> = {},
): PeerBehaviour {
  return {
    ...extra,
    line(line, peer) {
      const message = JSON.parse(line) as Sent;
      if (message.method === undefined || message.id === undefined) return;
      const handler = handlers[message.method] ?? DEFAULTS[message.method];
      const answer = handler === undefined
        ? { error: { code: -32601, message: "Method not found" } }
        : handler(message, peer);
      if (answer !== undefined) peer.send(reply(message.id, answer));
    },
    stdinClosed: extra.stdinClosed ?? ((peer) => peer.exit(0)),
  };
}

/** Lets every queued microtask run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 100; i++) await null;
}

/** Parses every line the client wrote. */
export function sent(peer: ChannelPeer): Sent[] {
  return peer.written.map((line) => JSON.parse(line) as Sent);
}
