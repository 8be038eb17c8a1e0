// Private to the library: UTF-8 encoding of long text. `TextEncoder.encode`
// takes a slow path for long strings in Deno (measured 4 to 5 times slower
// than `encodeInto` on an 8 MiB line); `encodeInto` writes into a buffer
// sized for ASCII first and only grows for what remains.

const encoder = new TextEncoder();

/** Below this many UTF-16 units, `encode` is as fast and allocates exactly. */
const SHORT_TEXT = 4096;

/** Encodes text as UTF-8 (a lone surrogate becomes U+FFFD, as `encode` does). */
export function encodeUtf8(text: string): Uint8Array<ArrayBuffer> {
  if (text.length < SHORT_TEXT) return encoder.encode(text);
  const first = new Uint8Array(text.length);
  const { read, written } = encoder.encodeInto(text, first);
  if (read === text.length) return first.subarray(0, written);
  // What is left needs at most 3 bytes per UTF-16 unit.
  const rest = text.length - read;
  const whole = new Uint8Array(written + rest * 3);
  whole.set(first.subarray(0, written));
  const tail = encoder.encodeInto(text.slice(read), whole.subarray(written));
  return whole.subarray(0, written + tail.written);
}
