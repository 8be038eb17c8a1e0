import assert from "node:assert/strict";
import fc from "fast-check";
import {
  decodeInbound,
  encodeError,
  encodeNotification,
  encodeRequest,
  encodeResult,
  frame,
  frameRequest,
  frameText,
  type FramingFault,
  type Inbound,
  type JsonValue,
  LineDecoder,
  MAX_LINE_BYTES,
} from "../../codec/mod.ts";
import {
  anyString,
  bare,
  bytes,
  concat,
  id,
  jsonValue,
  longChunks,
  params,
  plainLines,
  RUNS,
  splitAt,
} from "./_helpers.ts";

const NEWLINE = 0x0a;

/** What a run of pushes yields: every line in order, and the fault kinds met. */
type Outcome = { lines: string[]; faults: FramingFault["kind"][] };

function feed(
  decoder: LineDecoder,
  chunks: Uint8Array[],
  options: { end?: boolean } = {},
): Outcome {
  const out: Outcome = { lines: [], faults: [] };
  const take = (result: ReturnType<LineDecoder["push"]>) => {
    if (result.ok) {
      out.lines.push(...result.value);
    } else {
      out.faults.push(result.error.kind);
      out.lines.push(...result.error.lines);
    }
  };
  for (const chunk of chunks) take(decoder.push(chunk));
  if (options.end ?? true) take(decoder.end());
  return out;
}

// A line of `size` ASCII bytes, no newline.
function filler(size: number): Uint8Array {
  return new Uint8Array(size).fill(0x61);
}

function pair(message: JsonValue, expected: Inbound): [JsonValue, Inbound] {
  return [message, expected];
}

Deno.test("LineDecoder splits lines as a table of byte streams says", async (t) => {
  const cases: [string, string[], Outcome][] = [
    ["one line", ['{"a":1}\n'], { lines: ['{"a":1}'], faults: [] }],
    ["two lines in one chunk", ["a\nb\n"], { lines: ["a", "b"], faults: [] }],
    ["a line across chunks", ["ab", "c", "d\n"], { lines: ["abcd"], faults: [] }],
    ["empty lines skipped", ["\n\n\na\n\n"], { lines: ["a"], faults: [] }],
    ["CRLF", ["a\r\nb\r\n"], { lines: ["a", "b"], faults: [] }],
    ["CR and LF in different chunks", ["a\r", "\nb\r", "\n"], { lines: ["a", "b"], faults: [] }],
    ["a line of only CR skipped", ["\r\n\r\na\n"], { lines: ["a"], faults: [] }],
    ["only one trailing CR dropped", ["a\r\r\n"], { lines: ["a\r"], faults: [] }],
    ["a CR inside a line kept", ["a\rb\n"], { lines: ["a\rb"], faults: [] }],
    ["a final line without newline", ["a\nb"], { lines: ["a", "b"], faults: [] }],
    ["a final line of CR only", ["a\n\r"], { lines: ["a"], faults: [] }],
    ["a final line with CR", ["a\r"], { lines: ["a"], faults: [] }],
    ["a leading BOM dropped by the UTF-8 decoder", ["\ufeff{}\n"], { lines: ["{}"], faults: [] }],
    ["a BOM inside a line kept", ["a\ufeff\n"], { lines: ["a\ufeff"], faults: [] }],
    ["U+2028 kept inside a line", ["a\u2028b\n"], { lines: ["a\u2028b"], faults: [] }],
    ["a NUL byte kept", ["a\u0000b\n"], { lines: ["a\u0000b"], faults: [] }],
    ["nothing at all", [], { lines: [], faults: [] }],
    ["empty chunks", ["", "a", "", "\n", ""], { lines: ["a"], faults: [] }],
  ];
  for (const [name, chunks, expected] of cases) {
    await t.step(name, () => {
      assert.deepStrictEqual(feed(new LineDecoder(), chunks.map(bytes)), expected);
    });
  }
});

