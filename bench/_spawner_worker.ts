// Private to the SDK comparison benchmark: a worker that spawns a server
// detached with piped stdio, as a client's worker does, answers with its pid
// and does nothing more. Terminating the worker closes the server's stdin,
// on which a well-behaved server exits.

/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />

self.onmessage = (event: MessageEvent<{ command: string; args: string[] }>) => {
  const child = new Deno.Command(event.data.command, {
    args: event.data.args,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
  self.postMessage(child.pid);
};
