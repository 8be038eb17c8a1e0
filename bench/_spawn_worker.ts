// Private to the SDK comparison benchmark: a worker that spawns one short
// child as a client's worker does (piped stdio), detached or not as asked,
// and answers with how long `spawn()` took, once the child has exited.

/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />

self.onmessage = async (event: MessageEvent<{ detached: boolean }>) => {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["--version"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    detached: event.data.detached,
  }).spawn();
  const spawnMs = performance.now() - started;
  await child.stdin.close();
  await Promise.all([child.stdout.cancel(), child.stderr.cancel(), child.status]);
  self.postMessage(spawnMs);
};
