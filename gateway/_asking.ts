// Private to gateway/: how a running program's host is asked, and which host
// that is. A downstream server's question reaches the harness through the
// handlers given to `boot`, which know nothing of the host; the session
// whose program is running enters its asker here for the run's time, and
// those handlers (`host_handlers.ts`) ask the latest entered.

import type { JsonObject } from "../codec/json.ts";
import type { Result } from "../codec/result.ts";

/** A question a host can be asked: a form, a URL to visit, or a completion of its model. */
export type HostQuestion = "form" | "url" | "sampling";

/**
 * How one host request's program asks its host: whether the host declared
 * it can answer, and the asking itself (the host's answer, or why none).
 */
export type HostAsker = {
  can(question: HostQuestion): boolean;
  ask(
    method: "elicitation/create" | "sampling/createMessage",
    params: JsonObject,
  ): Promise<Result<JsonObject, string>>;
};

const askers: HostAsker[] = [];

/** Makes `asker` the one asked until the returned function is called. */
export function enterHost(asker: HostAsker): () => void {
  askers.push(asker);
  return () => {
    const at = askers.lastIndexOf(asker);
    if (at >= 0) askers.splice(at, 1);
  };
}

/** The asker of the program that started last among those running, if any. */
export function currentHost(): HostAsker | undefined {
  return askers[askers.length - 1];
}
