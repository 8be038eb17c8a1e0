// Private to client/: a client's requests of resources: a read, the
// listings of resources and of resource templates, each refused before
// anything is sent when the server declared no `resources`; and its
// subscriptions: who hears which resource's updates, and how a subscription
// is opened in each era. Legacy sessions send `resources/subscribe` and
// answer once the server did; 2026-07-28 sessions keep a
// `subscriptions/listen` open for the URI until it is cancelled or the
// server ends it. A listener that throws changes nothing of the client.

import { compactJson, type JsonValue } from "../codec/json.ts";
import { ok, type Result } from "../codec/result.ts";
import type { ClientError } from "./thread/outcomes.ts";
import { MAX_TIMEOUT_MS } from "../settings/mod.ts";
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
  subscriptionsNotDeclared,
} from "./resources.ts";
import type { RequestOptions } from "./client_options.ts";

/** One subscription: the URI subscribed to, and who hears its updates. */
type Subscription = { uri: string; onUpdated: (uri: string) => void };

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

  /** Tells each subscription a server's update (`notifications/resources/updated`) is about. */
  updated(notice: { uri: string }): void {
    for (const subscription of [...this.#subscriptions]) {
      // The server may name a part of what was subscribed to.
      const uri = subscription.uri;
      if (notice.uri === uri || (notice.uri.startsWith(uri) && uri.endsWith("/"))) {
        tell(() => subscription.onUpdated(notice.uri));
      }
    }
  }

  /** Subscribes to one resource on `generation`, as its era does. */
  async #open(
    generation: Generation,
    entry: Subscription,
    options: RequestOptions,
  ): Promise<Result<ResourceSubscription, ClientError>> {
    const uri = entry.uri;
    const style = generation.era.subscription;
    if (style.kind === "requests") {
      const params = compactJson({ uri });
      const timeoutMs = this.#host.timeout(options.timeoutMs);
      const answered = await generation.request(style.subscribe, params, timeoutMs, options.signal);
      if (!answered.ok) return answered;
      this.#subscriptions.add(entry);
      let ended: Promise<Result<void, ClientError>> | undefined;
      return ok({
        uri,
        unsubscribe: () => {
          this.#subscriptions.delete(entry);
          ended ??= generation.request(
            style.unsubscribe,
            params,
            this.#host.timeout(undefined),
            undefined,
          )
            .then((outcome) => outcome.ok ? ok(undefined) : outcome);
          return ended;
        },
      });
    }
    // The listen lasts until it is cancelled or the server ends it.
    const stop = new AbortController();
    this.#subscriptions.add(entry);
    const listening = generation
      .request(style.method, compactJson(style.params(uri)), MAX_TIMEOUT_MS, stop.signal)
      .then((outcome): Result<void, ClientError> => {
        this.#subscriptions.delete(entry);
        const cancelled = !outcome.ok && outcome.error.kind === "call_timed_out" &&
          outcome.error.aborted === true;
        return outcome.ok || cancelled ? ok(undefined) : outcome;
      });
    return ok({
      uri,
      unsubscribe: () => {
        this.#subscriptions.delete(entry);
        stop.abort();
        return listening;
      },
    });
  }

  #noResources(): Promise<Result<never, ResourceError>> | undefined {
    const generation = this.#host.generation();
    if (generation.state !== "ready" || declaresResources(generation.info)) return undefined;
    return Promise.resolve({ ok: false, error: resourcesNotDeclared(this.#host.server) });
  }
}