Deno.test("LineDecoder refuses bytes that are not UTF-8 and decodes the next line", async (t) => {
  const bad: [string, number[]][] = [
    ["a lone continuation byte", [0x80]],
    ["0xFF", [0xff]],
    ["an overlong NUL", [0xc0, 0x80]],
    ["an overlong slash", [0xe0, 0x80, 0xaf]],
    ["an encoded lone surrogate", [0xed, 0xa0, 0x80]],
    ["a code point past U+10FFFF", [0xf4, 0x90, 0x80, 0x80]],
    ["a truncated 3-byte character at the end of the line", [0x61, 0xe2, 0x82]],
    ["a truncated 4-byte character", [0xf0, 0x9f, 0x98]],
  ];
  for (const [name, raw] of bad) {
    await t.step(`${name}, then a good line in the same chunk`, () => {
      const decoder = new LineDecoder();
      const result = decoder.push(concat(bytes("ok1\n"), new Uint8Array(raw), bytes("\nok2\n")));
      assert.ok(!result.ok && result.error.kind === "not_utf8");
      assert.equal(result.error.bytes, raw.length);
      assert.deepStrictEqual(result.error.lines, ["ok1", "ok2"]);
    });
    await t.step(`${name}, then a good line in a later chunk`, () => {
      const decoder = new LineDecoder();
      const first = decoder.push(concat(new Uint8Array(raw), bytes("\n")));
      assert.ok(!first.ok && first.error.kind === "not_utf8");
      assert.deepStrictEqual(decoder.push(bytes("ok\n")), { ok: true, value: ["ok"] });
    });
  }
  await t.step("a final line without newline that is not UTF-8", () => {
    const decoder = new LineDecoder();
    assert.deepStrictEqual(decoder.push(new Uint8Array([0x61, 0xe2])), { ok: true, value: [] });
    const end = decoder.end();
    assert.ok(!end.ok && end.error.kind === "not_utf8");
    assert.equal(decoder.pendingBytes, 0);
  });
});

Deno.test("LineDecoder decodes a character split at every byte boundary", async (t) => {
  for (const character of ["é", "€", "😀", "\u{10FFFF}", "\u07FF", "\uFFFD"]) {
    const line = `{"s":"${character}${character}"}`;
    const data = bytes(`${line}\n`);
    await t.step(`${character} (${bytes(character).length} bytes), every two-way split`, () => {
      for (let cut = 0; cut <= data.length; cut++) {
        assert.deepStrictEqual(feed(new LineDecoder(), splitAt(data, [cut])), {
          lines: [line],
          faults: [],
        });
      }
    });
    await t.step(`${character}, every three-way split`, () => {
      for (let a = 0; a <= data.length; a++) {
        for (let b = a; b <= data.length; b++) {
          assert.deepStrictEqual(feed(new LineDecoder(), splitAt(data, [a, b])), {
            lines: [line],
            faults: [],
          });
        }
      }
    });
    await t.step(`${character}, one byte per chunk, with no final newline`, () => {
      const chunks = [...bytes(line)].map((byte) => new Uint8Array([byte]));
      assert.deepStrictEqual(feed(new LineDecoder(), chunks), { lines: [line], faults: [] });
    });
  }
});

Deno.test("LineDecoder copies what it keeps, so the caller may reuse its buffer", () => {
  const decoder = new LineDecoder();
  const buffer = bytes("abc");
  assert.deepStrictEqual(decoder.push(buffer), { ok: true, value: [] });
  assert.equal(decoder.pendingBytes, 3);
  buffer.fill(0x78);
  assert.deepStrictEqual(decoder.push(bytes("\n")), { ok: true, value: ["abc"] });
  assert.equal(decoder.pendingBytes, 0);
});

Deno.test("LineDecoder.end() flushes, and the decoder can be reused", () => {
  const decoder = new LineDecoder();
  assert.deepStrictEqual(decoder.end(), { ok: true, value: [] });
  decoder.push(bytes("tail"));
  assert.deepStrictEqual(decoder.end(), { ok: true, value: ["tail"] });
  assert.deepStrictEqual(decoder.end(), { ok: true, value: [] });
  assert.deepStrictEqual(decoder.push(bytes("next\n")), { ok: true, value: ["next"] });
});

