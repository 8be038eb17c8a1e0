// Private to the SDK comparison benchmark: a worker that does nothing but
// answer, to measure what a worker costs before any client code runs.

/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />

self.onmessage = () => self.postMessage("ready");
