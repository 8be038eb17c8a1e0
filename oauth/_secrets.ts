/**
 * The secrets a session has seen (tokens, refresh tokens, client secrets,
 * codes, PKCE verifiers, assertions, the `Basic` credentials of a client),
 * and the scrubbing of every text it hands out: whatever an authorization
 * server echoes back in an error, no secret leaves in a message. A secret is
 * looked for in every spelling an echo may give it: as it is, escaped as in
 * JSON (and as `quote` escapes it), percent-encoded as in a URL or a form
 * body, and in Base64. A scrub must come before any cut of the text: a cut
 * inside a secret leaves a head no scrub recognises, so the session scrubs
 * each error answer whole as it arrives (`_http.ts`), and every failure once
 * more before it leaves.
 *
 * @module
 */

import { quote } from "../codec/quote.ts";
import type { OAuthFailure } from "./failures.ts";

/** Shorter strings are not taken for secrets: they would scrub ordinary words. */
const MIN_SECRET_CHARS = 4;

/** What a scrubbed secret becomes. */
export const REDACTED = "[redacted]";

/** A session's secrets. */
export class Secrets {
  #known = new Set<string>();
  /** Every spelling of every secret, the longest first, so that none is half replaced. */
  #spellings: string[] = [];

  /** Remembers `secret`, when there is one, in all its spellings. */
  keep(secret: string | undefined | null): void {
    if (typeof secret !== "string" || secret.length < MIN_SECRET_CHARS) return;
    if (this.#known.has(secret)) return;
    this.#known.add(secret);
    for (const spelling of spellingsOf(secret)) {
      if (!this.#spellings.includes(spelling)) this.#spellings.push(spelling);
    }
    this.#spellings.sort((a, b) => b.length - a.length);
  }

  /** `text` with every spelling of every known secret replaced by {@linkcode REDACTED}. */
  clean(text: string): string {
    let out = text;
    for (const spelling of this.#spellings) {
      if (out.includes(spelling)) out = out.split(spelling).join(REDACTED);
    }
    return out;
  }

  /** The failure with every string field, and every string of an array field, cleaned. */
  scrub(failure: OAuthFailure): OAuthFailure {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(failure)) {
      out[key] = typeof value === "string"
        ? this.clean(value)
        : Array.isArray(value)
        ? value.map((item) => typeof item === "string" ? this.clean(item) : item)
        : value;
    }
    return out as OAuthFailure;
  }
}

/** The spellings an echo may give `secret`. */
function spellingsOf(secret: string): string[] {
  let binary = "";
  for (const byte of new TextEncoder().encode(secret)) binary += String.fromCharCode(byte);
  const base64 = btoa(binary);
  // Whole groups of three bytes only: how the secret begins a longer Base64 text.
  const head = btoa(binary.slice(0, binary.length - (binary.length % 3)));
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    quote(secret, secret.length).slice(1, -1),
    encodeURIComponent(secret),
    // application/x-www-form-urlencoded, as a token request's body spells its fields.
    new URLSearchParams({ v: secret }).toString().slice(2),
    base64,
    head,
    base64.replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_"),
  ].filter((spelling) => spelling.length >= MIN_SECRET_CHARS);
}
