// The command line's answer to a server's elicitation, in-process: a form
// asked field by field through the terminal seam (`Keys`, scripted here),
// a URL to visit, Ctrl-C and the end of input, and the decline without a
// terminal.

import assert from "node:assert/strict";
import type { JsonObject } from "../../codec/json.ts";
import type { ElicitationRequest } from "../../client/handlers.ts";
import {
  ELICIT_MESSAGE_CHARS,
  ELICIT_TRIES,
  elicitationWithoutTerminal,
  terminalElicitation,
  type TerminalElicitOptions,
} from "../../cli/_elicit.ts";
import { Output } from "../../cli/_output.ts";
import { type CommandName, COMMANDS, commandUsage, USAGE } from "../../cli/_help.ts";
import type { Keys, TypedLine } from "../../cli/_terminal.ts";

/** An Output whose stderr is collected (not a terminal: no colour, no wrapping). */
function collected(): { output: Output; shown: () => string } {
  let text = "";
  const decoder = new TextDecoder();
  const stream = {
    writeSync(bytes: Uint8Array): number {
      text += decoder.decode(bytes);
      return bytes.length;
    },
    isTerminal: () => false,
  };
  return { output: new Output({ streams: { stdout: stream, stderr: stream } }), shown: () => text };
}

/** Keys that type `lines` in turn ("^C" is Ctrl-C, "^D" the end of input), then end. */
function typed(lines: readonly string[]): Keys & { left: () => number } {
  const queue = [...lines];
  return {
    readLine(): Promise<TypedLine> {
      const line = queue.shift();
      if (line === undefined || line === "^D") return Promise.resolve({ kind: "end" });
      if (line === "^C") return Promise.resolve({ kind: "interrupt" });
      return Promise.resolve({ kind: "line", text: line });
    },
    left: () => queue.length,
  };
}

function form(properties: JsonObject, required: string[] = []): ElicitationRequest {
  return {
    server: "asker",
    mode: "form",
    message: "Tell me",
    requestedSchema: { type: "object", properties, required },
  };
}

async function answer(
  request: ElicitationRequest,
  lines: readonly string[],
  extra: Partial<TerminalElicitOptions> = {},
) {
  const { output, shown } = collected();
  const keys = typed(lines);
  const handler = terminalElicitation({ output, keys, ...extra });
  const result = await handler(request);
  return { result, shown: shown(), left: keys.left() };
}

Deno.test("a text field takes what is typed, and Enter takes its default", async () => {
  const request = form({
    name: { type: "string", title: "Your name", description: "How to greet you" },
    city: { type: "string", default: "Lyon" },
  }, ["name"]);
  const { result, shown } = await answer(request, ["", "Ada", ""]);
  assert.deepEqual(result, { action: "accept", content: { name: "Ada", city: "Lyon" } });
  assert.match(shown, /Field 1 of 2: "name" "Your name", required\n {4}"How to greet you"\n/);
  assert.match(shown, / {2}"city" \["Lyon"\]: /);
});

Deno.test("an optional field left empty without a default is left out", async () => {
  const { result } = await answer(form({ note: { type: "string" } }), ["y", ""]);
  assert.deepEqual(result, { action: "accept", content: {} });
});

Deno.test("a required field left empty is said and asked again", async () => {
  const { result, shown } = await answer(form({ name: { type: "string" } }, ["name"]), [
    "",
    "",
    "Ada",
  ]);
  assert.deepEqual(result, { action: "accept", content: { name: "Ada" } });
  assert.match(shown, /it is required: type a value; try again \(4 tries left\)/);
});

Deno.test("a text field's length bounds and email format are checked before it is sent", async () => {
  const request = form({
    code: { type: "string", minLength: 3, maxLength: 4 },
    mail: { type: "string", format: "email" },
  }, ["code", "mail"]);
  const { result, shown } = await answer(request, ["", "ab", "abcde", "abc", "nope", "a@b.io"]);
  assert.deepEqual(result, { action: "accept", content: { code: "abc", mail: "a@b.io" } });
  assert.match(shown, /text from 3 to 4 characters/);
  assert.match(shown, /it has 2 characters, fewer than 3/);
  assert.match(shown, /it has 5 characters, more than 4/);
  assert.match(shown, /"nope" is not an email address/);
});