Deno.test("LineDecoder enforces MAX_LINE_BYTES", async (t) => {
  assert.equal(MAX_LINE_BYTES, 16 * 1024 * 1024);
  const exact = filler(MAX_LINE_BYTES);
  const over = filler(MAX_LINE_BYTES + 1);
  const newline = new Uint8Array([NEWLINE]);

  await t.step("accepts a line of exactly MAX_LINE_BYTES in one chunk", () => {
    const result = new LineDecoder().push(concat(exact, newline));
    assert.ok(result.ok);
    assert.equal(result.value[0]?.length, MAX_LINE_BYTES);
  });
  await t.step("accepts a line of exactly MAX_LINE_BYTES ending in CRLF, in pieces", () => {
    const decoder = new LineDecoder();
    assert.deepStrictEqual(decoder.push(exact), { ok: true, value: [] });
    assert.deepStrictEqual(decoder.push(bytes("\r")), { ok: true, value: [] });
    const result = decoder.push(newline);
    assert.ok(result.ok);
    assert.equal(result.value[0]?.length, MAX_LINE_BYTES);
  });
  await t.step("accepts a final line of exactly MAX_LINE_BYTES through end()", () => {
    const decoder = new LineDecoder();
    decoder.push(exact);
    const result = decoder.end();
    assert.ok(result.ok);
    assert.equal(result.value[0]?.length, MAX_LINE_BYTES);
  });
  await t.step("refuses a line of one byte more; the next line in the same chunk decodes", () => {
    const result = new LineDecoder().push(concat(bytes("before\n"), over, bytes("\nafter\n")));
    assert.ok(!result.ok && result.error.kind === "line_too_long");
    assert.equal(result.error.limit, MAX_LINE_BYTES);
    assert.equal(result.error.bytes, MAX_LINE_BYTES + 1);
    assert.deepStrictEqual(result.error.lines, ["before", "after"]);
  });
  await t.step("refuses a line of one byte more; the next line in a later chunk decodes", () => {
    const decoder = new LineDecoder();
    const result = decoder.push(concat(over, newline));
    assert.ok(!result.ok && result.error.kind === "line_too_long");
    assert.deepStrictEqual(decoder.push(bytes("after\n")), { ok: true, value: ["after"] });
  });
  await t.step("refuses a pending line as soon as it passes the cap, then skips its rest", () => {
    const decoder = new LineDecoder();
    assert.deepStrictEqual(decoder.push(exact), { ok: true, value: [] });
    const result = decoder.push(bytes("bc"));
    assert.ok(!result.ok && result.error.kind === "line_too_long");
    assert.equal(decoder.pendingBytes, 0);
    assert.deepStrictEqual(decoder.push(bytes("more bytes of the same line")), {
      ok: true,
      value: [],
    });
    assert.equal(decoder.pendingBytes, 0);
    assert.deepStrictEqual(decoder.push(bytes("tail\nafter\n")), { ok: true, value: ["after"] });
  });
  await t.step("an over-long final line without newline ends quietly after its fault", () => {
    const decoder = new LineDecoder();
    const result = decoder.push(concat(over, bytes("x")));
    assert.ok(!result.ok && result.error.kind === "line_too_long");
    assert.deepStrictEqual(decoder.end(), { ok: true, value: [] });
    assert.deepStrictEqual(decoder.push(bytes("again\n")), { ok: true, value: ["again"] });
  });
});

