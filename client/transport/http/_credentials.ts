// Private to client/transport/http/: the credentials a remote server's requests
// carried (the spec's header values, the sign-in's `Authorization` and
// `DPoP` proofs), and their scrubbing from everything the server says that
// the client keeps: a server that echoes the bearer token in a challenge's
// `error_description`, a body or an error message must not put it in a
// message a person or a model reads. Every value ever sent is kept, so a
// token refreshed away is still scrubbed where an old answer echoes it.

import type { HttpFailure, StartFailure } from "../../thread/outcomes.ts";

/** Shorter header values are not taken for credentials: they would scrub ordinary words. */
export const MIN_CREDENTIAL_CHARS = 8;

/** What a scrubbed credential becomes. */
export const REDACTED_CREDENTIAL = "[redacted]";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The credentials one transport sent, and the scrubbing of what its server says. */
export class SentCredentials {
  #known = new Set<string>();
  // Longest first, so that a whole `Bearer <token>` goes before the token alone.
  #ordered: Array<{ text: string; bytes: Uint8Array }> = [];

  /** Remembers every value of `headers`, and the credential after its scheme (`Bearer <token>`). */
  learn(headers: Readonly<Record<string, string>>): void {
    for (const value of Object.values(headers)) {
      this.#keep(value.trim());
      const space = value.trim().indexOf(" ");
      if (space !== -1) this.#keep(value.trim().slice(space + 1).trim());
    }
  }

  #keep(value: string): void {
    if (value.length < MIN_CREDENTIAL_CHARS || this.#known.has(value)) return;
    this.#known.add(value);
    this.#ordered.push({ text: value, bytes: encoder.encode(value) });
    this.#ordered.sort((a, b) => b.text.length - a.text.length);
  }

  /**
   * `text` with every credential sent replaced by {@linkcode REDACTED_CREDENTIAL},
   * also where JSON escapes spell one (`\u0073ecret`, `a\/b`): such escapes
   * are written out first, which leaves JSON meaning the same.
   */
  clean(text: string): string {
    if (this.#ordered.length === 0) return text;
    const plain = text.includes("\\") ? unescapedText(text) : text;
    let out = plain;
    for (const { text: secret } of this.#ordered) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED_CREDENTIAL);
    }
    return out === plain ? text : out;
  }

  /** `bytes` as they are when they hold no credential sent, else cleaned (as UTF-8 text). */
  cleanBytes(bytes: Uint8Array): Uint8Array {
    if (this.#ordered.length === 0) return bytes;
    if (this.#ordered.some(({ bytes: secret }) => holds(bytes, secret))) {
      return encoder.encode(this.clean(decoder.decode(bytes)));
    }
    // Escapes can spell a credential no byte search finds; decoding is the
    // quick way to look for a backslash in a long body.
    const text = decoder.decode(bytes);
    if (!text.includes("\\")) return bytes;
    const cleaned = this.clean(text);
    return cleaned === text ? bytes : encoder.encode(cleaned);
  }

  /** An HTTP refusal with its status text, body and challenge cleaned. */
  cleanHttp(http: HttpFailure): HttpFailure {
    const out: HttpFailure = {
      status: http.status,
      statusText: this.clean(http.statusText),
      body: this.clean(http.body),
    };
    if (http.wwwAuthenticate !== undefined) out.wwwAuthenticate = this.clean(http.wwwAuthenticate);
    return out;
  }

  /** A start failure with every text the server may have written cleaned. */
  cleanFailure(failure: StartFailure): StartFailure {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(failure)) {
      out[key] = typeof value === "string"
        ? this.clean(value)
        : key === "http" && value !== undefined
        ? this.cleanHttp(value as HttpFailure)
        : value;
    }
    return out as StartFailure;
  }
}

// A JSON escape that may spell a credential's character: an escaped slash,
// or `\u00XX`; an escaped backslash is matched too, so that what follows it
// is never read as an escape.
const ESCAPE = /\\(?:\\|\/|u00([0-9A-Fa-f]{2}))/g;

/**
 * `text` with each `\/` and each `\u00XX` of a printable character written
 * out (not `"` or `\`, which stay escaped, nor a control character), so
 * that JSON says the same and a credential reads as it was sent.
 */
function unescapedText(text: string): string {
  return text.replace(ESCAPE, (escape: string, hex: string | undefined) => {
    if (escape === "\\/") return "/";
    if (hex === undefined) return escape;
    const code = parseInt(hex, 16);
    return code < 0x20 || code === 0x22 || code === 0x5c || code === 0x7f
      ? escape
      : String.fromCharCode(code);
  });
}

/** Whether `bytes` hold `needle` (native `indexOf` finds each candidate start). */
function holds(bytes: Uint8Array, needle: Uint8Array): boolean {
  const first = needle[0];
  if (first === undefined) return false;
  const last = bytes.length - needle.length;
  for (let i = bytes.indexOf(first); i !== -1 && i <= last; i = bytes.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && bytes[i + j] === needle[j]) j++;
    if (j === needle.length) return true;
  }
  return false;
}
