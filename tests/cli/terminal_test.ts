// The terminal seam's production side, in-process: standard input's one
// pump (a question's keys are its own; otherwise the background reader's,
// or dropped) and a line read in raw mode and edited here.

import assert from "node:assert/strict";
import { MAX_TYPED_CHARS, RawKeys, StdinPump } from "../../cli/_terminal.ts";

/** A standard input whose chunks are given by the test, then its end. */
function input(): {
  read: (buffer: Uint8Array) => Promise<number | null>;
  type: (text: string | null) => void;
} {
  const waiting: ((chunk: Uint8Array | null) => void)[] = [];
  const queued: (Uint8Array | null)[] = [];
  return {
    read: (buffer) =>
      new Promise<Uint8Array | null>((resolve) => {
        const next = queued.shift();
        if (next !== undefined) resolve(next);
        else waiting.push(resolve);
      }).then((chunk) => {
        if (chunk === null) return null;
        buffer.set(chunk);
        return chunk.length;
      }),
    type: (text) => {
      const chunk = text === null ? null : new TextEncoder().encode(text);
      const waiter = waiting.shift();
      if (waiter !== undefined) waiter(chunk);
      else queued.push(chunk);
    },
  };
}

function keys() {
  const stdin = input();
  const pump = new StdinPump(stdin.read);
  const modes: boolean[] = [];
  let echoed = "";
  const raw = new RawKeys({
    pump,
    setRaw: (mode) => modes.push(mode),
    echo: (text) => echoed += text,
  });
  return { stdin, pump, raw, modes, echoed: () => echoed };
}

Deno.test("a line is read in raw mode, echoed, and raw mode is left at its end", async () => {
  const { stdin, raw, modes, echoed } = keys();
  const line = raw.readLine();
  stdin.type("Ada\r");
  assert.deepEqual(await line, { kind: "line", text: "Ada" });
  assert.deepEqual(modes, [true, false]);
  assert.equal(echoed(), "Ada\r\n");
  stdin.type(null);
});

Deno.test("Backspace and Ctrl-U erase, and an arrow key's escape sequence is ignored", async () => {
  const { stdin, raw } = keys();
  const line = raw.readLine();
  stdin.type("abx\u007f\u001b[Dc");
  stdin.type("zz\u0015d\n");
  assert.deepEqual(await line, { kind: "line", text: "d" });
  stdin.type(null);
});

Deno.test("Ctrl-C is an interrupt of the line, not a signal", async () => {
  const { stdin, raw, modes } = keys();
  const line = raw.readLine();
  stdin.type("half\u0003");
  assert.deepEqual(await line, { kind: "interrupt" });
  assert.deepEqual(modes, [true, false]);
  stdin.type(null);
});

Deno.test("Ctrl-D ends the input only on an empty line", async () => {
  const { stdin, raw } = keys();
  const first = raw.readLine();
  stdin.type("a\u0004\n");
  assert.deepEqual(await first, { kind: "line", text: "a" });
  const second = raw.readLine();
  stdin.type("\u0004");
  assert.deepEqual(await second, { kind: "end" });
  stdin.type(null);
});

Deno.test("the end of standard input ends a line read", async () => {
  const { stdin, raw } = keys();
  const line = raw.readLine();
  stdin.type(null);
  assert.deepEqual(await line, { kind: "end" });
});

Deno.test("answers pasted together are kept for the lines after", async () => {
  const { stdin, raw } = keys();
  const first = raw.readLine();
  stdin.type("one\r\ntwo\n");
  assert.deepEqual(await first, { kind: "line", text: "one" });
  assert.deepEqual(await raw.readLine(), { kind: "line", text: "two" });
  stdin.type(null);
});

Deno.test("a typed line keeps at most MAX_TYPED_CHARS characters", async () => {
  const { stdin, raw } = keys();
  const line = raw.readLine();
  // In chunks a read of standard input can hold.
  for (let sent = 0; sent < MAX_TYPED_CHARS + 10; sent += 1000) stdin.type("x".repeat(1000));
  stdin.type("\n");
  const typed = await line;
  assert.equal(typed.kind === "line" ? typed.text.length : 0, MAX_TYPED_CHARS);
  stdin.type(null);
});

Deno.test("keys typed while no question reads go to the background reader, and not after", async () => {
  const { stdin, pump, raw } = keys();
  const buffer = new Uint8Array(1024);
  const background = pump.read(buffer);
  stdin.type("y\n");
  assert.equal(await background, 2);
  assert.equal(new TextDecoder().decode(buffer.subarray(0, 2)), "y\n");
  // While a question reads, its keys are its own: the background read waits.
  const again = pump.read(buffer);
  const line = raw.readLine();
  stdin.type("mine\n");
  assert.deepEqual(await line, { kind: "line", text: "mine" });
  stdin.type("n\n");
  assert.equal(await again, 2);
  stdin.type(null);
});

Deno.test("a line whose question is withdrawn ends at once, its keys dropped, raw mode left", async () => {
  const { stdin, raw, modes } = keys();
  const withdrawn = new AbortController();
  const line = raw.readLine(withdrawn.signal);
  stdin.type("hal");
  await new Promise((resolve) => setTimeout(resolve, 0));
  withdrawn.abort();
  assert.deepEqual(await line, { kind: "withdrawn" });
  assert.deepEqual(modes, [true, false]);
  // The next question reads afresh: nothing typed for the withdrawn one is kept.
  const next = raw.readLine();
  stdin.type("Ada\n");
  assert.deepEqual(await next, { kind: "line", text: "Ada" });
  assert.deepEqual(await raw.readLine(AbortSignal.abort()), { kind: "withdrawn" });
  stdin.type(null);
});
