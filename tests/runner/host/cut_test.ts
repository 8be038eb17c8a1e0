import assert from "node:assert/strict";
import fc from "fast-check";
import { cutToBudget, jsonBytes, measureJson } from "../../../runner/host/_cut.ts";
import { CUT_KEY } from "../../../runner/host/limits.ts";

Deno.test("cutToBudget() keeps a value that fits whole and says so", () => {
  const value = { a: [1, "two", null, true], b: { c: 2n ** 70n } };
  assert.deepEqual(cutToBudget(value, 1_000), { value, cut: false });
});

Deno.test("cutToBudget() always gives valid JSON within the budget, for any value", () => {
  fc.assert(
    fc.property(
      fc.jsonValue({ maxDepth: 6 }),
      fc.integer({ min: 200, max: 4_000 }),
      (value, budget) => {
        const { value: shown, cut } = cutToBudget(value, budget);
        const text = JSON.stringify(shown);
        assert.doesNotThrow(() => JSON.parse(text));
        assert.ok(jsonBytes(shown) <= budget, `${jsonBytes(shown)} > ${budget}`);
        if (!cut) assert.equal(text, JSON.stringify(value));
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("cutToBudget() cuts each shape with its marker", async (t) => {
  await t.step("a long string keeps its head and says how many bytes were cut", () => {
    const { value } = cutToBudget("é".repeat(10_000), 200);
    assert.match(String(value), /^é+… \[\d+ more bytes\]$/);
    const [, cutBytes] = /\[(\d+) more bytes\]/.exec(String(value)) ?? [];
    const head = String(value).split("…")[0] ?? "";
    assert.equal(Number(cutBytes) + new TextEncoder().encode(head).length, 20_000);
  });
  await t.step("a long array ends with a marker item counting the rest", () => {
    const { value } = cutToBudget(Array.from({ length: 1_000 }, (_, i) => i), 100);
    const items = value as unknown[];
    const last = items[items.length - 1] as Record<string, string>;
    assert.equal(last[CUT_KEY], `${1_000 - (items.length - 1)} more items`);
  });
  await t.step("an object with too many keys ends with a $cut key", () => {
    const many = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i]));
    const { value } = cutToBudget(many, 120);
    assert.match((value as Record<string, string>)[CUT_KEY] ?? "", /^\d+ more keys$/);
  });
  await t.step("a value nested too deep is summarized", () => {
    let deep: unknown = { leaf: "x".repeat(50) };
    for (let level = 0; level < 40; level++) deep = { down: deep, pad: "p".repeat(30) };
    const { value } = cutToBudget(deep, 300);
    assert.match(JSON.stringify(value), /"\$cut":"an object of \d keys?"/);
  });
  await t.step("a key named __proto__ stays a key", () => {
    const value = JSON.parse('{"__proto__":{"a":1},"b":"' + "x".repeat(500) + '"}');
    const { value: shown } = cutToBudget(value, 200);
    assert.ok(Object.hasOwn(shown as object, "__proto__"));
  });
});

Deno.test("measureJson() counts exactly up to its cap, and stops there", () => {
  const value = { a: "é", b: [1, 2n ** 64n, null] };
  assert.equal(measureJson(value, 1_000), jsonBytes(value));
  assert.equal(measureJson("x".repeat(10_000), 100), 101);
});
