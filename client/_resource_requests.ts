// Private to client/: a client's requests of resources: a read (which a
// server may answer by asking for input or a URL's visit first), the
// listings of resources and of resource templates, each refused before
// anything is sent when the server declared no `resources`; and its
// subscriptions: who hears which resource's updates, and how a subscription
// is opened in each era. Legacy sessions send `resources/subscribe` and
// answer once the server did; 2026-07-28 sessions keep a
// `subscriptions/listen` open for the URI until it is cancelled or the
// server ends it. A subscription outlives a restart: each new generation
// makes it again, and its `ended` says why it ended when no generation will.
// A listener that throws changes nothing of the client.

import { compactJson, type JsonValue } from "../codec/json.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { callTimedOut, type ClientError } from "./thread/outcomes.ts";
import type { ResourceDescriptor, ResourceTemplateDescriptor } from "../codec/resource_lists.ts";
import type { Generation } from "./_generation.ts";
import { listOf, type RequestHost, RESOURCES, TEMPLATES } from "./_lists.ts";
import { tell } from "./_tool_watch.ts";
import type { ServerAnswers } from "./_answers.ts";
import { afterVisits, requestRounds } from "./_rounds.ts";
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
import type { GenerationEvent } from "./supervisor.ts";
import { unavailableOf } from "./thread/state.ts";

/** What a client's resource requests need of it. */
export type ResourceHost = RequestHost & {
  /** The answers to an `input_required` result's input requests, and to -32042. */
  answers: ServerAnswers;
  /** Whether the client's spec asks for restarts (its supervisor then decides each death). */
  restarts: boolean;
};

/** What a subscription is open on: its generation, and what ends it there. */
type Open = { generation: Generation; close: () => Promise<Result<void, ClientError>> };

/**
 * One subscription a caller holds: the URI subscribed to, who hears its
 * updates, where it is open now (carried to each new generation of a
 * restarted server), and, for a 2026-07-28 listen, its ticket, which the
 * updates it brings name.
 */
type Subscription = {
  uri: string;
  onUpdated: (uri: string) => void;
  /** The deadline of its opening, kept for each reopening. */
  timeoutMs: number;
  ticket?: number;
  open?: Open;
  /** The generation a reopening is under way on. */
  reopening?: Generation;
  done: boolean;
  ended: PromiseWithResolvers<Result<void, ClientError | ResourceError>>;
};

/** What ends the wait for a listen's acknowledgment, beside the acknowledgment. */
type Unacknowledged = "ended" | "timed_out" | "aborted";

/** The resource requests and subscriptions of one client. */
export class ResourceRequests {
  #host: ResourceHost;
  // Every subscription still held by its caller.
  #subscriptions = new Set<Subscription>();
  #retired = false;

