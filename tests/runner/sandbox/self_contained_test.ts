import assert from "node:assert/strict";

const SANDBOX = new URL("../../../runner/sandbox/", import.meta.url);

// The sandbox has only its build root: a module reaching outside this folder
// would not exist there.
Deno.test("every module under runner/sandbox/ imports only its neighbours", async (t) => {
  for (const file of await sandboxFiles()) {
    await t.step(file.slice(SANDBOX.href.length), async () => {
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["info", "--json", "--no-config", "--no-remote", file],
        stdin: "null",
        stderr: "piped",
      }).output();
      assert.ok(output.success, new TextDecoder().decode(output.stderr));
      const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
        modules: { specifier: string }[];
      };
      const outside = info.modules.map((module) => module.specifier)
        .filter((specifier) => !specifier.startsWith(SANDBOX.href));
      assert.deepEqual(outside, []);
    });
  }
});

async function sandboxFiles(): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(SANDBOX)) {
    if (entry.isFile && entry.name.endsWith(".ts")) files.push(new URL(entry.name, SANDBOX).href);
  }
  return files.sort();
}
