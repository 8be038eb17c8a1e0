// Private to the SDK comparison benchmark: the least a worker-hosted client
// could spend. A worker owns a bare pipe to the server; each message from the
// main thread (a batch id, then tools/call params, one per line) is written
// as request lines, and `[id, replies]` is posted back once all are answered.

/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />

import { Pipe, type Target } from "./_mcp_clients.ts";

let pipe: Pipe | undefined;

self.onmessage = async (event: MessageEvent<unknown>) => {
  const data = event.data;
  if (typeof data === "object" && data !== null && "target" in data) {
    pipe = new Pipe((data as { target: Target }).target);
    await pipe.initialize();
    self.postMessage("ready");
    return;
  }
  if (data === "close") {
    await pipe?.close();
    self.postMessage("closed");
    return;
  }
  if (typeof data !== "string" || pipe === undefined) return;
  const open = pipe;
  const lines = data.split("\n");
  const batch = Number(lines[0]);
  const sizes = await Promise.all(
    lines.slice(1).map((params) => open.request("tools/call", params)),
  );
  self.postMessage([batch, sizes.length]);
};