Deno.test("a date field takes a calendar date and refuses one that is not", async () => {
  const request = form({ day: { type: "string", format: "date" } }, ["day"]);
  const { result, shown } = await answer(request, ["", "2026-02-30", "2026-02-28"]);
  assert.deepEqual(result, { action: "accept", content: { day: "2026-02-28" } });
  assert.match(shown, /"2026-02-30" is not a date \(YYYY-MM-DD\)/);
});

Deno.test("numbers and integers are parsed and held to their bounds", async () => {
  const request = form({
    ratio: { type: "number", minimum: 0, maximum: 1 },
    count: { type: "integer", minimum: 1 },
  }, ["ratio", "count"]);
  const { result, shown } = await answer(request, ["", "2", "x", "0.5", "1.5", "0", "3"]);
  assert.deepEqual(result, { action: "accept", content: { ratio: 0.5, count: 3 } });
  assert.match(shown, /a number from 0 to 1/);
  assert.match(shown, /a whole number of at least 1/);
  assert.match(shown, /2 is above 1/);
  assert.match(shown, /"x" is not a number/);
  assert.match(shown, /"1\.5" is not a whole number/);
  assert.match(shown, /0 is below 1/);
});

Deno.test("a boolean takes y or n, and Enter its default", async () => {
  const request = form({
    sure: { type: "boolean" },
    again: { type: "boolean", default: true },
  }, ["sure"]);
  const { result, shown } = await answer(request, ["", "maybe", "n", ""]);
  assert.deepEqual(result, { action: "accept", content: { sure: false, again: true } });
  assert.match(shown, /type y or n, not "maybe"/);
  assert.match(shown, /"again" \[Y\/n\]: /);
});

Deno.test("an enum is numbered choices, taken by number or by value, titles shown", async () => {
  const request = form({
    color: { type: "string", enum: ["red", "green"] },
    size: {
      type: "string",
      oneOf: [{ const: "s", title: "Small" }, { const: "l", title: "Large" }],
      default: "s",
    },
  }, ["color"]);
  const { result, shown } = await answer(request, ["", "3", "green", "2"]);
  assert.deepEqual(result, { action: "accept", content: { color: "green", size: "l" } });
  assert.match(shown, / {6}1\) "red"\n {6}2\) "green"\n/);
  assert.match(shown, / {6}1\) "Small" \("s"\)\n {6}2\) "Large" \("l"\)\n/);
  assert.match(shown, /"3" is none of the 2 choices/);
});

Deno.test("a multi-select array takes numbers or values and holds to its item counts", async () => {
  const request = form({
    tags: {
      type: "array",
      items: { type: "string", enum: ["a", "b", "c"] },
      minItems: 1,
      maxItems: 2,
    },
  }, ["tags"]);
  const { result, shown } = await answer(request, ["", "1,2,3", "1, c"]);
  assert.deepEqual(result, { action: "accept", content: { tags: ["a", "c"] } });
  assert.match(shown, /any of these, by number or value, separated by commas, from 1 to 2 of them/);
  assert.match(shown, /pick at most 2/);
});

Deno.test("answers that never fit cancel the elicitation after the tries it has", async () => {
  const lines = ["", ...Array.from({ length: ELICIT_TRIES }, () => "x")];
  const { result, shown } = await answer(form({ n: { type: "number" } }, ["n"]), lines);
  assert.deepEqual(result, { action: "cancel" });
  assert.match(shown, /cancelled after 5 answers that did not fit; server "asker" hears/);
});

Deno.test("n at the start declines the form", async () => {
  const { result, left } = await answer(form({ n: { type: "number" } }), ["n", "never read"]);
  assert.deepEqual(result, { action: "decline" });
  assert.equal(left, 1);
});

