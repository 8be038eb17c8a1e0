import assert from "node:assert/strict";
import fc from "fast-check";
import { isRingMemory, ringMemory, RingReader, RingWriter } from "../../../client/thread/ring.ts";

/** A ring of 64 bytes with both ends, its frames gathered in `got`; a broken frame throws. */
function ring64(): { writer: RingWriter; reader: RingReader; got: string[] } {
  const memory = ringMemory(64);
  const got: string[] = [];
  const reader = new RingReader(memory, (text) => got.push(text), (message) => {
    throw new Error(message);
  });
  return { writer: new RingWriter(memory), reader, got };
}

Deno.test("a ring carries frames in order, across its end, and refuses what does not fit", () => {
  const { writer, reader, got } = ring64();
  // 60 bytes free for frames of 4 + length bytes.
  assert.ok(writer.write("é".repeat(10))); // 24 bytes
  assert.ok(writer.write("x".repeat(20))); // 24 bytes
  assert.ok(!writer.write("y".repeat(20)), "24 more do not fit in 16");
  reader.drain();
  assert.deepEqual(got, ["é".repeat(10), "x".repeat(20)]);
  // Now frames wrap around the end of the buffer.
  for (let round = 0; round < 20; round++) {
    assert.ok(writer.write(`frame ${round} 😀`));
    assert.ok(writer.write(""));
    reader.drain();
  }
  assert.equal(got.length, 2 + 40);
  assert.equal(got.at(-2), "frame 19 😀");
  assert.equal(got.at(-1), "");
  assert.ok(!writer.write("z".repeat(61)), "a frame larger than the ring never fits");
});

Deno.test("a frame whose UTF-8 outgrows the room its length promised is refused whole", () => {
  const { writer, reader, got } = ring64();
  // 31 units in 62 bytes: the units fit in the 60 bytes free, the bytes do not.
  assert.ok(!writer.write("é".repeat(31)));
  assert.ok(writer.write("é".repeat(27)));
  reader.drain();
  assert.deepEqual(got, ["é".repeat(27)]);
  // The next frame's text starts at byte 62 of 64: it is written across the end.
  assert.ok(writer.write("😀é".repeat(4)));
  reader.drain();
  assert.deepEqual(got, ["é".repeat(27), "😀é".repeat(4)]);
});

Deno.test("a ring carries any frames a writer can fit, in order", () => {
  // Any UTF-16 units, lone surrogates included: a frame is encoded in place
  // when it fits before the end of the buffer, and in two pieces across it.
  const unit = fc.oneof(
    fc.constantFrom("a", "é", "😀", "\ud800", "\udc00"),
    fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
  );
  const frames = fc.array(fc.string({ unit, maxLength: 40 }), { maxLength: 60 });
  fc.assert(
    fc.property(frames, fc.array(fc.boolean(), { maxLength: 60 }), (texts, drains) => {
      const memory = ringMemory(128);
      const writer = new RingWriter(memory);
      const got: string[] = [];
      const reader = new RingReader(memory, (text) => got.push(text), () => {});
      const sent: string[] = [];
      texts.forEach((text, index) => {
        if (drains[index] === true) reader.drain();
        if (writer.write(text)) sent.push(text);
        else {
          reader.drain();
          if (writer.write(text)) sent.push(text);
        }
      });
      reader.drain();
      assert.deepEqual(
        got,
        sent.map((text) => new TextDecoder().decode(new TextEncoder().encode(text))),
      );
    }),
  );
});

Deno.test("a listening reader wakes for frames written from another thread, and stops when closed", async () => {
  const memory = ringMemory();
  const source = `
    import { RingWriter } from ${
    JSON.stringify(new URL("../../../client/thread/ring.ts", import.meta.url).href)
  };
    self.onmessage = (event) => {
      const writer = new RingWriter(event.data);
      for (let index = 0; index < 1000; index++) {
        while (!writer.write("frame " + index)) {}
      }
      self.postMessage("done");
    };`;
  const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })), {
    type: "module",
  });
  const got: string[] = [];
  let wake: () => void = () => {};
  const all = new Promise<void>((resolve) => wake = resolve);
  const reader = new RingReader(memory, (text) => {
    got.push(text);
    if (got.length === 1000) wake();
  }, (message) => {
    throw new Error(message);
  });
  reader.listen();
  worker.postMessage(memory);
  await all;
  assert.deepEqual(got, Array.from({ length: 1000 }, (_, index) => `frame ${index}`));
  reader.close();
  worker.terminate();
});

Deno.test("a ring's memory is recognized, and only a power of two is made", () => {
  assert.ok(isRingMemory(ringMemory(1024)));
  assert.ok(!isRingMemory(new SharedArrayBuffer(100)));
  assert.ok(!isRingMemory(new ArrayBuffer(1040)));
  assert.throws(() => ringMemory(100), RangeError);
});

Deno.test("a reader told of an impossible frame stops and says so once", () => {
  const memory = ringMemory(64);
  const header = new Int32Array(memory, 0, 4);
  const data = new Uint8Array(memory, 16);
  data.set([200, 0, 0, 0]);
  Atomics.store(header, 0, 10);
  const broken: string[] = [];
  const reader = new RingReader(memory, () => {}, (message) => broken.push(message));
  reader.drain();
  reader.drain();
  assert.equal(broken.length, 1);
  assert.match(broken[0] ?? "", /200 bytes/);
});