Deno.test("LineDecoder.push() never throws on arbitrary bytes, arbitrarily chunked", () => {
  const stream = fc.array(
    fc.oneof(
      fc.uint8Array({ maxLength: 12 }),
      fc.constantFrom(
        bytes("\n"),
        bytes("\r\n"),
        bytes("😀"),
        new Uint8Array([0xf0, 0x9f]),
        new Uint8Array([0xff]),
      ),
    ),
    { maxLength: 8 },
  );
  fc.assert(
    fc.property(stream, (chunks) => {
      const outcome = feed(new LineDecoder(), chunks);
      for (const line of outcome.lines) assert.ok(line.length > 0);
    }),
    { numRuns: RUNS },
  );
});

Deno.test("LineDecoder yields the same lines however the same bytes are split", () => {
  const piece = fc.oneof(
    fc.uint8Array({ maxLength: 8 }),
    anyString.map(bytes),
    fc.constantFrom(
      bytes("\n"),
      bytes("\r\n"),
      bytes("\r"),
      new Uint8Array([0xe2, 0x82]),
      new Uint8Array([0xac]),
    ),
  );
  const input = fc.array(piece, { maxLength: 8 }).chain((pieces) => {
    const data = concat(...pieces);
    return fc.tuple(fc.constant(data), fc.array(fc.nat(data.length), { maxLength: 6 }));
  });
  fc.assert(
    fc.property(input, ([data, cuts]) => {
      const whole = feed(new LineDecoder(), [data]);
      const split = feed(new LineDecoder(), splitAt(data, cuts));
      assert.deepStrictEqual(split.lines, whole.lines);
      // One push reports its first fault only, so compare whether any fault was met.
      assert.equal(split.faults.length > 0, whole.faults.length > 0);
    }),
    { numRuns: RUNS },
  );
});

Deno.test("LineDecoder refuses a character cut short by a long ASCII chunk", () => {
  // The first read ends inside "€" (e2 82 ac); the next is long ASCII text.
  const cut = concat(bytes("start "), new Uint8Array([0xe2, 0x82]));
  const rest = concat(new Uint8Array(8192).fill(0x61), bytes("\nnext\n"));
  const got = feed(new LineDecoder(), [cut, rest]);
  assert.deepEqual(got.faults, ["not_utf8"]);
  assert.deepEqual(got.lines, ["next"]);
  // The same with the line held across a long chunk that has no newline.
  const long = new Uint8Array(8192).fill(0x61);
  const held = feed(new LineDecoder(), [cut, long, rest]);
  assert.deepEqual(held.faults, ["not_utf8"]);
  assert.deepEqual(held.lines, ["next"]);
  // Completed, the same character decodes, and the long text is kept whole.
  const whole = feed(new LineDecoder(), [concat(cut, new Uint8Array([0xac])), rest]);
  assert.deepEqual(whole.lines, [`start €${"a".repeat(8192)}`, "next"]);
  // A line that starts in a long ASCII chunk and ends in a short one.
  const spans = feed(new LineDecoder(), [new Uint8Array(5000).fill(0x62), bytes("é\n")]);
  assert.deepEqual(spans.lines, [`${"b".repeat(5000)}é`]);
});

Deno.test("LineDecoder decodes the lines of long chunks as a plain split of their bytes would", () => {
  const strict = new TextDecoder("utf-8", { fatal: true });
  fc.assert(
    fc.property(longChunks, ([data, cuts]) => {
      const expected: string[] = [];
      let bad = 0;
      for (const line of plainLines(data)) {
        try {
          expected.push(strict.decode(line));
        } catch {
          bad++;
        }
      }
      const got = feed(new LineDecoder(), splitAt(data, cuts));
      assert.deepStrictEqual(got.lines, expected);
      assert.equal(got.faults.length > 0, bad > 0);
    }),
    { numRuns: RUNS / 10 },
  );
});

