import assert from "node:assert/strict";
import fc from "fast-check";
import {
  closestNames,
  identifierFor,
  mangle,
  MAX_SUGGESTIONS,
  moduleSegment,
  nameTools,
  RESERVED_NAMES,
  sha256Hex,
} from "../../codegen/mod.ts";

const fixed = (_s: string) => "0123456789abcdef";

Deno.test("identifierFor() keeps a valid, unreserved name exactly as it is", () => {
  for (
    const name of ["echo", "createIssue", "read_file", "readFile2", "a", "_x", "A".repeat(300)]
  ) {
    assert.equal(identifierFor(name), name);
  }
});

Deno.test("identifierFor() changes any other name in one obvious way", async (t) => {
  const table: [string, string][] = [
    ["get-sum", "get_sum"],
    ["create.issue", "create_issue"],
    ["a b/c", "a_b_c"],
    ["caf\u00e9", "caf_"],
    ["\u{1f600}", "_"],
    ["$x", "_x"],
    ["3d-render", "_3d_render"],
    ["then", "_then"],
    ["__proto__", "___proto__"],
    ["constructor", "_constructor"],
    ["default", "_default"],
    ["import", "_import"],
    ["eval", "_eval"],
    ["invoke", "_invoke"],
    ["Promise", "_Promise"],
  ];
  for (const [name, expected] of table) {
    await t.step(JSON.stringify(name), () => assert.equal(identifierFor(name), expected));
  }
});

Deno.test("identifierFor() always returns a valid identifier that is not reserved", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary", minLength: 1, maxLength: 80 }), (name) => {
      const identifier = identifierFor(name);
      assert.match(identifier, /^[A-Za-z_][A-Za-z0-9_]*$/);
      assert.ok(!RESERVED_NAMES.has(identifier));
    }),
  );
});

Deno.test("mangle() suffixes the identifier with eight hex of the digest", () => {
  assert.equal(mangle("get-sum", fixed), "get_sum_01234567");
  assert.equal(mangle("then", fixed), "_then_01234567");
  assert.equal(mangle("get-sum", sha256Hex), `get_sum_${sha256Hex("get-sum").slice(0, 8)}`);
});

Deno.test("mangle() refuses a digest that is not lowercase hex", () => {
  assert.throws(() => mangle("a_b", () => "XYZ"), TypeError);
  assert.throws(() => mangle("a_b", () => "`${x}`00000000"), TypeError);
});

Deno.test("nameTools() adds no digest where no two tools compete", () => {
  const named = nameTools(["read_file", "get-sum", "then", "echo"], fixed);
  assert.ok(named.ok);
  assert.deepEqual(Object.fromEntries(named.value), {
    read_file: "read_file",
    "get-sum": "get_sum",
    then: "_then",
    echo: "echo",
  });
});

Deno.test("nameTools() suffixes only the changed names that would share an identifier", () => {
  const named = nameTools(["get-sum", "get_sum", "get.sum"], sha256Hex);
  assert.ok(named.ok);
  assert.equal(named.value.get("get_sum"), "get_sum");
  assert.equal(named.value.get("get-sum"), `get_sum_${sha256Hex("get-sum").slice(0, 8)}`);
  assert.equal(named.value.get("get.sum"), `get_sum_${sha256Hex("get.sum").slice(0, 8)}`);
});

Deno.test("nameTools() names the same listing the same way in any order", () => {
  const names = ["a-b", "a_b", "a.b", "x", "then", "_then", "3d", "_3d"];
  const named = nameTools(names, sha256Hex);
  const reversed = nameTools(names.toReversed(), sha256Hex);
  assert.ok(named.ok && reversed.ok);
  assert.deepEqual(new Map([...named.value].sort()), new Map([...reversed.value].sort()));
});

Deno.test("nameTools() refuses a residual collision, naming both tools", async (t) => {
  await t.step("byte-identical names", () => {
    const named = nameTools(["search", "search"], fixed);
    assert.deepEqual(named, {
      ok: false,
      error: { identifier: "search", first: "search", second: "search" },
    });
  });
  await t.step("a wire name equal to another tool's suffixed identifier", () => {
    const taken = `a_b_${sha256Hex("a-b").slice(0, 8)}`;
    const named = nameTools(["a-b", "a.b", taken], sha256Hex);
    assert.deepEqual(named, {
      ok: false,
      error: { identifier: taken, first: "a-b", second: taken },
    });
  });
});

Deno.test("sha256Hex() is SHA-256 over UTF-8", () => {
  assert.equal(
    sha256Hex("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});

Deno.test("moduleSegment() accepts exactly the documented names", async (t) => {
  const good = ["github", "a", "my-server_2", "x".repeat(64)];
  const bad = [
    "",
    "GitHub",
    "2fa",
    "-x",
    "a.b",
    "a/b",
    "ü",
    "x".repeat(65),
    "con",
    "nul",
    "com1",
    "a b",
  ];
  for (const name of good) {
    await t.step(
      `accepts ${JSON.stringify(name)}`,
      () => assert.deepEqual(moduleSegment(name), { ok: true, value: name }),
    );
  }
  for (const name of bad) {
    await t.step(`refuses ${JSON.stringify(name)}`, () => {
      const result = moduleSegment(name);
      assert.ok(!result.ok);
      assert.equal(result.error.kind, "invalid_server_name");
      assert.match(result.error.message, /^Cannot use ".*" as a server name: /);
    });
  }
});

Deno.test("closestNames() suggests what a guess meant, best first", async (t) => {
  const exports = ["get_sum", "get_env", "get_tiny_image", "echo", "read_file", "read_text_file"];
  const table: [string, string[]][] = [
    ["getSum", ["get_sum"]],
    ["GetEnv", ["get_env"]],
    ["readFile", ["read_file"]],
    ["ecko", ["echo"]],
    ["get_summ", ["get_sum"]],
    ["launch_rockets", []],
    // Far by letters, near by words: the most words shared first.
    ["echoText", ["echo", "read_text_file"]],
    ["read_text", ["read_text_file", "read_file"]],
  ];
  for (const [guess, expected] of table) {
    await t.step(guess, () => assert.deepEqual(closestNames(guess, exports), expected));
  }
});

Deno.test("closestNames() returns at most MAX_SUGGESTIONS and never the name itself", () => {
  const names = ["ab", "ac", "ad", "ae", "af"];
  assert.equal(closestNames("aa", names).length, MAX_SUGGESTIONS);
  assert.deepEqual(closestNames("ab", ["ab"]), []);
});
