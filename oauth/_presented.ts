/**
 * The client a session presents to its server's authorization server:
 * prepared once (`_client.ts`: the settings' id, a metadata document, a
 * registration kept in the store, or a dynamic registration now), the DPoP
 * key its tokens are bound to where the server binds them, the context of
 * its token requests, and what follows an `invalid_client`. A dynamic
 * registration the server no longer knows (a restart of a server that keeps
 * them in memory, an expiry, an administrator's cleanup) is forgotten with
 * the grants issued to it, and the client registers again, once per
 * session; a client of the settings is left as it is, since fixing the
 * settings is what helps. It lives and ends with its session.
 *
 * @module
 */

import { ok, type Result } from "../codec/result.ts";
import type { OAuthSettings } from "../settings/oauth.ts";
import type { OAuthFailure } from "./failures.ts";
import type { Fetch } from "./_http.ts";
import type { Discovered } from "./_discovery.ts";
import { forgetRegistration, prepareClient, type PreparedClient } from "./_client.ts";
import { type GrantContext, grantContext } from "./_grants.ts";
import { DpopKey, supportsDpop } from "./_dpop.ts";
import type { KeptGrants } from "./_kept.ts";
import type { Secrets } from "./_secrets.ts";

/** One session's client at its authorization server. */
export class PresentedClient {
  #prepared: PreparedClient | undefined;
  #dpop: DpopKey | undefined;
  #registeredAgain = false;
  #settings: OAuthSettings;
  #redirectUri: string;
  #fetch: Fetch;
  #kept: KeptGrants;
  #secrets: Secrets;

  /** A client not prepared yet. */
  constructor(
    settings: OAuthSettings,
    options: { redirectUri: string; fetch: Fetch; kept: KeptGrants; secrets: Secrets },
  ) {
    this.#settings = settings;
    this.#redirectUri = options.redirectUri;
    this.#fetch = options.fetch;
    this.#kept = options.kept;
    this.#secrets = options.secrets;
  }

  /** The client prepared, if it is. */
  get prepared(): PreparedClient | undefined {
    return this.#prepared;
  }

  /** The DPoP key of the session's tokens, once a token request made one. */
  get dpop(): DpopKey | undefined {
    return this.#dpop;
  }

  /** Forgets the client: its server moved to another authorization server. */
  reset(): void {
    this.#prepared = undefined;
  }

  /** The context of a token request at the authorization server `found` names. */
  async context(found: Discovered): Promise<Result<GrantContext, OAuthFailure>> {
    if (this.#prepared === undefined) {
      const prepared = await prepareClient(found, this.#settings, {
        redirectUri: this.#redirectUri,
        fetch: this.#fetch,
        store: this.#kept.store,
        keep: (secret) => this.#secrets.keep(secret),
        noteStore: (result) => this.#kept.note(result),
      });
      if (!prepared.ok) return prepared;
      this.#prepared = prepared.value;
    }
    if ((this.#settings.dpop ?? supportsDpop(found.as)) && this.#dpop === undefined) {
      this.#dpop = await DpopKey.create();
    }
    return ok(grantContext(found, this.#prepared, { fetch: this.#fetch, dpop: this.#dpop }));
  }

  /**
   * What follows the `invalid_client` of `failure`: whether the client was
   * dropped (a dynamic registration, registered again at the next token
   * request), and the failure to tell.
   */
  async refused(failure: OAuthFailure): Promise<{ dropped: boolean; failure: OAuthFailure }> {
    const client = this.#prepared;
    if (client === undefined || client.record.origin !== "dynamic") {
      return { dropped: false, failure };
    }
    if (this.#registeredAgain) {
      const said = failure.message.replace(/; check the client's [^;]*$/, "");
      const message = `${said}; a new dynamic registration was refused as well: register a ` +
        `client there and set its id as the oauth setting clientId (client_id in a catalog)`;
      return { dropped: false, failure: { ...failure, message } };
    }
    this.#registeredAgain = true;
    this.#kept.note(await forgetRegistration(this.#kept.store, client.key, client.record.clientId));
    this.#prepared = undefined;
    return { dropped: true, failure };
  }
}