Deno.test("frame() then LineDecoder then decodeInbound() is the identity on valid messages", () => {
  const rpcError = fc.record({ code: fc.integer(), message: anyString, data: jsonValue }, {
    requiredKeys: ["code", "message"],
  });
  const message: fc.Arbitrary<[JsonValue, Inbound]> = fc.oneof(
    fc.tuple(id, anyString, fc.option(params, { nil: undefined })).map(([i, method, p]) =>
      pair(
        p === undefined ? encodeRequest(i, method) : { jsonrpc: "2.0", id: i, method, params: p },
        p === undefined
          ? { kind: "request", id: i, method }
          : { kind: "request", id: i, method, params: bare(p) as JsonValue[] },
      )
    ),
    fc.tuple(anyString, fc.option(params, { nil: undefined })).map(([method, p]) =>
      pair(
        p === undefined ? encodeNotification(method) : { jsonrpc: "2.0", method, params: p },
        p === undefined
          ? { kind: "notification", method }
          : { kind: "notification", method, params: bare(p) as JsonValue[] },
      )
    ),
    fc.tuple(id, jsonValue).map(([i, result]) =>
      pair(
        encodeResult(i, result),
        { kind: "response", id: i, outcome: { ok: true, value: bare(result) } },
      )
    ),
    fc.tuple(id, rpcError).map(([i, error]) =>
      pair(
        encodeError(i, error),
        {
          kind: "response",
          id: i,
          outcome: {
            ok: false,
            error: error.data === undefined
              ? { code: error.code, message: error.message }
              : { code: error.code, message: error.message, data: bare(error.data) },
          },
        },
      )
    ),
  );
  fc.assert(
    fc.property(
      fc.array(message, { minLength: 1, maxLength: 4 }),
      fc.array(fc.nat(), { maxLength: 4 }),
      (messages, cuts) => {
        const wire = concat(...messages.map(([value]) => frame(value)));
        const outcome = feed(
          new LineDecoder(),
          splitAt(wire, cuts.map((cut) => cut % (wire.length + 1))),
          { end: false },
        );
        assert.deepStrictEqual(outcome.faults, []);
        assert.equal(outcome.lines.length, messages.length);
        outcome.lines.forEach((line, index) => {
          assert.ok(!line.includes("\n"));
          const decoded = decodeInbound(line);
          assert.ok(decoded.ok, line);
          assert.deepStrictEqual(decoded.value, messages[index]?.[1]);
        });
      },
    ),
    { numRuns: RUNS },
  );
});

Deno.test("frame() refuses what JSON cannot say with a RangeError", async (t) => {
  for (const value of [NaN, [Infinity], { a: () => 1 }]) {
    await t.step(String(value), () => {
      assert.throws(() => frame(value as JsonValue), RangeError);
    });
  }
  await t.step("renders one line with a single trailing newline", () => {
    const out = frame({ s: "a\nb\u2028", n: 2n ** 64n });
    assert.equal(new TextDecoder().decode(out), '{"s":"a\\nb\u2028","n":18446744073709551616}\n');
  });
});

Deno.test("frameRequest() around rendered parameters is the line frameText() renders", async (t) => {
  const cases: [number, string, JsonValue][] = [
    [0, "tools/list", {}],
    [7, "tools/call", { name: 'é\u2028"x', arguments: { big: 12345678901234567890n } }],
    [2 ** 40, "a\nb", { nested: [1, "two", null] }],
  ];
  for (const [id, method, params] of cases) {
    await t.step(`${id} ${JSON.stringify(method)}`, () => {
      const [head, tail] = frameRequest(id, method);
      const rendered = frameText(params).slice(0, -1);
      assert.equal(head + rendered + tail, frameText({ jsonrpc: "2.0", id, method, params }));
    });
  }
  assert.throws(() => frameRequest(0.5, "ping"), RangeError);
  fc.assert(
    fc.property(fc.maxSafeInteger(), fc.string(), (id, method) => {
      const [head, tail] = frameRequest(id, method);
      assert.equal(head + "{}" + tail, frameText({ jsonrpc: "2.0", id, method, params: {} }));
    }),
    { numRuns: 2_000 },
  );
});

Deno.test("frame() is frameText() as UTF-8 bytes", () => {
  const message = { jsonrpc: "2.0", method: "notifications/initialized", params: { s: "é😀" } };
  assert.equal(new TextDecoder().decode(frame(message)), frameText(message));
});
