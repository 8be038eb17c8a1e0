/**
 * A DPoP key (RFC 9449) of one session: an ES256 key pair whose private half
 * cannot be exported, oauth4webapi's handle that signs its proofs and keeps
 * the nonces servers hand out, and the headers a request to a protected
 * resource carries with a DPoP-bound token. oauth4webapi makes such a request
 * itself (`protectedResourceRequest`); here the request is sent by someone
 * else (the client's transport), so its fetch is a stand-in that keeps the
 * headers the library made instead of sending them.
 *
 * @module
 */

import * as oauth from "./_oauth4webapi.ts";
import { isLoopback } from "./_http.ts";

/** The algorithm of every DPoP key: ES256, which every DPoP server takes. */
export const DPOP_ALGORITHM = "ES256";

/** Whether the authorization server binds tokens to a key of {@linkcode DPOP_ALGORITHM}. */
export function supportsDpop(as: oauth.AuthorizationServer): boolean {
  const algs = as.dpop_signing_alg_values_supported;
  return Array.isArray(algs) && algs.includes(DPOP_ALGORITHM);
}

/** One session's DPoP key and nonces. */
export class DpopKey {
  /** The handle oauth4webapi's token requests take as their `DPoP` option. */
  readonly handle: oauth.DPoPHandle;

  private constructor(handle: oauth.DPoPHandle) {
    this.handle = handle;
  }

  /** A fresh key pair and its handle. */
  static async create(): Promise<DpopKey> {
    const pair = await oauth.generateKeyPair(DPOP_ALGORITHM);
    return new DpopKey(oauth.DPoP({}, pair));
  }

  /** The `Authorization` and `DPoP` headers of one request with `accessToken`. */
  async headers(
    accessToken: string,
    method: string,
    url: URL,
  ): Promise<{ authorization: string; dpop: string }> {
    let made: Record<string, string> = {};
    await oauth.protectedResourceRequest(accessToken, method, url, undefined, null, {
      DPoP: this.handle,
      [oauth.allowInsecureRequests]: isLoopback(url),
      [oauth.customFetch]: (_target: string, init: { headers: Record<string, string> }) => {
        made = init.headers;
        return Promise.resolve(new Response(null, { status: 204 }));
      },
    });
    return { authorization: made.authorization ?? "", dpop: made.dpop ?? "" };
  }

  /**
   * Keeps the nonce a protected resource asked proofs to carry (RFC 9449
   * §9). The handle learns nonces only from the answers of the requests it
   * made, so it is shown one: a stand-in answer carrying the nonce.
   */
  async rememberNonce(url: URL, nonce: string): Promise<void> {
    await oauth.protectedResourceRequest("nonce", "GET", url, undefined, null, {
      DPoP: this.handle,
      [oauth.allowInsecureRequests]: true,
      [oauth.customFetch]: () =>
        Promise.resolve(new Response(null, { status: 204, headers: { "dpop-nonce": nonce } })),
    });
  }
}
