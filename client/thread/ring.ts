/**
 * A one-way channel of text frames between two threads over a
 * `SharedArrayBuffer`: one writer, one reader, the reader woken by
 * `Atomics.notify` only while it waits. The batches of a client's calls cross
 * it instead of `postMessage`: in seven paired runs of `bench/tree_ab.ts`
 * a sequential call cost less CPU each time (a median of 19 µs of about 160)
 * and took as long or less (see BENCHMARKS.md), though a bare round trip of
 * two threads costs about the same either way (`bench/ring_bench.ts`).
 *
 * A frame that does not fit in the space left is refused (`write` returns
 * false) and its writer sends it another way; the reader drains the ring
 * before anything that comes that other way, so what was written first is
 * read first.
 *
 * @module
 */

/**
 * The bytes of a ring's frames, by default: 128 KiB, room for a turn's
 * answers as text (up to 64 KiB, `ANSWER_TEXT_BYTES`) while the reader is
 * behind by as much again.
 */
export const RING_BYTES = 128 * 1024;

const HEAD = 0;
const TAIL = 1;
const WAITING = 2;
const CLOSED = 3;
const HEADER_INTS = 4;
const LENGTH_BYTES = 4;
// The first size of a reader's buffer for one frame; it grows to the ring's size once needed.
const COPY_BYTES = 4096;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A ring's shared memory, to hand to the thread at its other end. */
export type RingMemory = SharedArrayBuffer;

/** Makes the shared memory of a ring holding `bytes` bytes of frames (a power of two). */
export function ringMemory(bytes: number = RING_BYTES): RingMemory {
  if (!Number.isSafeInteger(bytes) || bytes < 64 || (bytes & (bytes - 1)) !== 0) {
    throw new RangeError(`Cannot make a ring of ${bytes} bytes: use a power of two, at least 64`);
  }
  return new SharedArrayBuffer(HEADER_INTS * 4 + bytes);
}

/** Whether `value` is a ring's shared memory. */
export function isRingMemory(value: unknown): value is RingMemory {
  if (!(value instanceof SharedArrayBuffer)) return false;
  const bytes = value.byteLength - HEADER_INTS * 4;
  return bytes >= 64 && (bytes & (bytes - 1)) === 0;
}

class Ring {
  protected header: Int32Array;
  protected data: Uint8Array;
  protected mask: number;

  constructor(memory: RingMemory) {
    this.header = new Int32Array(memory, 0, HEADER_INTS);
    this.data = new Uint8Array(memory, HEADER_INTS * 4);
    this.mask = this.data.length - 1;
  }

  /**
   * Closes the ring, from either end: nothing more is written, and the
   * reader stops once it has read what was (a waiting reader is woken).
   */
  close(): void {
    Atomics.store(this.header, CLOSED, 1);
    Atomics.notify(this.header, HEAD);
  }
}

/** The writing end of a ring. */
export class RingWriter extends Ring {
  /**
   * Writes one frame; false when it does not fit in the space left (or the
   * ring is closed), and nothing is written then. Wakes the reader if it
   * waits.
   */
  write(text: string): boolean {
    if (Atomics.load(this.header, CLOSED) !== 0) return false;
    const head = Atomics.load(this.header, HEAD);
    const used = (head - Atomics.load(this.header, TAIL)) | 0;
    const free = this.data.length - used - LENGTH_BYTES;
    // Every UTF-16 unit takes at least one byte.
    if (text.length > free) return false;
    const start = (head + LENGTH_BYTES) & this.mask;
    // Encoded in place when it fits before the end of the buffer: a fresh
    // buffer per frame cost more than the rest of the write (measured: 1.7
    // µs to encode a 300-byte frame into a fresh buffer, 0.3 µs in place).
    const room = Math.min(free, this.data.length - start);
    const placed = encoder.encodeInto(text, this.data.subarray(start, start + room));
    let length = placed.written;
    if (placed.read !== text.length) {
      const bytes = encoder.encode(text);
      if (bytes.length > free) return false;
      length = bytes.length;
      const first = Math.min(length, this.data.length - start);
      this.data.set(bytes.subarray(0, first), start);
      if (first < length) this.data.set(bytes.subarray(first), 0);
    }
    let at = head;
    for (let shift = 0; shift < 32; shift += 8) {
      this.data[at & this.mask] = (length >>> shift) & 0xff;
      at = (at + 1) | 0;
    }
    Atomics.store(this.header, HEAD, (at + length) | 0);
    if (Atomics.load(this.header, WAITING) !== 0) Atomics.notify(this.header, HEAD);
    return true;
  }
}

/** The reading end of a ring. */
export class RingReader extends Ring {
  #onFrame: (text: string) => void;
  #onBroken: (message: string) => void;
  #listening = false;
  #broken = false;
  #copy = new Uint8Array(COPY_BYTES);

  /**
   * `onFrame` receives each frame, in order, on this thread; `onBroken` is
   * told once if a frame's length is impossible, after which nothing more is
   * read.
   */
  constructor(
    memory: RingMemory,
    onFrame: (text: string) => void,
    onBroken: (message: string) => void,
  ) {
    super(memory);
    this.#onFrame = onFrame;
    this.#onBroken = onBroken;
  }

  /** Reads every frame written so far. */
  drain(): void {
    while (!this.#broken) {
      const tail = Atomics.load(this.header, TAIL);
      const head = Atomics.load(this.header, HEAD);
      if (tail === head) return;
      let at = tail;
      let length = 0;
      for (let shift = 0; shift < 32; shift += 8) {
        length |= (this.data[at & this.mask] as number) << shift;
        at = (at + 1) | 0;
      }
      if (length < 0 || LENGTH_BYTES + length > ((head - tail) | 0)) {
        this.#broken = true;
        this.#onBroken(`a frame of ${length} bytes with ${(head - tail) | 0} written`);
        return;
      }
      const start = at & this.mask;
      const first = Math.min(length, this.data.length - start);
      // Copied out into memory of this thread's own, kept for the next frame:
      // the decoder copies shared memory into a fresh buffer, and a fresh
      // buffer costs more than the decode (measured: 2.0 µs to decode 300
      // bytes in place, 0.3 µs to copy them into a kept buffer and decode).
      if (this.#copy.length < length) this.#copy = new Uint8Array(this.data.length);
      const copy = this.#copy;
      copy.set(this.data.subarray(start, start + first));
      if (first < length) copy.set(this.data.subarray(0, length - first), first);
      const text = decoder.decode(copy.subarray(0, length));
      Atomics.store(this.header, TAIL, (at + length) | 0);
      this.#onFrame(text);
    }
  }

  /**
   * Reads frames as they are written, until the ring is closed: each wait
   * is one `Atomics.waitAsync`, armed only once the ring is empty.
   */
  listen(): void {
    if (this.#listening) return;
    this.#listening = true;
    this.#wait();
  }

  #wait(): void {
    for (;;) {
      this.drain();
      if (this.#broken || Atomics.load(this.header, CLOSED) !== 0) {
        this.#listening = false;
        return;
      }
      Atomics.store(this.header, WAITING, 1);
      // A frame written before the flag was up woke nobody: read it first.
      const head = Atomics.load(this.header, HEAD);
      if (head !== Atomics.load(this.header, TAIL)) {
        Atomics.store(this.header, WAITING, 0);
        continue;
      }
      const waited = Atomics.waitAsync(this.header, HEAD, head);
      if (!waited.async) {
        Atomics.store(this.header, WAITING, 0);
        continue;
      }
      void waited.value.then(() => {
        Atomics.store(this.header, WAITING, 0);
        this.#wait();
      });
      return;
    }
  }
}
