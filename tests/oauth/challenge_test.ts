import assert from "node:assert/strict";
import { challengeParams, parseChallenges, scopeList } from "../../oauth/_challenge.ts";

Deno.test("parseChallenges() reads schemes, quoted and bare parameters, and token68s", async (t) => {
  const table: Array<[string, ReturnType<typeof parseChallenges>]> = [
    ["Bearer", [{ scheme: "bearer", params: {} }]],
    [
      'Bearer realm="mcp", error="invalid_token"',
      [{ scheme: "bearer", params: { realm: "mcp", error: "invalid_token" } }],
    ],
    [
      'Bearer scope="a b", resource_metadata="https://x.example/.well-known/oauth-protected-resource/mcp"',
      [{
        scheme: "bearer",
        params: {
          scope: "a b",
          resource_metadata: "https://x.example/.well-known/oauth-protected-resource/mcp",
        },
      }],
    ],
    ['Bearer error_description="say \\"no\\", twice"', [{
      scheme: "bearer",
      params: { error_description: 'say "no", twice' },
    }]],
    ["Basic dXNlcjpwYXNz==, Bearer realm=x", [
      { scheme: "basic", params: {} },
      { scheme: "bearer", params: { realm: "x" } },
    ]],
    ['DPoP algs="ES256", error="use_dpop_nonce", Bearer realm="r"', [
      { scheme: "dpop", params: { algs: "ES256", error: "use_dpop_nonce" } },
      { scheme: "bearer", params: { realm: "r" } },
    ]],
    ['BEARER Scope="X"', [{ scheme: "bearer", params: { scope: "X" } }]],
    ['Bearer realm="unterminated', [{ scheme: "bearer", params: {} }]],
    ["", []],
  ];
  for (const [header, expected] of table) {
    await t.step(header === "" ? "(empty)" : header, () => {
      assert.deepEqual(parseChallenges(header), expected);
    });
  }
});

Deno.test("challengeParams() takes what MCP acts on from the Bearer and DPoP challenges only", () => {
  const params = challengeParams(
    'Basic realm="x", Bearer scope="mcp:read", DPoP error="use_dpop_nonce", ' +
      'Bearer resource_metadata="https://r.example/m"',
  );
  assert.deepEqual(params, {
    schemes: ["bearer", "dpop", "bearer"],
    scope: "mcp:read",
    error: "use_dpop_nonce",
    errorScheme: "dpop",
    resourceMetadata: "https://r.example/m",
  });
  assert.deepEqual(challengeParams(null), { schemes: [] });
});

Deno.test("scopeList() splits on whitespace and drops repeats and empty entries", () => {
  assert.deepEqual(scopeList("  a b\tb  c "), ["a", "b", "c"]);
  assert.deepEqual(scopeList(undefined), []);
});
