import assert from "node:assert/strict";
import fc from "fast-check";
import {
  MAX_EVENT_BYTES,
  MAX_EVENT_LINE_BYTES,
  SseDecoder,
  type SseEvent,
  type SseFault,
} from "../../codec/mod.ts";
import { RUNS, splitAt } from "./_helpers.ts";

const encoder = new TextEncoder();

/** What a run of pushes yields: every event in order, the fault kinds met, what end dropped. */
type Outcome = { events: SseEvent[]; faults: SseFault["kind"][]; discarded: number };

function feed(chunks: readonly (string | Uint8Array)[]): Outcome & { decoder: SseDecoder } {
  const decoder = new SseDecoder();
  const out: Outcome = { events: [], faults: [], discarded: 0 };
  for (const chunk of chunks) {
    const pushed = decoder.push(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
    if (pushed.ok) {
      out.events.push(...pushed.value);
    } else {
      out.faults.push(pushed.error.kind);
      out.events.push(...pushed.error.events);
    }
  }
  out.discarded = decoder.end().discardedBytes;
  return { ...out, decoder };
}

function message(data: string, lastEventId = "", type = "message"): SseEvent {
  return { type, data, lastEventId };
}

Deno.test("SseDecoder decodes events as a table of streams says", async (t) => {
  const table: Array<[string, (string | Uint8Array)[], SseEvent[]]> = [
    ["one event", ["data: {}\n\n"], [message("{}")]],
    ["two data lines joined by a newline", ["data: a\ndata: b\n\n"], [message("a\nb")]],
    ["the space after the colon is optional", ["data:x\n\n"], [message("x")]],
    ["only one leading space is removed", ["data:  x\n\n"], [message(" x")]],
    ["a field without a colon is an empty value", ["data\n\n"], [message("")]],
    ["an event type", ["event: ping\ndata: 1\n\n"], [message("1", "", "ping")]],
    ["an id kept across events", ["id: 7\ndata: a\n\ndata: b\n\n"], [
      message("a", "7"),
      message("b", "7"),
    ]],
    ["an id with NUL is ignored", ["id: 1\n\nid: a\0b\ndata: x\n\n"], [message("x", "1")]],
    ["an empty id resets it", ["id: 1\n\nid\ndata: x\n\n"], [message("x", "")]],
    ["an event with no data only moves the id", ["id: 4\nevent: x\n\ndata: y\n\n"], [
      message("y", "4"),
    ]],
    ["the priming event: an id and empty data", ["id: p1\ndata: \n\n"], [message("", "p1")]],
    ["comments are skipped", [": hello\n:\ndata: x\n\n"], [message("x")]],
    ["unknown fields are skipped", ["foo: bar\ndata: x\n\n"], [message("x")]],
    ["CR line ends", ["data: a\rdata: b\r\r"], [message("a\nb")]],
    ["CRLF line ends", ["data: a\r\n\r\n"], [message("a")]],
    ["CRLF cut between chunks", ["data: a\r", "\n\r", "\ndata: b\r\n\r\n"], [
      message("a"),
      message("b"),
    ]],
    ["CR at a chunk's end, then a new line", ["data: a\r", "data: b\r\r"], [message("a\nb")]],
    ["a leading BOM is dropped", ["\ufeffdata: x\n\n"], [message("x")]],
    ["a BOM later is data", ["data: \ufeffx\n\n"], [message("\ufeffx")]],
    ["a character cut between chunks", [
      new Uint8Array([0x64, 0x61, 0x74, 0x61, 0x3a, 0xe2, 0x82]),
      new Uint8Array([0xac, 0x0a, 0x0a]),
    ], [message("€")]],
    ["a byte at a time", [..."data: x\n\n"], [message("x")]],
    ["an unfinished event is dropped at the end", ["data: a\n\ndata: b\n"], [message("a")]],
    ["blank lines alone dispatch nothing", ["\n\n\r\n\r"], []],
    ["a comment before anything", [":ok\n\ndata: 1\n\n"], [message("1")]],
  ];
  for (const [name, chunks, expected] of table) {
    await t.step(name, () => {
      const out = feed(chunks);
      assert.deepEqual(out.faults, []);
      assert.deepEqual(out.events, expected);
    });
  }
});

Deno.test("SseDecoder keeps the last event id and the retry delay", () => {
  const out = feed(["retry: 1500\nid: 9\ndata: a\n\nretry: soon\nretry: 99999999999999999999\n"]);
  assert.equal(out.decoder.lastEventId, "9");
  assert.equal(out.decoder.retryMs, 1500);
});

Deno.test("SseDecoder counts the bytes of an unfinished event it drops", () => {
  const out = feed(["data: a\n\ndata: bc\nda"]);
  assert.equal(out.discarded, "data: bc\n".length + 2);
});

Deno.test("SseDecoder refuses hostile streams with a named fault", async (t) => {
  const big = "a".repeat(MAX_EVENT_BYTES);
  const table: Array<[string, (string | Uint8Array)[], SseFault["kind"], SseEvent[]]> = [
    ["a line past the cap with no end", ["data: x\n\n", big, big], "line_too_long", [
      message("x"),
    ]],
    ["a line past the cap in one chunk", [`data: ${big}${big}\n\n`], "line_too_long", []],
    [
      "many data lines past the cap",
      [
        "data: x\n\n",
        ...Array.from(
          { length: 2 },
          () => `data: ${"b".repeat(MAX_EVENT_BYTES / 2)}\n`,
        ),
      ],
      "event_too_large",
      [message("x")],
    ],
    [
      "a line that is not UTF-8",
      ["data: 1\n\n", new Uint8Array([0x64, 0x3a, 0xff, 0x0a])],
      "not_utf8",
      [
        message("1"),
      ],
    ],
    [
      "a lone surrogate's bytes",
      [new Uint8Array([0x64, 0x3a, 0xed, 0xa0, 0x80, 0x0a])],
      "not_utf8",
      [],
    ],
  ];
  for (const [name, chunks, kind, events] of table) {
    await t.step(name, () => {
      const out = feed(chunks);
      assert.deepEqual(out.faults, [kind]);
      assert.deepEqual(out.events, events);
    });
  }
});

Deno.test("SseDecoder accepts an event of exactly the cap", () => {
  const data = "a".repeat(MAX_EVENT_BYTES);
  const out = feed([`id: big\r\ndata: ${data}\r\n\r\n`]);
  assert.deepEqual(out.faults, []);
  assert.equal(out.events.length, 1);
  assert.equal(out.events[0]?.data.length, MAX_EVENT_BYTES);
});

Deno.test("SseDecoder answers every push after a fault with the same fault", () => {
  const decoder = new SseDecoder();
  const first = decoder.push(new Uint8Array([0xff, 0x0a]));
  assert.equal(first.ok, false);
  const again = decoder.push(encoder.encode("data: fine\n\n"));
  assert.equal(!again.ok && again.error.kind, "not_utf8");
  assert.deepEqual(!again.ok && again.error.events, []);
  assert.equal(decoder.fault?.kind, "not_utf8");
});

Deno.test("SseDecoder costs time linear in the bytes fed, chunked small", () => {
  // 4 MiB in 1 KiB reads: a quadratic join would copy terabytes.
  const decoder = new SseDecoder();
  const chunk = encoder.encode("x".repeat(1024));
  const pushed = decoder.push(encoder.encode("data: "));
  assert.equal(pushed.ok, true);
  for (let i = 0; i < 4096; i++) assert.equal(decoder.push(chunk).ok, true);
  const done = decoder.push(encoder.encode("\n\n"));
  assert.equal(done.ok && done.value[0]?.data.length, 4 * 1024 * 1024);
});

Deno.test("SseDecoder never throws on arbitrary bytes, however chunked", () => {
  const hostile = fc.oneof(
    fc.uint8Array({ maxLength: 64 }),
    fc.constantFrom(
      encoder.encode("data: x\n"),
      encoder.encode("\r"),
      encoder.encode("\n"),
      encoder.encode("id: \0\n"),
      encoder.encode("retry: 12\n"),
      encoder.encode(":\n"),
      new Uint8Array([0xef, 0xbb, 0xbf]),
    ),
  );
  fc.assert(
    fc.property(fc.array(hostile, { maxLength: 12 }), (chunks) => {
      const decoder = new SseDecoder();
      for (const chunk of chunks) {
        const pushed = decoder.push(chunk);
        const events = pushed.ok ? pushed.value : pushed.error.events;
        for (const event of events) assert.equal(typeof event.data, "string");
      }
      assert.equal(typeof decoder.end().discardedBytes, "number");
    }),
    { numRuns: RUNS },
  );
});

Deno.test("SseDecoder yields the same events however a stream is cut", () => {
  const line = fc.oneof(
    fc.string({ maxLength: 8 }).map((s) => `data: ${s.replace(/[\r\n]/g, "")}`),
    fc.string({ maxLength: 4 }).map((s) => `id: ${s.replace(/[\r\n]/g, "")}`),
    fc.constantFrom("", ": note", "event: x", "retry: 5", "data"),
  );
  const ending = fc.constantFrom("\n", "\r", "\r\n");
  const stream = fc.array(fc.tuple(line, ending), { maxLength: 16 }).map((lines) =>
    encoder.encode(lines.map(([text, end]) => text + end).join(""))
  );
  fc.assert(
    fc.property(stream, fc.array(fc.nat({ max: 200 }), { maxLength: 8 }), (bytes, cuts) => {
      const whole = feed([bytes]);
      const cut = feed(splitAt(bytes, cuts));
      assert.deepEqual(cut.events, whole.events);
      assert.deepEqual(cut.faults, whole.faults);
      assert.equal(cut.decoder.lastEventId, whole.decoder.lastEventId);
      assert.equal(cut.discarded, whole.discarded);
    }),
    { numRuns: RUNS },
  );
});

/**
 * A chunk that counts the bytes its searches pass over, in every view made
 * of it: the work the decoder spends finding line ends.
 */
class CountedBytes extends Uint8Array {
  static scanned = 0;
  override indexOf(value: number, from = 0): number {
    const at = super.indexOf(value, from);
    CountedBytes.scanned += (at === -1 ? this.length : at + 1) - Math.max(0, from);
    return at;
  }
}

function counted(text: string): CountedBytes {
  const plain = encoder.encode(text);
  const out = new CountedBytes(plain.length);
  out.set(plain);
  return out;
}

Deno.test("SseDecoder searches each byte a bounded number of times, whatever the line ends", async (t) => {
  const lines = 4096;
  const table: Array<[string, string]> = [
    ["LF", "data: x\n\n"],
    ["CR", "data: x\r\r"],
    ["CRLF", "data: x\r\n\r\n"],
    ["CR then LF", "data: x\r\n"],
    ["comments ending in CR", ":\r"],
  ];
  for (const [name, unit] of table) {
    await t.step(name, () => {
      const chunk = counted(unit.repeat(lines));
      CountedBytes.scanned = 0;
      assert.equal(new SseDecoder().push(chunk).ok, true);
      assert.ok(CountedBytes.scanned > 0, "the decoder's searches are what is counted");
      // A search to the chunk's end per line would be thousands of times the chunk.
      assert.ok(
        CountedBytes.scanned <= 3 * chunk.length,
        `${CountedBytes.scanned} bytes searched for a chunk of ${chunk.length}`,
      );
    });
  }
});

Deno.test("SseDecoder bounds an event's data bytes, not the bytes of its data lines", () => {
  // 16,760 lines of 1,000 bytes of data: 16,776,759 bytes joined, under the cap,
  // though the lines with their "data:" field names are past it.
  const lines = Math.floor((MAX_EVENT_BYTES + 1) / 1001);
  const line = `data:${"x".repeat(1000)}\n`;
  const out = feed([line.repeat(lines) + "\n"]);
  assert.deepEqual(out.faults, []);
  assert.equal(out.events[0]?.data.length, lines * 1001 - 1);
});

Deno.test("SseDecoder refuses an event whose data is one byte past MAX_EVENT_BYTES", async (t) => {
  const half = "a".repeat(MAX_EVENT_BYTES / 2);
  await t.step("on one line", () => {
    const out = feed([`data: ${"a".repeat(MAX_EVENT_BYTES + 1)}\n\n`]);
    assert.deepEqual(out.faults, ["event_too_large"]);
  });
  await t.step("over two lines joined by a newline", () => {
    const out = feed([`data: ${half}\ndata: ${half}\n\n`]);
    assert.deepEqual(out.faults, ["event_too_large"]);
  });
  await t.step("exactly the cap over two lines is accepted", () => {
    const out = feed([`data: ${half}\ndata: ${half.slice(1)}\n\n`]);
    assert.deepEqual(out.faults, []);
    assert.equal(out.events[0]?.data.length, MAX_EVENT_BYTES);
  });
});

Deno.test("SseDecoder refuses a line past MAX_EVENT_LINE_BYTES, whatever its field", async (t) => {
  const table: Array<[string, number, SseFault["kind"][]]> = [
    ["a comment of exactly the line cap", MAX_EVENT_LINE_BYTES, []],
    ["a comment one byte past it", MAX_EVENT_LINE_BYTES + 1, ["line_too_long"]],
  ];
  for (const [name, size, faults] of table) {
    await t.step(name, () => {
      const comment = `:${"c".repeat(size - 1)}`;
      // Pending, then ended by the next read (which answers the fault again), or whole.
      assert.deepEqual(feed([comment, "\n"]).faults.slice(0, 1), faults);
      assert.deepEqual(feed([`${comment}\n`]).faults, faults);
    });
  }
});
