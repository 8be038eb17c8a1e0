// Private to client/: a client's requests of resources: a read, the
// listings of resources and of resource templates, each refused before
// anything is sent when the server declared no `resources`; and its
// subscriptions: who hears which resource's updates, and how a subscription
// is opened in each era. Legacy sessions send `resources/subscribe` and
// answer once the server did; 2026-07-28 sessions keep a
// `subscriptions/listen` open for the URI until it is cancelled or the
// server ends it. A listener that throws changes nothing of the client.

import { compactJson, type JsonValue } from "../codec/json.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { callTimedOut, type ClientError } from "./thread/outcomes.ts";
import type { ResourceDescriptor, ResourceTemplateDescriptor } from "../codec/resource_lists.ts";
import type { Generation } from "./_generation.ts";
import { listOf, type RequestHost, RESOURCES, TEMPLATES } from "./_lists.ts";
import { tell } from "./_tool_watch.ts";
import {
  declaresResources,
  declaresSubscriptions,
  decodeReadResult,
  type ReadResourceResult,
  type ResourceError,
  resourcesNotDeclared,
  type ResourceSubscription,
  subscriptionRefused,
  subscriptionsNotDeclared,
} from "./resources.ts";
import type { RequestOptions } from "./client_options.ts";

/**
 * One subscription: the URI subscribed to, who hears its updates, and, for
 * a 2026-07-28 listen, its ticket, which the updates it brings name.
 */
type Subscription = { uri: string; onUpdated: (uri: string) => void; ticket?: number };

/** What ends the wait for a listen's acknowledgment, beside the acknowledgment. */
type Unacknowledged = "ended" | "timed_out" | "aborted";

/** The resource requests and subscriptions of one client. */
export class ResourceRequests {
  #host: RequestHost;
  #subscriptions = new Set<Subscription>();

  /** The requests of the client `host` describes. */
  constructor(host: RequestHost) {
    this.#host = host;
  }

