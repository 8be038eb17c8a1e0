// Private to harness/: who answers what a server asks during a call (an
// elicitation, a sampling request), when a run gave handlers of its own.
// The client hands `boot`'s handlers every request of its server with the
// tool it belongs to when it knows it (a 2026-07-28 `input_required` round
// and a -32042 error know their call; a legacy `elicitation/create` or
// `sampling/createMessage` arrives on its own). The harness gives the census
// the handlers of this router instead, and the router finds the call:
//
// - a request that names its tool is the call's whose async context it
//   arrives in (the client asks the handler from within that call's own
//   continuation, so the context of `within` is still there); failing
//   that, the one call of that tool in flight on the server; one that names
//   none, of a 2026-07-28 read's or prompt's round, is the read's or the
//   get's whose context it arrives in (a program's or the harness's own,
//   sent inside `within` too);
// - a legacy request belongs to the one call in flight on its server, or,
//   when several are, to their run when every one of them is of the same
//   run (the call itself is then not known).
//
// A request found to be a run's is answered by the run's handler when it
// gave one, else by boot's; either way the run's end (its calls' signal)
// settles the question still pending: an elicitation as `cancel`, a
// sampling request refused. Anything else is boot's to answer, as before.
// A request found to be a call's marks its tool as one that asks (`seen`),
// and the call's record in the run's report counts it.
//
// Capabilities are declared at initialize from boot's handlers alone: only
// a handler given to boot makes this router the census's (see `handlers`).

import { AsyncLocalStorage } from "node:async_hooks";
import type {
  ElicitationAnswer,
  ElicitationRequest,
  SamplingAnswer,
  SamplingRequest,
  ServerRequestHandlers,
} from "../client/handlers.ts";
import type { CallContext } from "../runner/host/run.ts";

/**
 * One call in flight: its server, its tool's wire name (none for a read or a
 * prompt's get), and the run's context when a run's.
 */
type InFlight = { server: string; tool: string | undefined; context: CallContext | undefined };

/** Whom a request was found to belong to. */
type Owner = { call: InFlight | undefined; context: CallContext | undefined };

type Answers = Pick<ServerRequestHandlers, "onElicit" | "onSample">;

/** Routes a server's requests to the run (and the call) they belong to (see the module doc). */
export class AskRouter {
  readonly #current = new AsyncLocalStorage<InFlight>();
  readonly #inflight = new Map<string, Set<InFlight>>();
  readonly #boot: Answers;
  readonly #seen: (server: string, tool: string) => void;

  /** A router over boot's handlers; `seen` hears each tool found to ask. */
  constructor(boot: Answers, seen: (server: string, tool: string) => void) {
    this.#boot = boot;
    this.#seen = seen;
  }

