/**
 * The entry of a client's Web Worker: it wires the worker's scope to its
 * host (`host.ts`), which owns one server's launches and its state machine,
 * and answers the main thread.
 *
 * @module
 */

/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />

import { WorkerHost } from "./host.ts";

const host = new WorkerHost((data, transfer) => {
  if (transfer === undefined) self.postMessage(data);
  else self.postMessage(data, transfer);
});
self.onmessage = (event: MessageEvent<unknown>) => host.receive(event.data);
