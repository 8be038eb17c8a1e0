// Private to client/transport/http/: the credentials a remote server's requests carry when
// the main thread holds a sign-in for it. The sign-in itself (discovery,
// grants, refresh, the token store, DPoP keys) never enters the worker: it
// asks for the credentials of its first request and keeps them, asks again
// for each request when they are made per request (a DPoP proof is bound to
// one method and URL), hands every 401 or 403 over and sends the request
// again with what comes back, until the sign-in gives up. The main thread
// also tells it of a token it refreshed on its own (`update`).

import type { AuthAnswer, AuthHeaders, AuthRefusal } from "../../thread/auth.ts";
import type { RequestTarget } from "../../thread/from_worker.ts";
import type { HttpFailure } from "../../thread/outcomes.ts";
import { type HeaderList, refusal, send, type Sent } from "./_read.ts";
import type { SentCredentials } from "./_credentials.ts";

/** Where credentials come from: the main thread, asked on the worker's tickets. */
export type CredentialSource = {
  /** The credentials of a request to `target`. */
  ask(target: RequestTarget): Promise<AuthAnswer>;
  /** New credentials for a request the server refused, or why there are none. */
  refused(refusal: AuthRefusal): Promise<AuthAnswer>;
};

/** One server's credentials in the worker, and how a request is sent with them. */
export class HttpAuth {
  #source: CredentialSource;
  #current: AuthHeaders | undefined;
  #first: Promise<AuthAnswer> | undefined;

  constructor(source: CredentialSource) {
    this.#source = source;
  }

  /** The main thread has new credentials (a token it refreshed): requests carry them from now on. */
  update(credentials: AuthHeaders): void {
    if (this.#current === undefined || credentials.serial >= this.#current.serial) {
      this.#current = credentials;
    }
  }

  /**
   * Sends a request with the server's credentials; a 401 or 403 is handed to
   * the sign-in, and the request sent again with the credentials it answers,
   * until it is let in or the sign-in gives up (`auth_failed`, with the last
   * refusal). Every header it adds is learnt by `credentials`, which scrubs
   * them from what the server answers.
   */
  async send(
    url: URL,
    init: {
      method: string;
      headers: HeaderList;
      body?: Uint8Array<ArrayBuffer>;
      signal: AbortSignal;
    },
    credentials: SentCredentials,
  ): Promise<Sent> {
    const target = { method: init.method, url: url.href };
    let given = await this.#credentialsFor(target);
    for (let attempt = 1;; attempt++) {
      if (!given.ok) return { kind: "auth_failed", failure: given.error };
      const headers: HeaderList = { ...init.headers };
      for (const [name, value] of Object.entries(given.value.headers)) {
        headers[name.toLowerCase()] = value;
      }
      credentials.learn(given.value.headers);
      const sent = await send(url, { ...init, headers });
      if (sent.kind !== "answer") return sent;
      const status = sent.response.status;
      if (status !== 401 && status !== 403) return sent;
      const response = sent.response;
      const refused = await refusal(response, (text) => credentials.clean(text));
      const serial = given.value.serial;
      const answer = await this.#source.refused({
        status,
        wwwAuthenticate: response.headers.get("www-authenticate"),
        dpopNonce: response.headers.get("dpop-nonce"),
        method: init.method,
        url: url.href,
        attempt,
        serial: serial === 0 ? null : serial,
      });
      if (init.signal.aborted) return { kind: "aborted" };
      if (!answer.ok) return failed(answer, refused.http);
      if (!answer.value.perRequest) this.update(answer.value);
      given = answer;
    }
  }

  /** The credentials of one request: those held, or asked for (the first, or each DPoP one). */
  async #credentialsFor(target: RequestTarget): Promise<AuthAnswer> {
    const current = this.#current;
    if (current !== undefined) {
      return current.perRequest ? await this.#source.ask(target) : { ok: true, value: current };
    }
    // Requests that start together share the first ask.
    const mine = this.#first === undefined;
    if (mine) this.#first = this.#source.ask(target);
    const answer = await this.#first!;
    if (mine) this.#first = undefined;
    if (!answer.ok) return answer;
    if (!answer.value.perRequest) {
      this.update(answer.value);
      return answer;
    }
    // A DPoP proof is made for one request: the others that waited ask for their own.
    this.#current ??= { headers: {}, serial: answer.value.serial, perRequest: true };
    return mine ? answer : await this.#source.ask(target);
  }
}

function failed(answer: AuthAnswer & { ok: false }, http: HttpFailure): Sent {
  return { kind: "auth_failed", failure: answer.error, http };
}
