import assert from "node:assert/strict";
import fc from "fast-check";
import { mangle, moduleSegment, RESERVED_NAMES, sha256Hex } from "../../codegen/mod.ts";

const fixed = (_s: string) => "0123456789abcdef";

Deno.test("mangle() keeps an unaltered camelCase name as it is", () => {
  for (const name of ["echo", "createIssue", "readFile2", "a"]) {
    assert.equal(mangle(name, fixed), name);
  }
});

Deno.test("mangle() suffixes the digest whenever it alters or refuses a name", async (t) => {
  const table: [string, string][] = [
    ["create_issue", "createIssue_01234567"],
    ["create-issue", "createIssue_01234567"],
    ["CreateIssue", "createIssue_01234567"],
    ["then", "then_01234567"],
    ["__proto__", "proto_01234567"],
    ["constructor", "constructor_01234567"],
    ["default", "default_01234567"],
    ["import", "import_01234567"],
    ["eval", "eval_01234567"],
    ["invoke", "invoke_01234567"],
    ["3d-render", "tool3dRender_01234567"],
    ["😀", "tool_01234567"],
    ["", "tool_01234567"],
    ["a".repeat(33), "a".repeat(32) + "_01234567"],
  ];
  for (const [name, expected] of table) {
    await t.step(JSON.stringify(name), () => assert.equal(mangle(name, fixed), expected));
  }
});

Deno.test("mangle() keeps createIssue and create_issue apart with SHA-256", () => {
  assert.notEqual(mangle("createIssue", sha256Hex), mangle("create_issue", sha256Hex));
  assert.equal(
    mangle("create_issue", sha256Hex),
    `createIssue_${sha256Hex("create_issue").slice(0, 8)}`,
  );
});

Deno.test("mangle() always returns a valid identifier that is not reserved", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary", maxLength: 80 }), (name) => {
      const identifier = mangle(name, sha256Hex);
      assert.match(identifier, /^[A-Za-z_][A-Za-z0-9_]{0,40}$/);
      assert.ok(!RESERVED_NAMES.has(identifier));
      if (identifier !== name) assert.ok(identifier.includes("_"));
    }),
  );
});

Deno.test("mangle() refuses a digest that is not lowercase hex", () => {
  assert.throws(() => mangle("a_b", () => "XYZ"), TypeError);
  assert.throws(() => mangle("a_b", () => "`${x}`00000000"), TypeError);
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
