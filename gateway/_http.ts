// Private to gateway/: a harness served to hosts over Streamable HTTP.
// listenHttp carries the messages; this file gives each its GatewaySession:
// one per 2025 session (made at its initialize, closed when the session
// ends, which for an initialize not answered with a result is at once), and
// one shared by every 2026-07-28 request, which has no session. Nothing such
// a request carries tells its host from another, so they share that
// session's bounds (MAX_PARKED_RUNS says how). The shared one sees each
// request under an id of its own, so that two clients' ids never meet in its
// table of runs; a parked run's requestState (a random UUID) is what ties a
// retry to its run.

import type { JsonObject } from "../codec/json.ts";
import { classify, encodeError, type Id, type Inbound, INVALID_REQUEST } from "../codec/jsonrpc.ts";
import { ok, type Result } from "../codec/result.ts";
import type { Harness } from "../harness/mod.ts";
import { type HttpExchange, type HttpListener, listenHttp } from "../server/http/http_server.ts";
import { type GatewayOptions, GatewaySession, type Send } from "./session.ts";

/** Where a gateway listens; what `listenHttp` takes, less its signal. */
export type GatewayHttp = {
  hostname?: string;
  port?: number;
  path?: string;
  token?: string | undefined;
  allowedOrigins?: readonly string[];
};

/** Listens for hosts on `http`, each served by a session of `harness`. */
export async function listenGateway(
  harness: Harness | Promise<Harness>,
  gateway: GatewayOptions,
  http: GatewayHttp,
  signal: AbortSignal | undefined,
): Promise<Result<HttpListener, { kind: "listen_failed"; message: string }>> {
  const sessions = new Map<string, GatewaySession>();
  const modern = new GatewaySession(harness, { ...gateway, send: () => {} });
  let nextOwn = 0;

  const legacyOf = (exchange: HttpExchange): GatewaySession | undefined => {
    const session = exchange.session;
    if (session === undefined) return undefined;
    let found = sessions.get(session.id);
    if (found === undefined && !session.signal.aborted) {
      const made = new GatewaySession(harness, { ...gateway, send: (m) => void session.send(m) });
      sessions.set(session.id, made);
      session.signal.addEventListener("abort", () => {
        sessions.delete(session.id);
        void made.close();
      }, { once: true });
      found = made;
    }
    return found;
  };

  const handler = (
    message: JsonObject,
    exchange: HttpExchange,
  ): Promise<JsonObject | undefined> => {
    const decoded = classify(message);
    if (!decoded.ok) {
      // A request whose id could be read is answered by it; the endpoint says the rest.
      const fault = decoded.error;
      if (fault.kind !== "bad_message" || fault.id === undefined) return Promise.resolve(undefined);
      return Promise.resolve(
        encodeError(fault.id, { code: INVALID_REQUEST, message: fault.message }),
      );
    }
    const inbound = decoded.value;
    const legacy = exchange.session !== undefined;
    const session = legacy ? legacyOf(exchange) : modern;
    if (session === undefined) return Promise.resolve(undefined);
    if (inbound.kind !== "request") {
      // A 2026-07-28 client cancels by closing its stream, and answers in its retried request.
      if (legacy) session.handle(inbound);
      return Promise.resolve(undefined);
    }
    const id: Id = legacy ? inbound.id : `http-${nextOwn++}`;
    const own: Inbound = { ...inbound, id };
    const answered = Promise.withResolvers<JsonObject | undefined>();
    const send: Send = (sent) => {
      if (!("method" in sent) && sent.id === id) {
        answered.resolve({ ...sent, id: inbound.id });
        return;
      }
      // What goes with the request (its progress, a question for its host) rides its stream.
      if (!exchange.send(sent)) exchange.session?.send(sent);
    };
    const onAbort = (): void => {
      session.handle({
        kind: "notification",
        method: "notifications/cancelled",
        params: { requestId: id, reason: "the request's exchange ended" },
      });
      answered.resolve(undefined);
    };
    if (exchange.signal.aborted) onAbort();
    else exchange.signal.addEventListener("abort", onAbort, { once: true });
    session.handle(own, send);
    return answered.promise.finally(() => exchange.signal.removeEventListener("abort", onAbort));
  };

  const closeAll = async (): Promise<void> => {
    const all = [modern, ...sessions.values()];
    sessions.clear();
    await Promise.all(all.map((session) => session.close()));
  };
  const listening = await listenHttp(handler, http);
  if (!listening.ok) {
    await closeAll();
    return listening;
  }
  const listener = listening.value;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await listener.close();
      await closeAll();
    })();
    return closing;
  };
  signal?.addEventListener("abort", () => void close(), { once: true });
  if (signal?.aborted === true) await close();
  return ok({
    url: listener.url,
    token: listener.token,
    finished: listener.finished.then(() => close()),
    close,
  });
}
