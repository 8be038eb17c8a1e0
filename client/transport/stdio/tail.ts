/**
 * A bounded tail of bytes: a server's stderr, of which only the newest
 * {@linkcode STDERR_TAIL_BYTES} are kept. Shared by the worker (which drains
 * the pipe) and the main thread (which answers `stderrTail()`).
 *
 * @module
 */

import { STDERR_TAIL_BYTES } from "../../../settings/limits.ts";

const decoder = new TextDecoder();

/**
 * Keeps the newest `limit` bytes appended to it.
 *
 * @example Keep the end of a flood
 * ```ts
 * import { ByteTail } from "./tail.ts";
 * const tail = new ByteTail(4);
 * tail.append(new TextEncoder().encode("abcdef"));
 * console.log(tail.text()); // cdef
 * ```
 */
export class ByteTail {
  #limit: number;
  #chunks: Uint8Array[] = [];
  #size = 0;
  #total = 0;

  constructor(limit: number = STDERR_TAIL_BYTES) {
    this.#limit = limit;
  }

  /** Bytes ever appended, kept or not. */
  get total(): number {
    return this.#total;
  }

  /** Appends a copy of `bytes`, dropping the oldest bytes past the limit. */
  append(bytes: Uint8Array): void {
    this.#total += bytes.length;
    if (bytes.length === 0) return;
    const kept = bytes.length > this.#limit ? bytes.subarray(bytes.length - this.#limit) : bytes;
    this.#chunks.push(kept.slice());
    this.#size += kept.length;
    while (this.#size - (this.#chunks[0]?.length ?? 0) >= this.#limit) {
      this.#size -= this.#chunks.shift()?.length ?? 0;
    }
  }

  /** The kept bytes, oldest first. */
  bytes(): Uint8Array {
    const excess = Math.max(0, this.#size - this.#limit);
    const out = new Uint8Array(this.#size - excess);
    let offset = -excess;
    for (const chunk of this.#chunks) {
      if (offset < 0) {
        const skip = Math.min(-offset, chunk.length);
        out.set(chunk.subarray(skip), 0);
        offset += chunk.length;
      } else {
        out.set(chunk, offset);
        offset += chunk.length;
      }
    }
    return out;
  }

  /**
   * The kept bytes as text; a character cut by the limit at the start is
   * dropped, invalid bytes become U+FFFD.
   */
  text(): string {
    const bytes = this.bytes();
    let start = 0;
    // Skip UTF-8 continuation bytes left over from a character cut in half.
    while (start < bytes.length && start < 3 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
    return decoder.decode(bytes.subarray(start));
  }
}
