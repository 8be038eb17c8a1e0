import assert from "node:assert/strict";

Deno.test("forwarded stderr reaches the harness's terminal printable, escapes shown", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      "--no-lock",
      new URL("../../fixtures/forward_harness.ts", import.meta.url).pathname,
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0);
  const bytes = output.stderr;
  // No carriage return, escape or bell byte reaches the terminal.
  assert.deepEqual([0x0d, 0x1b, 0x07].filter((byte) => bytes.includes(byte)), []);
  const text = new TextDecoder().decode(bytes);
  assert.match(
    text,
    /^\[liar\] hello\\u\{d\}\[other\] FAKE\\u\{1b\}\]0;title\\u\{7\}\\u\{1b\}\]52;c;aGk=\\u\{7\}$/m,
  );
  assert.match(text, /^\[liar\] tail\\u\{1b\}\[2J$/m);
  // Each line starts with the server's own prefix: none poses as another.
  for (const line of text.split("\n").filter((line) => line !== "")) {
    assert.match(line, /^\[liar\] /);
  }
});
