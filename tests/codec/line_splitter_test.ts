import assert from "node:assert/strict";
import fc from "fast-check";
import { LineDecoder, LineSplitter, MAX_LINE_BYTES, type SplitFault } from "../../codec/mod.ts";
import { anyString, bytes, concat, longChunks, plainLines, RUNS, splitAt } from "./_helpers.ts";

const NEWLINE = 0x0a;

/** Every line a run of pushes yields, copied, and the number of faults met. */
function feed(chunks: Uint8Array[]): { lines: number[][]; faults: number } {
  const splitter = new LineSplitter();
  const out = { lines: [] as number[][], faults: 0 };
  const take = (result: ReturnType<LineSplitter["push"]>) => {
    const lines = result.ok ? result.value : result.error.lines;
    if (!result.ok) out.faults++;
    for (const line of lines) out.lines.push([...line]);
  };
  for (const chunk of chunks) take(splitter.push(chunk));
  take(splitter.end());
  return out;
}

Deno.test("LineSplitter splits lines as bytes, as a table of byte streams says", async (t) => {
  const cases: [string, string[], string[]][] = [
    ["one line", ['{"a":1}\n'], ['{"a":1}']],
    ["two lines in one chunk", ["a\nb\n"], ["a", "b"]],
    ["a line across three chunks", ["ab", "cd", "e\n"], ["abcde"]],
    ["CRLF endings", ["a\r\nb\r", "\n"], ["a", "b"]],
    ["empty lines skipped", ["\n\r\n\na\n\n"], ["a"]],
    ["a final line without newline, through end()", ["a\nlast"], ["a", "last"]],
    ["a lone CR inside a line is kept", ["a\rb\n"], ["a\rb"]],
  ];
  for (const [name, chunks, lines] of cases) {
    await t.step(name, () => {
      const out = feed(chunks.map(bytes));
      assert.deepStrictEqual(out.lines.map((line) => String.fromCharCode(...line)), lines);
      assert.equal(out.faults, 0);
    });
  }
});

Deno.test("LineSplitter leaves UTF-8 alone: bytes that are not UTF-8 are a line like any other", () => {
  const result = new LineSplitter().push(new Uint8Array([0xff, 0xfe, NEWLINE, 0x61, NEWLINE]));
  assert.ok(result.ok);
  assert.deepStrictEqual(result.value.map((line) => [...line]), [[0xff, 0xfe], [0x61]]);
});

Deno.test("LineSplitter: a line in one chunk is a view, one across chunks a buffer of its own", () => {
  const splitter = new LineSplitter();
  const chunk = bytes("one\ntw");
  const first = splitter.push(chunk);
  assert.ok(first.ok && first.value[0] !== undefined);
  assert.equal(first.value[0].buffer, chunk.buffer);
  assert.ok(!LineSplitter.owns(first.value[0]));
  // The caller may reuse its buffer: what the splitter keeps is copied.
  chunk.fill(0x7a);
  const second = splitter.push(bytes("o\n"));
  assert.ok(second.ok && second.value[0] !== undefined);
  assert.equal(new TextDecoder().decode(second.value[0]), "two");
  assert.ok(LineSplitter.owns(second.value[0]));
  // A line across chunks that ends in CRLF is a view into a buffer of its own too.
  splitter.push(bytes("x"));
  const crlf = splitter.push(bytes("y\r\n"));
  assert.ok(crlf.ok && crlf.value[0] !== undefined);
  assert.equal(new TextDecoder().decode(crlf.value[0]), "xy");
  assert.ok(LineSplitter.owns(crlf.value[0]));
  assert.notEqual(crlf.value[0].buffer, second.value[0].buffer);
  assert.equal(new TextDecoder().decode(second.value[0]), "two");
});

Deno.test("LineSplitter gathers a long line as it comes, each in a buffer of its own", () => {
  const splitter = new LineSplitter();
  const piece = (fill: number) => new Uint8Array(48 * 1024).fill(fill);
  const lines: Uint8Array[] = [];
  for (let round = 0; round < 2; round++) {
    for (let index = 0; index < 40; index++) {
      const chunk = piece(0x61 + index % 26);
      const pushed = splitter.push(chunk);
      assert.deepStrictEqual(pushed, { ok: true, value: [] });
      chunk.fill(0x7a); // what the splitter keeps is its own
    }
    const last = splitter.push(bytes("end\n"));
    assert.ok(last.ok && last.value[0] !== undefined);
    lines.push(last.value[0]);
  }
  for (const line of lines) {
    assert.equal(line.length, 40 * 48 * 1024 + 3);
    assert.ok(LineSplitter.owns(line));
    for (let index = 0; index < 40; index++) {
      assert.equal(line[index * 48 * 1024], 0x61 + index % 26);
      assert.equal(line[index * 48 * 1024 + 48 * 1024 - 1], 0x61 + index % 26);
    }
    assert.equal(new TextDecoder().decode(line.subarray(line.length - 3)), "end");
  }
  assert.notEqual(lines[0]?.buffer, lines[1]?.buffer);
  assert.equal(splitter.pendingBytes, 0);
});

