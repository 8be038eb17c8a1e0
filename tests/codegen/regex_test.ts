import assert from "node:assert/strict";
import fc from "fast-check";
import { MAX_PATTERN_CHARS, patternCost } from "../../codegen/_regex.ts";

Deno.test("patternCost() bounds the patterns real servers write, most of them linear", async (t) => {
  const table: [string, number][] = [
    ["^[a-zA-Z0-9]+$", 1],
    ["^[a-z0-9][a-z0-9_-]*$", 1],
    ["^https?:\\/\\/", 1],
    ["^\\d+[hdw]$", 1],
    ["^[a-zA-Z0-9_.-]+\\.(png|svg|gif)$", 1],
    ["^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$", 1],
    [
      "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$",
      1,
    ],
    ["^\\d+\\.\\d+$", 1],
    ["^(a|b)+$", 1],
    ["a+b", 2],
    ["\\s+$", 2],
    [".*.*=", 3],
  ];
  for (const [pattern, degree] of table) {
    await t.step(
      pattern,
      () => assert.deepEqual(patternCost(pattern), { kind: "bounded", degree }),
    );
  }
});

Deno.test("patternCost() calls unsafe every pattern that can take exponential time", async (t) => {
  const table: [string, RegExp][] = [
    ["(a+)+$", /repeats or branches/],
    ["(a|a)*$", /repeats or branches/],
    ["(a|aa)+$", /repeats or branches/],
    ["^(\\w+\\s?)*$", /repeats or branches/],
    ["(x+x+)+y", /repeats or branches/],
    ["(.*a){20}", /repeats or branches/],
    ["([a-z]+)*", /repeats or branches/],
    ["(a*)*b", /can match nothing/],
    ["(a?){30}a{30}", /can match nothing/],
    ["(a)\\1", /backreference/],
    ["(?<n>a)\\k<n>", /backreference/],
    ["(", /not a valid regular expression/],
    ["a".repeat(MAX_PATTERN_CHARS + 1), /longer than/],
    ["(".repeat(65) + ")".repeat(65), /nests groups deeper/],
  ];
  for (const [pattern, reason] of table) {
    await t.step(pattern.slice(0, 30), () => {
      const cost = patternCost(pattern);
      assert.equal(cost.kind, "unsafe");
      if (cost.kind === "unsafe") assert.match(cost.reason, reason);
    });
  }
});

Deno.test("patternCost() is total over arbitrary text", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary", maxLength: 40 }), (pattern) => {
      const cost = patternCost(pattern);
      if (cost.kind === "bounded") assert.ok(cost.degree >= 1);
    }),
    { numRuns: 2_000 },
  );
});
