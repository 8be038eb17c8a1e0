// A server-written field is one line of output, whatever it holds: a tool
// name or description with CR LF cannot forge a line of its own in `tools`.

import assert from "node:assert/strict";

const CLI = new URL("../../cli/main.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
const FIXTURE = new URL("../fixtures/forging_names.ts", import.meta.url).pathname;

Deno.test("tools prints one line per server-written field, CR LF inside it escaped", async () => {
  const dir = await Deno.makeTempDir({ prefix: "loom-cli-forged-" });
  try {
    await Deno.writeTextFile(
      `${dir}/loom.toml`,
      [
        "[mcp.forger]",
        `command = ${JSON.stringify(Deno.execPath())}`,
        `args = ["run", "--quiet", "--no-lock", ${JSON.stringify(FIXTURE)}]`,
        `inherit_env = ["DENO_DIR"]`,
        "",
      ].join("\n"),
    );
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", "--no-lock", "--config", CONFIG, CLI, "--trust", "tools"],
      cwd: dir,
      stdin: "null",
      env: { NO_COLOR: "1" },
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    assert.doesNotMatch(stdout, /\r/);
    const lines = stdout.split("\n");
    // No line starts with the text a server put after a line break.
    for (const forged of ["forged_tool", "forged_desc", "back", "forged: true"]) {
      assert.ok(
        !lines.some((line) => line.trimStart().startsWith(forged)),
        `a line starts with ${forged}:\n${stdout}`,
      );
    }
    assert.ok(
      lines.includes(
        "  real\\u{d}\\u{a}forged_tool  (forged_tool)  (function real__forged_tool___forged_tool_)",
      ),
      stdout,
    );
    assert.ok(lines.some((line) => line.startsWith("  tab\\u{9}here  (")), stdout);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