  /** Reads one resource by its URI (see `Client.readResource`). */
  read(
    uri: string,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<Result<ReadResourceResult, ClientError | ResourceError>> {
    if (typeof uri !== "string") {
      throw new TypeError(`Cannot read a resource: its uri ${String(uri)} is not a string`);
    }
    const timeoutMs = this.#host.timeout(options.timeoutMs);
    const generation = this.#host.generation();
    if (generation.state === "ready" && !declaresResources(generation.info)) {
      return Promise.resolve({ ok: false, error: resourcesNotDeclared(this.#host.server) });
    }
    const era = generation.era.name;
    const decode = (value: JsonValue) =>
      decodeReadResult(this.#host.server, value, era) as Result<ReadResourceResult, ClientError>;
    return generation.request(
      "resources/read",
      compactJson({ uri }),
      timeoutMs,
      options.signal,
      decode,
    );
  }

  /** Lists every resource (see `Client.listResources`). */
  list(
    options: RequestOptions = {},
  ): Promise<Result<ResourceDescriptor[], ClientError | ResourceError>> {
    const refused = this.#noResources();
    return refused ?? listOf(this.#host, RESOURCES, options);
  }

  /** Lists every resource template (see `Client.listResourceTemplates`). */
  listTemplates(
    options: RequestOptions = {},
  ): Promise<Result<ResourceTemplateDescriptor[], ClientError | ResourceError>> {
    const refused = this.#noResources();
    return refused ?? listOf(this.#host, TEMPLATES, options);
  }

  /** Hears a resource's updates until `unsubscribe()` (see `Client.subscribeResource`). */
  async subscribe(
    uri: string,
    onUpdated: (uri: string) => void,
    options: RequestOptions = {},
  ): Promise<Result<ResourceSubscription, ClientError | ResourceError>> {
    if (typeof uri !== "string" || uri === "") {
      throw new TypeError(`Cannot subscribe to a resource: its uri ${String(uri)} is empty`);
    }
    if (typeof onUpdated !== "function") {
      throw new TypeError(
        `Cannot subscribe to ${JSON.stringify(uri)}: onUpdated is not a function`,
      );
    }
    const generation = this.#host.generation();
    const refused = await this.#noResources();
    if (refused !== undefined) return refused;
    if (generation.state === "ready" && !declaresSubscriptions(generation.info)) {
      return { ok: false, error: subscriptionsNotDeclared(this.#host.server) };
    }
    return this.#open(generation, { uri, onUpdated }, options);
  }

  /**
   * Tells each subscription a server's update (`notifications/resources/updated`)
   * is about: the one whose listen it came on when it names one, else each
   * whose URI it names.
   */
  updated(notice: { uri: string; ticket?: number }): void {
    for (const subscription of [...this.#subscriptions]) {
      if (notice.ticket !== undefined && subscription.ticket !== notice.ticket) continue;
      // The server may name a part of what was subscribed to.
      const uri = subscription.uri;
      if (notice.uri === uri || (notice.uri.startsWith(uri) && uri.endsWith("/"))) {
        tell(() => subscription.onUpdated(notice.uri));
      }
    }
  }

  // A legacy server's subscription to each URI: how many of this client's
  // hold it, and whether the server took it; by generation, each server its own.
  #holders = new WeakMap<Generation, Map<string, { count: number; live: boolean }>>();

  #held(generation: Generation, uri: string): { count: number; live: boolean } {
    let byUri = this.#holders.get(generation);
    if (byUri === undefined) this.#holders.set(generation, byUri = new Map());
    let held = byUri.get(uri);
    if (held === undefined) byUri.set(uri, held = { count: 0, live: false });
    return held;
  }

  /** Subscribes to one resource on `generation`, as its era does. */
  async #open(
    generation: Generation,
    entry: Subscription,
    options: RequestOptions,
  ): Promise<Result<ResourceSubscription, ClientError | ResourceError>> {
    const uri = entry.uri;
    const style = generation.era.subscription;
    if (style.kind === "requests") {
      const params = compactJson({ uri });
      const timeoutMs = this.#host.timeout(options.timeoutMs);
      // The server keeps one subscription per URI: it is ended when the last
      // of this client's on that server (those still being made included) ends.
      const held = this.#held(generation, uri);
      held.count++;
      const release = (): Promise<Result<void, ClientError>> => {
        if (--held.count > 0 || !held.live) return Promise.resolve(ok(undefined));
        held.live = false;
        return generation.request(
          style.unsubscribe,
          params,
          this.#host.timeout(undefined),
          undefined,
        )
          .then((outcome) => outcome.ok ? ok(undefined) : outcome);
      };
      const answered = await generation.request(style.subscribe, params, timeoutMs, options.signal);
      if (!answered.ok) {
        void release();
        return answered;
      }
      held.live = true;
      this.#subscriptions.add(entry);
      let ended: Promise<Result<void, ClientError>> | undefined;
      return ok({
        uri,
        unsubscribe: () => {
          this.#subscriptions.delete(entry);
          ended ??= release();
          return ended;
        },
      });
    }
    // The listen lasts until it is cancelled or the server ends it; it is
    // a subscription once the server acknowledged it with the URI.
    const stop = new AbortController();
    // Once given up (refused, timed out, aborted), a late acknowledgment subscribes nothing.
    let givenUp = false;
    const acknowledged = Promise.withResolvers<boolean | Unacknowledged>();
    const listening = generation
      .listen(compactJson(style.params(uri)), stop.signal, (honored, ticket) => {
        // Added at once: the updates the listen brings may follow in the same turn.
        if (honored && !givenUp) this.#subscriptions.add(Object.assign(entry, { ticket }));
        acknowledged.resolve(honored);
      })
      .then((outcome): Result<void, ClientError> => {
        this.#subscriptions.delete(entry);
        acknowledged.resolve("ended");
        const cancelled = !outcome.ok && outcome.error.kind === "call_timed_out" &&
          outcome.error.aborted === true;
        return outcome.ok || cancelled ? ok(undefined) : outcome;
      });
    const timeoutMs = this.#host.timeout(options.timeoutMs);
    const heard = await untilAcknowledged(acknowledged.promise, timeoutMs, options.signal);
    if (heard === true) {
      return ok({
        uri,
        unsubscribe: () => {
          this.#subscriptions.delete(entry);
          stop.abort();
          return listening;
        },
      });
    }
    givenUp = true;
    stop.abort();
    if (heard === false) return err(subscriptionRefused(this.#host.server, uri, "left_out"));
    if (heard === "ended") {
      const ended = await listening;
      return ended.ok ? err(subscriptionRefused(this.#host.server, uri, "ended")) : ended;
    }
    const timedOut = callTimedOut(this.#host.server, style.method, timeoutMs, heard === "aborted");
    if (heard === "aborted") return err(timedOut);
    return err({
      ...timedOut,
      message: `Server "${this.#host.server}" did not acknowledge ${style.method} for ` +
        `${JSON.stringify(uri)} within ${timeoutMs} ms; raise call_timeout_ms in its catalog ` +
        `entry (callTimeoutMs in a ServerSpec, or the subscription's timeoutMs)`,
    });
  }

  #noResources(): Promise<Result<never, ResourceError>> | undefined {
    const generation = this.#host.generation();
    if (generation.state !== "ready" || declaresResources(generation.info)) return undefined;
    return Promise.resolve({ ok: false, error: resourcesNotDeclared(this.#host.server) });
  }
}

/**
 * Waits for a listen's acknowledgment (`true` when it took the URI, `false`
 * when it left it out) or its end, at most `timeoutMs`, and no longer than
 * `signal` lets it.
 */
function untilAcknowledged(
  acknowledged: Promise<boolean | Unacknowledged>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<boolean | Unacknowledged> {
  if (signal?.aborted) return Promise.resolve("aborted");
  const { promise, resolve } = Promise.withResolvers<boolean | Unacknowledged>();
  const timer = setTimeout(() => resolve("timed_out"), timeoutMs);
  const onAbort = () => resolve("aborted");
  signal?.addEventListener("abort", onAbort, { once: true });
  void acknowledged.then(resolve);
  return promise.finally(() => {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  });
}