  /**
   * The handlers the census is given: this router's, for each handler boot
   * was given (so the capabilities declared are boot's), none for the rest.
   */
  handlers(): Answers {
    return {
      ...(this.#boot.onElicit === undefined ? {} : {
        onElicit: (request, context) => this.#elicit(request, context?.signal, context?.completed),
      }),
      ...(this.#boot.onSample === undefined
        ? {}
        : { onSample: (request, context) => this.#sample(request, context?.signal) }),
    };
  }

  /**
   * Whether boot was given any handler: without one no server is told it may
   * ask, so the calls need not be followed (an async context costs about 2 µs a call).
   */
  get active(): boolean {
    return this.#boot.onElicit !== undefined || this.#boot.onSample !== undefined;
  }

  /**
   * Sends one call (`send`) of `server`'s `tool`, known as in flight until it
   * settles; a read or a prompt's get names no tool.
   */
  within<T>(
    server: string,
    tool: string | undefined,
    context: CallContext | undefined,
    send: () => Promise<T>,
  ): Promise<T> {
    const entry: InFlight = { server, tool, context };
    let calls = this.#inflight.get(server);
    if (calls === undefined) this.#inflight.set(server, calls = new Set());
    calls.add(entry);
    const forget = () => {
      calls.delete(entry);
      if (calls.size === 0 && this.#inflight.get(server) === calls) this.#inflight.delete(server);
    };
    return this.#current.run(entry, send).finally(forget);
  }

  /**
   * Sends a program's read or get of a prompt (`send`) inside {@linkcode within},
   * naming no tool, when any handler may be asked; at once otherwise.
   */
  follow<T>(server: string, context: CallContext | undefined, send: () => Promise<T>): Promise<T> {
    return this.active ? this.within(server, undefined, context, send) : send();
  }

  #owner(server: string, tool: string | undefined): Owner | undefined {
    const all = [...this.#inflight.get(server) ?? []];
    // A request naming no tool comes from within a read or a get when it is
    // their input_required round, never from within a tool's call.
    const current = this.#current.getStore();
    if (current !== undefined && current.server === server && current.tool === tool) {
      return { call: current, context: current.context };
    }
    const candidates = tool === undefined ? all : all.filter((call) => call.tool === tool);
    const [first] = candidates;
    if (first === undefined) return undefined;
    if (candidates.length === 1) return { call: first, context: first.context };
    const run = first.context?.run;
    if (run === undefined || candidates.some((call) => call.context?.run !== run)) return undefined;
    return { call: undefined, context: first.context };
  }

  /** Marks what is known of the request's call, and the tool it names. */
  #attribute(
    request: { server: string; tool?: string },
    kind: "elicitation" | "sampling",
  ): { context: CallContext | undefined; tool: string | undefined } {
    const owner = this.#owner(request.server, request.tool);
    const tool = request.tool ?? owner?.call?.tool;
    if (tool !== undefined) this.#seen(request.server, tool);
    owner?.call?.context?.asked?.(kind);
    return { context: owner?.context, tool };
  }

  async #elicit(
    request: ElicitationRequest,
    withdrawn: AbortSignal | undefined,
    completed: Promise<void> | undefined,
  ): Promise<ElicitationAnswer> {
    const { context, tool } = this.#attribute(request, "elicitation");
    const signal = either(withdrawn, context?.signal);
    // A legacy request found to be a call's says its tool to the handler.
    const asked = tool === undefined ? request : { ...request, tool };
    const handler = (context?.onElicit as Answers["onElicit"]) ?? this.#boot.onElicit;
    // Only reached for a handler boot was given (see `handlers`).
    if (handler === undefined) return { action: "decline" };
    const given = signal === undefined && completed === undefined ? undefined : {
      signal: signal ?? new AbortController().signal,
      ...(completed === undefined ? {} : { completed }),
    };
    return await untilEnd(() => handler(asked, given), signal, () => ({ action: "cancel" }));
  }

  async #sample(
    request: SamplingRequest,
    withdrawn: AbortSignal | undefined,
  ): Promise<SamplingAnswer> {
    const { context } = this.#attribute(request, "sampling");
    const signal = either(withdrawn, context?.signal);
    const handler = (context?.onSample as Answers["onSample"]) ?? this.#boot.onSample;
    if (handler === undefined) {
      throw new Error("This harness has no handler for sampling requests");
    }
    const given = signal === undefined ? undefined : { signal };
    return await untilEnd(() => handler(request, given), signal, () => {
      throw new Error("The request was withdrawn (or its run ended) before it was answered");
    });
  }
}

/** The signal that aborts with either: the request withdrawn, or the run it belongs to ended. */
function either(
  withdrawn: AbortSignal | undefined,
  run: AbortSignal | undefined,
): AbortSignal | undefined {
  if (withdrawn === undefined || run === undefined) return withdrawn ?? run;
  return AbortSignal.any([withdrawn, run]);
}

/**
 * The handler's answer, or `ended()`'s once `signal` is aborted (the request
 * withdrawn, or the run ended), whichever comes first: a late answer is dropped.
 */
function untilEnd<T>(
  ask: () => Promise<T>,
  signal: AbortSignal | undefined,
  ended: () => T,
): Promise<T> {
  if (signal === undefined) return ask();
  if (signal.aborted) return Promise.resolve().then(ended);
  const { promise, resolve, reject } = Promise.withResolvers<T>();
  const onAbort = () => {
    try {
      resolve(ended());
    } catch (error) {
      reject(error);
    }
  };
  signal.addEventListener("abort", onAbort, { once: true });
  Promise.resolve().then(ask).then(resolve, reject).finally(() =>
    signal.removeEventListener("abort", onAbort)
  );
  return promise;
}
