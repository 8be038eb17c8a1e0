// Private to the library: joining byte chunks into one array.

/** Joins `parts` into one array of `size` bytes (their total length). */
export function joinBytes(parts: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