  /** The requests of the client `host` describes. */
  constructor(host: ResourceHost) {
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
    // A 2026-07-28 server may ask for input before it gives the contents, any
    // server for URLs to be visited (-32042).
    const send = () =>
      requestRounds({
        server: this.#host.server,
        answers: this.#host.answers,
        generation,
        method: "resources/read",
        subject: `resource ${JSON.stringify(uri)}`,
        params: compactJson({ uri }),
        timeoutMs,
        signal: options.signal,
        decode,
      });
    return afterVisits(this.#host.answers, undefined, options.signal, send);
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
    const entry: Subscription = {
      uri,
      onUpdated,
      timeoutMs: this.#host.timeout(options.timeoutMs),
      reopening: generation,
      done: false,
      ended: Promise.withResolvers(),
    };
    // Held at once: the updates a listen brings may follow its acknowledgment in the same turn.
    this.#subscriptions.add(entry);
    const opened = await this.#open(generation, entry, options.signal);
    if (!opened.ok) {
      this.#subscriptions.delete(entry);
      return opened;
    }
    let unsubscribed: Promise<Result<void, ClientError>> | undefined;
    return ok({
      uri,
      ended: entry.ended.promise,
      unsubscribe: () => {
        unsubscribed ??= this.#unsubscribe(entry);
        return unsubscribed;
      },
    });
  }

  /**
   * Tells each subscription a server's update (`notifications/resources/updated`)
   * is about: the one whose listen it came on when it names one, else each
   * whose URI it names.
   */
  updated(notice: { uri: string; ticket?: number }): void {
    const generation = this.#host.generation();
    for (const subscription of [...this.#subscriptions]) {
      if (subscription.done || subscription.open === undefined) continue;
      // A ticket names a listen of the generation now, not one carried from an earlier.
      if (
        notice.ticket !== undefined &&
        (subscription.ticket !== notice.ticket || subscription.open.generation !== generation)
      ) continue;
      // The server may name a part of what was subscribed to.
      const uri = subscription.uri;
      if (notice.uri === uri || (notice.uri.startsWith(uri) && uri.endsWith("/"))) {
        tell(() => subscription.onUpdated(notice.uri));
      }
    }
  }

  /**
   * A generation became ready: each subscription open on an earlier one
   * (whose server was restarted) is made again on it, or ends with why not.
   */
  ready(): void {
    // The generation is ready once its start settles.
    queueMicrotask(() => {
      const generation = this.#host.generation();
      if (generation.state !== "ready" || this.#retired) return;
      for (const entry of [...this.#subscriptions]) {
        if (entry.done || entry.open?.generation === generation) continue;
        if (entry.reopening === generation) continue;
        entry.reopening = generation;
        if (!declaresResources(generation.info) || !declaresSubscriptions(generation.info)) {
          this.#end(entry, err(subscriptionsNotDeclared(this.#host.server)));
          continue;
        }
        void this.#open(generation, entry, undefined).then((opened) => {
          if (!opened.ok) this.#end(entry, opened);
        });
      }
    });
  }

  /**
   * What the client's supervisor decided after a death: a subscription open
   * on a generation that is gone, with no restart to come, ends with the
   * death it was open on.
   */
  generationEvent(event: GenerationEvent): void {
    if (event.kind !== "died" && event.kind !== "restart_failed") return;
    if (event.next.kind === "restart") return;
    for (const entry of [...this.#subscriptions]) {
      const open = entry.open;
      if (open !== undefined && open.generation.gone.aborted) this.#endWithDeath(entry, open);
    }
  }

  /**
   * The server forgot its session and opened a new one: each legacy
   * subscription the old session held is asked for again, once per URI; one
   * refused ends every subscription to its URI with why.
   */
  renewed(): void {
    const generation = this.#host.generation();
    const style = generation.era.subscription;
    if (style.kind !== "requests" || generation.state !== "ready") return;
    const uris = new Set<string>();
    for (const entry of this.#subscriptions) {
      if (!entry.done && entry.open?.generation === generation) uris.add(entry.uri);
    }
    for (const uri of uris) {
      const held = this.#held(generation, uri);
      if (!held.live) continue;
      void generation
        .request(style.subscribe, compactJson({ uri }), this.#host.timeout(undefined), undefined)
        .then((answered) => {
          if (answered.ok) return;
          held.live = false;
          for (const entry of [...this.#subscriptions]) {
            if (entry.uri === uri && entry.open?.generation === generation) {
              this.#end(entry, answered);
            }
          }
        });
    }
  }

  /** The client is being retired: every subscription ends as asked, the server told nothing. */
  retired(): void {
    this.#retired = true;
    for (const entry of [...this.#subscriptions]) this.#end(entry, ok(undefined));
  }

  #end(entry: Subscription, outcome: Result<void, ClientError | ResourceError>): void {
    if (entry.done) return;
    entry.done = true;
    this.#subscriptions.delete(entry);
    entry.ended.resolve(outcome);
  }

  #endWithDeath(entry: Subscription, open: Open): void {
    const death = unavailableOf(open.generation.report, this.#host.server, "");
    this.#end(entry, err(death));
  }

  /** Ends a subscription as its caller asked: the server it is open on is told. */
  async #unsubscribe(entry: Subscription): Promise<Result<void, ClientError>> {
    const open = entry.open;
    const wasDone = entry.done;
    entry.done = true;
    this.#subscriptions.delete(entry);
    // A server that is gone holds nothing to end; one that ended the listen
    // itself is told nothing either.
    const outcome = open === undefined || open.generation.gone.aborted || wasDone
      ? ok(undefined)
      : await open.close();
    entry.ended.resolve(outcome);
    return outcome;
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

  /**
   * Opens one subscription on `generation`, as its era does: `entry.open` is
   * set once it is, and ended when the generation goes with no restart to
   * come (a client that restarts none) or the server ends its listen.
   */
  async #open(
    generation: Generation,
    entry: Subscription,
    signal: AbortSignal | undefined,
  ): Promise<Result<void, ClientError | ResourceError>> {
    const opened = generation.era.subscription.kind === "requests"
      ? await this.#subscribe(generation, entry, signal)
      : await this.#listen(generation, entry, signal);
    if (!opened.ok) return opened;
    if (entry.done) {
      // Unsubscribed (or the client retired) while it was being made again.
      void entry.open?.close();
      return ok(undefined);
    }
    if (!this.#host.restarts) {
      const open = entry.open;
      generation.gone.addEventListener("abort", () => {
        if (open !== undefined && entry.open === open) this.#endWithDeath(entry, open);
      }, { once: true });
    }
    return ok(undefined);
  }

  /** A legacy `resources/subscribe`, counted with the client's others to the URI there. */
  async #subscribe(
    generation: Generation,
    entry: Subscription,
    signal: AbortSignal | undefined,
  ): Promise<Result<void, ClientError>> {
    const style = generation.era.subscription;
    if (style.kind !== "requests") throw new TypeError("a legacy subscription on a modern era");
    const params = compactJson({ uri: entry.uri });
    // The server keeps one subscription per URI: it is ended when the last
    // of this client's on that server (those still being made included) ends.
    const held = this.#held(generation, entry.uri);
    held.count++;
    let released: Promise<Result<void, ClientError>> | undefined;
    const release = (): Promise<Result<void, ClientError>> => {
      released ??= (() => {
        if (--held.count > 0 || !held.live) return Promise.resolve(ok(undefined));
        held.live = false;
        return generation.request(
          style.unsubscribe,
          params,
          this.#host.timeout(undefined),
          undefined,
        )
          .then((outcome) => outcome.ok ? ok(undefined) : outcome);
      })();
      return released;
    };
    const answered = await generation.request(style.subscribe, params, entry.timeoutMs, signal);
    if (!answered.ok) {
      void release();
      return answered;
    }
    held.live = true;
    entry.open = { generation, close: release };
    return ok(undefined);
  }

  /**
   * A 2026-07-28 `subscriptions/listen` for the URI: it lasts until it is
   * cancelled or the server ends it, and is a subscription once the server
   * acknowledged it with the URI.
   */
  async #listen(
    generation: Generation,
    entry: Subscription,
    signal: AbortSignal | undefined,
  ): Promise<Result<void, ClientError | ResourceError>> {
    const style = generation.era.subscription;
    if (style.kind !== "listen") throw new TypeError("a listen on a legacy era");
    const uri = entry.uri;
    const stop = new AbortController();
    // Once given up (refused, timed out, aborted), a late acknowledgment subscribes nothing.
    let givenUp = false;
    let open: Open | undefined;
    const acknowledged = Promise.withResolvers<boolean | Unacknowledged>();
    const listening: Promise<Result<void, ClientError>> = generation
      .listen(compactJson(style.params(uri)), stop.signal, (honored, ticket) => {
        // Open at once: the updates the listen brings may follow in the same turn.
        if (honored && !givenUp) {
          open = { generation, close: () => (stop.abort(), listening) };
          Object.assign(entry, { ticket, open });
        }
        acknowledged.resolve(honored);
      })
      .then((outcome): Result<void, ClientError> => {
        acknowledged.resolve("ended");
        const cancelled = !outcome.ok && outcome.error.kind === "call_timed_out" &&
          outcome.error.aborted === true;
        // A listen the server ended while it lives ends the subscription; one
        // its generation took with it waits for the next, or for the end.
        if (open !== undefined && entry.open === open && !stop.signal.aborted) {
          if (!generation.gone.aborted) {
            this.#end(
              entry,
              outcome.ok ? err(subscriptionRefused(this.#host.server, uri, "closed")) : outcome,
            );
          }
        }
        return outcome.ok || cancelled ? ok(undefined) : outcome;
      });
    const timeoutMs = entry.timeoutMs;
    const heard = await untilAcknowledged(acknowledged.promise, timeoutMs, signal);
    if (heard === true) return ok(undefined);
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
