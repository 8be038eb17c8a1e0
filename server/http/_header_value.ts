// Private to server/http/: a header value as the Streamable HTTP binding
// writes it, read back: plain printable ASCII as it is, or the UTF-8 bytes
// of `=?base64?...?=`. The encoder is the codec's (`encodeHeaderValue`).

const PREFIX = "=?base64?";
const SUFFIX = "?=";

/** The value a header carries, or undefined when its base64 form is broken. */
export function decodeHeaderValue(header: string): string | undefined {
  if (!(header.startsWith(PREFIX) && header.endsWith(SUFFIX))) return header;
  const encoded = header.slice(PREFIX.length, header.length - SUFFIX.length);
  try {
    const binary = atob(encoded);
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
