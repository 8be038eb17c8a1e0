import assert from "node:assert/strict";
import fc from "fast-check";
import { MAX_PATTERN_CHARS, MAX_PATTERN_WAYS, patternCost } from "../../codegen/_regex.ts";

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

Deno.test("patternCost() calls unsafe a repeated group one text can fill in more than one way", async (t) => {
  // Each is exponential: `^(\\w\\d?)+$` takes seconds on 40 digits and a "!".
  const table: [string, RegExp][] = [
    ["^(\\w\\d?)+$", /repeats or branches/],
    ["(\\w\\d?)*", /repeats or branches/],
    ["(\\d\\w?)+", /repeats or branches/],
    ["(\\w+\\d?)+", /repeats or branches/],
    ["([a-z]\\w?)+", /repeats or branches/],
    ["(x\\w?)+", /repeats or branches/],
    ["(a|ab)+", /repeats or branches/],
    ["^(c(b|b))+$", /repeats or branches/],
    ["^((ab)+)+$", /repeats or branches/],
    ["^(é[^é]*)+$", /repeats or branches/],
    ["((?=a))+", /can match nothing/],
    ["(\\uD83D\\uDE00?)+", /can match nothing/],
    ["(?i:a)+", /kind of group/],
  ];
  for (const [pattern, reason] of table) {
    await t.step(pattern, () => {
      const cost = patternCost(pattern);
      assert.equal(cost.kind, "unsafe");
      if (cost.kind === "unsafe") assert.match(cost.reason, reason);
    });
  }
});

Deno.test("patternCost() bounds a repeated group whose repetitions start where the text says", async (t) => {
  const table: [string, number][] = [
    ["^(x\\d?)+$", 1],
    ["(x\\d?)+", 2],
    ["^(a?b)+$", 1],
    ["^(ab?)+$", 1],
    ["^(?:a|bc)+$", 1],
    ['^"(?:\\\\.|[^"\\\\])*"$', 1],
    ["^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$", 1],
    ["^[a-z0-9]+(?:-[a-z0-9]+)*$", 3],
    ["^\\d{1,3}(,\\d{3})*$", 1],
  ];
  for (const [pattern, degree] of table) {
    await t.step(
      pattern,
      () => assert.deepEqual(patternCost(pattern), { kind: "bounded", degree }),
    );
  }
});

Deno.test("patternCost() calls unsafe a pattern whose choices multiply past MAX_PATTERN_WAYS", () => {
  const choices = (n: number) => `^${"(a|a)".repeat(n)}$`;
  assert.equal(2 ** 4, MAX_PATTERN_WAYS);
  assert.deepEqual(patternCost(choices(4)), { kind: "bounded", degree: 1 });
  assert.deepEqual(patternCost(choices(5)), {
    kind: "unsafe",
    reason: `it can match one text in more than ${MAX_PATTERN_WAYS} ways`,
  });
});

Deno.test("patternCost() counts each optional character past MAX_PATTERN_WAYS as one more degree", () => {
  // `a?` 30 times then `a` 30 times: 29 places where two `a?` meet, the
  // first 4 of which make 2^4 ways, the other 25 one more degree each.
  const pattern = `^${"a?".repeat(30)}${"a".repeat(30)}$`;
  assert.deepEqual(patternCost(pattern), { kind: "bounded", degree: 25 });
});

Deno.test("patternCost() never takes a character past ASCII for a delimiter the loops before it miss", () => {
  // Six loops that can all take "é": "é" between them cuts nothing.
  assert.deepEqual(patternCost("é*é*é*éé*é*é*x"), { kind: "bounded", degree: 7 });
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
