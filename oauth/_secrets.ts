/**
 * The secrets a session has seen (tokens, refresh tokens, client secrets,
 * codes, PKCE verifiers, assertions), and the scrubbing of every failure it
 * hands out: whatever an authorization server echoes back in an error, no
 * secret leaves in a message.
 *
 * @module
 */

import type { OAuthFailure } from "./failures.ts";

/** Shorter strings are not taken for secrets: they would scrub ordinary words. */
const MIN_SECRET_CHARS = 4;

/** What a scrubbed secret becomes. */
export const REDACTED = "[redacted]";

/** A session's secrets. */
export class Secrets {
  #known = new Set<string>();

  /** Remembers `secret`, when there is one. */
  keep(secret: string | undefined | null): void {
    if (typeof secret === "string" && secret.length >= MIN_SECRET_CHARS) this.#known.add(secret);
  }

  /** `text` with every known secret replaced by {@linkcode REDACTED}. */
  clean(text: string): string {
    let out = text;
    for (const secret of this.#known) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
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