Deno.test("LineSplitter enforces MAX_LINE_BYTES as LineDecoder does", async (t) => {
  const exact = new Uint8Array(MAX_LINE_BYTES).fill(0x61);
  const over = new Uint8Array(MAX_LINE_BYTES + 1).fill(0x61);
  await t.step("accepts a line of exactly MAX_LINE_BYTES across chunks, ending in CRLF", () => {
    const splitter = new LineSplitter();
    assert.deepStrictEqual(splitter.push(exact), { ok: true, value: [] });
    assert.deepStrictEqual(splitter.push(bytes("\r")), { ok: true, value: [] });
    const result = splitter.push(bytes("\n"));
    assert.ok(result.ok);
    assert.equal(result.value[0]?.length, MAX_LINE_BYTES);
  });
  await t.step("refuses one byte more; the lines beside it in the chunk are kept", () => {
    const result = new LineSplitter().push(concat(bytes("before\n"), over, bytes("\nafter\n")));
    assert.ok(!result.ok);
    const fault: SplitFault = result.error;
    assert.equal(fault.kind, "line_too_long");
    assert.equal(fault.bytes, MAX_LINE_BYTES + 1);
    assert.match(fault.message, /MAX_LINE_BYTES/);
    assert.deepStrictEqual(fault.lines.map((line) => line.length), [6, 5]);
  });
  await t.step("refuses a pending line once it passes the cap, then skips its rest", () => {
    const splitter = new LineSplitter();
    splitter.push(exact);
    const result = splitter.push(bytes("bc"));
    assert.ok(!result.ok && result.error.kind === "line_too_long");
    assert.equal(splitter.pendingBytes, 0);
    assert.deepStrictEqual(splitter.push(bytes("more of it")), { ok: true, value: [] });
    const after = splitter.push(bytes("tail\nafter\n"));
    assert.ok(after.ok);
    assert.deepStrictEqual(after.value.map((line) => line.length), [5]);
    assert.deepStrictEqual(splitter.end(), { ok: true, value: [] });
  });
});

Deno.test("LineSplitter yields the same lines however the same bytes are split, and never throws", () => {
  const piece = fc.oneof(
    fc.uint8Array({ maxLength: 8 }),
    anyString.map(bytes),
    fc.constantFrom(bytes("\n"), bytes("\r\n"), bytes("\r"), new Uint8Array([0xe2, 0x82])),
  );
  const input = fc.array(piece, { maxLength: 8 }).chain((pieces) => {
    const data = concat(...pieces);
    return fc.tuple(fc.constant(data), fc.array(fc.nat(data.length), { maxLength: 6 }));
  });
  fc.assert(
    fc.property(input, ([data, cuts]) => {
      const whole = feed([data]);
      const split = feed(splitAt(data, cuts));
      assert.deepStrictEqual(split.lines, whole.lines);
      for (const line of whole.lines) assert.ok(line.length > 0);
    }),
    { numRuns: RUNS },
  );
});

Deno.test("LineSplitter's lines, decoded, are LineDecoder's lines for any UTF-8 stream", () => {
  const input = fc.array(fc.oneof(anyString, fc.constantFrom("\n", "\r\n")), { maxLength: 10 })
    .chain((pieces) => {
      const data = bytes(pieces.join(""));
      return fc.tuple(fc.constant(data), fc.array(fc.nat(data.length), { maxLength: 6 }));
    });
  fc.assert(
    fc.property(input, ([data, cuts]) => {
      const chunks = splitAt(data, cuts);
      const decoder = new LineDecoder();
      const expected: string[] = [];
      for (const chunk of chunks) {
        const pushed = decoder.push(chunk);
        if (pushed.ok) expected.push(...pushed.value);
      }
      const ended = decoder.end();
      if (ended.ok) expected.push(...ended.value);
      const got = feed(chunks).lines.map((line) => new TextDecoder().decode(new Uint8Array(line)));
      assert.deepStrictEqual(got, expected);
    }),
    { numRuns: RUNS },
  );
});

Deno.test("LineSplitter yields the same long lines however they are chunked", () => {
  // Lines of up to 200 KiB, past the size where a pending line grows in place.
  const line = fc.tuple(fc.nat(200 * 1024), fc.integer({ min: 0x20, max: 0x7e }), fc.boolean())
    .map(([size, fill, crlf]) =>
      concat(new Uint8Array(size).fill(fill), bytes(crlf ? "\r\n" : "\n"))
    );
  const input = fc.array(line, { minLength: 1, maxLength: 4 }).chain((lines) => {
    const data = concat(...lines);
    return fc.tuple(fc.constant(data), fc.array(fc.nat(data.length), { maxLength: 8 }));
  });
  fc.assert(
    fc.property(input, ([data, cuts]) => {
      const whole = feed([data]);
      const split = feed(splitAt(data, cuts));
      assert.deepStrictEqual(split.lines, whole.lines);
    }),
    { numRuns: 30 },
  );
});

Deno.test("LineSplitter finds every newline of long chunks, whatever bytes surround them", () => {
  fc.assert(
    fc.property(longChunks, ([data, cuts]) => {
      const expected = plainLines(data).map((line) => [...line]);
      assert.deepStrictEqual(feed(splitAt(data, cuts)).lines, expected);
    }),
    { numRuns: RUNS },
  );
});
