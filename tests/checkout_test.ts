// The library loads from a checkout without the project's deno.json: every
// runtime dependency is pinned in the source. This test copies the package's
// folders (no deno.json, no lock file, no import map) and imports mod.ts and
// the command line from the copy, with config discovery off.

import assert from "node:assert/strict";
import { isLive } from "./_proc.ts";

const ROOT = new URL("../", import.meta.url);
// What is published is what a checkout holds: deno.json's publish list, but
// deno.json itself and the files no code imports.
const PUBLISHED = JSON.parse(
  await Deno.readTextFile(new URL("deno.json", ROOT)),
) as { publish: { include: string[] } };
const PACKAGE = PUBLISHED.publish.include
  .map((name) => name.replace(/\/$/, ""))
  .filter((name) => !["deno.json", "README.md", "LICENSE"].includes(name));
const ECHO = new URL("fixtures/echo_server.ts", import.meta.url).pathname;

async function copy(from: URL, to: string): Promise<void> {
  const info = await Deno.stat(from);
  if (!info.isDirectory) return await Deno.copyFile(from, to);
  await Deno.mkdir(to);
  for await (const entry of Deno.readDir(from)) {
    await copy(
      new URL(`${entry.name}${entry.isDirectory ? "/" : ""}`, from),
      `${to}/${entry.name}`,
    );
  }
}

async function run(
  cwd: string,
  args: string[],
): Promise<{ code: number; out: string; err: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--no-config", "--no-lock", ...args],
    cwd,
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    out: decoder.decode(output.stdout),
    err: decoder.decode(output.stderr),
  };
}

Deno.test("mod.ts and the command line load from a checkout that has no deno.json", async () => {
  const dir = await Deno.makeTempDir({ prefix: "loom-checkout-" });
  try {
    const checkout = `${dir}/loom`;
    await Deno.mkdir(checkout);
    for (const name of PACKAGE) {
      await copy(new URL(`${name}${name.endsWith(".ts") ? "" : "/"}`, ROOT), `${checkout}/${name}`);
    }
    const catalog = [
      "[mcp.echo]",
      `command = ${JSON.stringify(Deno.execPath())}`,
      `args = ["run", "--quiet", "--no-lock", ${JSON.stringify(ECHO)}]`,
      `inherit_env = ["DENO_DIR"]`,
      "",
    ].join("\n");
    await Deno.writeTextFile(`${dir}/loom.toml`, catalog);
    await Deno.writeTextFile(
      `${dir}/harness.ts`,
      `import { boot, openCatalog } from "./loom/mod.ts";

const catalog = await openCatalog("loom.toml", { mode: "strict" });
if (!catalog.ok) throw new Error(catalog.error.message);
const harness = await boot(catalog.value.servers);
try {
  const result = await harness.call("echo", "echo", { text: "from a checkout" });
  console.log(JSON.stringify({ text: result.ok ? result.value.content[0] : result.error.message }));
} finally {
  const retired = await harness.retire();
  const pids = [...retired.clients.values()].map((o) => o.ok && o.value.kind === "exited" ? o.value.pid : 0);
  console.log(JSON.stringify({ confirmed: retired.confirmed, pids }));
}
`,
    );
    const [harness, cli] = await Promise.all([
      run(dir, ["harness.ts"]),
      run(dir, ["loom/cli/main.ts", "check", "loom.toml"]),
    ]);
    assert.equal(harness.code, 0, harness.err);
    const [called, retired] = harness.out.trimEnd().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(called, { text: { type: "text", text: "from a checkout" } });
    assert.equal(retired.confirmed, true);
    assert.ok(retired.pids.length === 1 && retired.pids.every((pid: number) => !isLive(pid)));
    assert.equal(cli.code, 0, cli.err);
    assert.match(cli.out, /^ {2}echo +ready /m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
