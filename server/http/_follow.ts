// Private to server/http/: an exchange's signal following the lifelong ones
// (the server's close, its session's end) only while the exchange lasts.
// `AbortSignal.any` would do it in one call, but in Deno 2.9.6 each signal it
// makes stays reachable from its sources, the more so with an abort listener
// on it, until they abort: about 3.6 KB per answered request, kept for the
// life of the listener (measured with 20,000 pings). Here the sources hold a
// listener only until the exchange's signal aborts or the exchange releases
// it, and nothing of it after that.

/**
 * Aborts `controller` with the reason of the first of `sources` to abort,
 * until `controller` aborts or the returned release is called; the release
 * removes every listener this added, and may be called more than once.
 */
export function follow(controller: AbortController, sources: readonly AbortSignal[]): () => void {
  const fired = sources.find((source) => source.aborted);
  if (fired !== undefined) {
    controller.abort(fired.reason);
    return () => {};
  }
  const listeners = sources.map((source) =>
    [source, () => controller.abort(source.reason)] as const
  );
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    for (const [source, listener] of listeners) source.removeEventListener("abort", listener);
    controller.signal.removeEventListener("abort", release);
  };
  for (const [source, listener] of listeners) {
    source.addEventListener("abort", listener, { once: true });
  }
  controller.signal.addEventListener("abort", release, { once: true });
  return release;
}
