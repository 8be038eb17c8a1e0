import assert from "node:assert/strict";

const HARNESS = new URL("../fixtures/permissions_harness.ts", import.meta.url).pathname;

Deno.test("workers run least-privilege with --unstable-worker-options and inherit without", async (t) => {
  const cases = [
    { flags: ["--unstable-worker-options"], permissions: "least" },
    { flags: [], permissions: "inherit" },
  ];
  for (const c of cases) {
    await t.step(c.permissions, async () => {
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--quiet", "--no-lock", ...c.flags, HARNESS],
        stdin: "null",
      }).output();
      const stderr = new TextDecoder().decode(output.stderr);
      assert.equal(output.code, 0, stderr);
      assert.deepEqual(JSON.parse(new TextDecoder().decode(output.stdout)), {
        permissions: c.permissions,
        started: true,
        call: [{ type: "text", text: "hi" }],
        confirmed: true,
      });
    });
  }
});
