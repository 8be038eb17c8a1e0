// How the command line's Output keeps a question's line apart from what is
// said while it waits.

import assert from "node:assert/strict";
import { Output } from "../../cli/_output.ts";

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

Deno.test("a line said while a question waits starts a line of its own, once", () => {
  const { output, shown } = collected();
  output.prompt("Answer? ");
  output.error("the call ran out of time");
  output.detail("retired");
  assert.equal(shown(), "Answer? \nerror: the call ran out of time\nretired\n");
});

Deno.test("a line said after the question was answered follows it as it is", () => {
  const { output, shown } = collected();
  output.prompt("Answer? ");
  output.answered();
  output.detail("next");
  assert.equal(shown(), "Answer? next\n");
});