Deno.test("Ctrl-C in the middle of a form cancels it", async () => {
  const request = form({ a: { type: "string" }, b: { type: "string" } });
  const { result, shown } = await answer(request, ["", "first", "^C"]);
  assert.deepEqual(result, { action: "cancel" });
  assert.match(shown, /cancelled \(Ctrl-C\): server "asker" hears that its question was cancelled/);
});

Deno.test("the end of input cancels the question open, and declines every later one", async () => {
  const { output, shown } = collected();
  const handler = terminalElicitation({ output, keys: typed(["^D"]) });
  assert.deepEqual(await handler(form({ a: { type: "string" } })), { action: "cancel" });
  assert.deepEqual(await handler(form({ a: { type: "string" } })), { action: "decline" });
  assert.match(shown(), /cancelled: the terminal's input ended/);
  assert.match(shown(), /declined: the terminal's input ended; run the command again/);
});

Deno.test("a server's message, titles and choices are quoted, escaped and cut", async () => {
  const request: ElicitationRequest = {
    server: "evil\u001b[2J",
    mode: "form",
    message: "\u001b]0;owned\u0007" + "x".repeat(ELICIT_MESSAGE_CHARS + 50),
    requestedSchema: {
      type: "object",
      properties: { "f\nake": { type: "string", title: "t\u202e", enum: ["\r\nforged"] } },
    },
  };
  const { shown } = await answer(request, ["", "^C"]);
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(shown, /\u001b|\u0007|\u202e|\r/);
  assert.match(shown, /^Server "evil\\u001b\[2J" asks you \(elicitation\):$/m);
  assert.match(shown, /^ {2}"\\u001b\]0;owned\\u0007x+…"$/m);
  assert.match(shown, /"t\\u\{202e\}"/);
  assert.match(shown, /"\\r\\nforged"/);
  // The message is cut at its bound: 10 characters before the x's.
  assert.equal(shown.match(/x+…/)?.[0].length, ELICIT_MESSAGE_CHARS - 10 + 1);
});

Deno.test("a URL to visit is shown quoted with its host, and d says it was visited", async () => {
  const request: ElicitationRequest = {
    server: "asker",
    mode: "url",
    message: "Sign in",
    url: "https://auth.example.com/start?x=1",
    elicitationId: "e1",
    tool: "connect",
  };
  const { result, shown } = await answer(request, ["o", "d"]);
  assert.deepEqual(result, { action: "accept" });
  assert.match(
    shown,
    /^Server "asker" asks you to visit a URL \(elicitation, during its tool "connect"\):$/m,
  );
  assert.match(shown, /^ {2}URL: "https:\/\/auth\.example\.com\/start\?x=1"$/m);
  assert.match(shown, /its host: "auth\.example\.com"/);
  // Without $BROWSER nothing offers to open it, and "o" is no answer.
  assert.doesNotMatch(shown, /\$BROWSER/);
  assert.match(shown, /type d or n, not "o"/);
});

Deno.test("with $BROWSER set, o opens the URL with it as one argument", async () => {
  const request: ElicitationRequest = {
    server: "asker",
    mode: "url",
    message: "Sign in",
    url: "https://auth.example.com/a b",
    elicitationId: "e1",
  };
  const opened: string[] = [];
  const { result, shown } = await answer(request, ["o", "n"], {
    browser: "firefox",
    open: (url) => opened.push(url),
  });
  assert.deepEqual(result, { action: "decline" });
  assert.deepEqual(opened, ["https://auth.example.com/a b"]);
  assert.match(shown, /\[o\] open it with \$BROWSER \("firefox"\)/);
  assert.match(shown, /opened with "firefox"; say d once you are done/);
});

Deno.test("elicitations of two servers are asked one at a time on the terminal", async () => {
  const { output, shown } = collected();
  const handler = terminalElicitation({ output, keys: typed(["", "one", "", "two"]) });
  const first = handler({ ...form({ a: { type: "string" } }, ["a"]), server: "s1" });
  const second = handler({ ...form({ a: { type: "string" } }, ["a"]), server: "s2" });
  assert.deepEqual(await Promise.all([first, second]), [
    { action: "accept", content: { a: "one" } },
    { action: "accept", content: { a: "two" } },
  ]);
  const text = shown();
  assert.ok(text.indexOf('answered server "s1"') < text.indexOf('Server "s2" asks'), text);
});

Deno.test("without a terminal an elicitation is declined at once, said once per server", async () => {
  const { output, shown } = collected();
  const handler = elicitationWithoutTerminal(output, "standard input is not a terminal");
  const request = { ...form({ a: { type: "string" } }), tool: "ask" };
  assert.deepEqual(await handler(request), { action: "decline" });
  assert.deepEqual(await handler(request), { action: "decline" });
  assert.deepEqual(
    shown().split("\n").filter((line) => line !== ""),
    [
      'warning: server "asker" asked a question (elicitation during "ask": "Tell me") and it ' +
      "was declined, as every later question from it will be: standard input is not a terminal; run " +
      "the command on a terminal to answer it",
    ],
  );
});

Deno.test("the help and each command's help say how elicitation is answered, and why no sampling", () => {
  for (
    const text of [
      USAGE,
      ...Object.keys(COMMANDS).map((name) => commandUsage(name as CommandName)),
    ]
  ) {
    assert.match(text, /Questions from servers \(elicitation\):/);
    assert.match(text, /Without a terminal it is declined at once/);
    assert.match(text, /No sampling is declared \(the command line has no model\)/);
  }
});

Deno.test("a question the server withdraws stops being asked, and one withdrawn first is not asked", async () => {
  const { output, shown } = collected();
  const withdrawn = new AbortController();
  const reading = Promise.withResolvers<void>();
  const keys: Keys = {
    readLine(signal) {
      reading.resolve();
      // Nobody types: the question waits until the server withdraws it.
      return new Promise((resolve) =>
        signal?.addEventListener("abort", () => resolve({ kind: "withdrawn" }))
      );
    },
  };
  const handler = terminalElicitation({ output, keys });
  const asked = handler(form({ a: { type: "string" } }), { signal: withdrawn.signal });
  await reading.promise;
  withdrawn.abort();
  assert.deepEqual(await asked, { action: "cancel" });
  assert.match(shown(), /withdrawn: server "asker" no longer waits for this answer/);
  const before = shown().length;
  assert.deepEqual(
    await handler(form({ a: { type: "string" } }), { signal: AbortSignal.abort() }),
    { action: "cancel" },
  );
  const later = shown().slice(before);
  assert.match(later, /withdrew a question \(elicitation\) before it was asked/);
  assert.doesNotMatch(later, /Tell me/);
});

Deno.test("a URL question ends as visited once the server says the visit is complete", async (t) => {
  const request: ElicitationRequest = {
    server: "asker",
    mode: "url",
    message: "Sign in",
    url: "https://auth.example.com/start",
    elicitationId: "e1",
  };
  // Nobody types: the question waits until it is withdrawn.
  const waiting = (reading: PromiseWithResolvers<void>): Keys => ({
    readLine(signal) {
      reading.resolve();
      return new Promise((resolve) =>
        signal?.addEventListener("abort", () => resolve({ kind: "withdrawn" }))
      );
    },
  });
  await t.step("the completion ends it, as accepted", async () => {
    const { output, shown } = collected();
    const reading = Promise.withResolvers<void>();
    const completed = Promise.withResolvers<void>();
    const handler = terminalElicitation({ output, keys: waiting(reading) });
    const asked = handler(request, {
      signal: new AbortController().signal,
      completed: completed.promise,
    });
    await reading.promise;
    completed.resolve();
    assert.deepEqual(await asked, { action: "accept" });
    assert.match(shown(), /server "asker" says the visit is complete/);
  });
  await t.step("the server withdrawing it still cancels it", async () => {
    const { output, shown } = collected();
    const reading = Promise.withResolvers<void>();
    const withdrawn = new AbortController();
    const handler = terminalElicitation({ output, keys: waiting(reading) });
    const asked = handler(request, { signal: withdrawn.signal, completed: new Promise(() => {}) });
    await reading.promise;
    withdrawn.abort();
    assert.deepEqual(await asked, { action: "cancel" });
    assert.doesNotMatch(shown(), /visit is complete/);
  });
});
