import assert from "node:assert/strict";
import {
  type EraCodec,
  eraCodec,
  eraNamed,
  LEGACY_ERA,
  MODERN_ERA,
} from "../../../client/thread/era.ts";
import { Connection } from "../../../client/worker/_connection.ts";
import { ChannelTransport } from "../../../client/transport/channel_transport.ts";
import { ManualClock } from "../../../client/transport/clock.ts";
import { ok } from "../../../codec/result.ts";
import { settle } from "../worker/_peer.ts";

Deno.test("eraCodec() gives one object per era, and the legacy era before a server said which", () => {
  assert.equal(eraCodec("legacy"), LEGACY_ERA);
  assert.equal(eraCodec("modern"), MODERN_ERA);
  assert.equal(eraCodec(undefined), LEGACY_ERA);
  assert.equal(eraNamed(MODERN_ERA.name), MODERN_ERA);
  assert.equal(eraNamed("future"), undefined);
});

/** A connection over an in-process peer, begun in `era`; the lines the client wrote. */
async function begun(era: EraCodec, serverLines: string[]) {
  const transport = new ChannelTransport({ stdinClosed: (peer) => peer.exit(0) }, { pid: 3 });
  const connection = new Connection(transport, {
    name: "peer",
    clock: new ManualClock(),
    ended: () => {},
  });
  assert.ok((await connection.open()).ok);
  connection.begin(era, "2025-11-25", { name: "me", version: "1" }, {});
  for (const line of serverLines) transport.peer.send(line + "\n");
  await settle();
  const written = transport.peer.written.map((line) => JSON.parse(line));
  assert.ok((await connection.retire(1_000)).ok);
  return written;
}

const ROOTS = '{"jsonrpc":"2.0","id":"a","method":"roots/list"}';
const SAMPLE = '{"jsonrpc":"2.0","id":"b","method":"sampling/createMessage","params":{}}';

Deno.test("a server's request is answered by its era's handler, and one it serves none of is refused", async () => {
  const era: EraCodec = {
    ...LEGACY_ERA,
    serverRequests: new Map([["roots/list", () => Promise.resolve(ok({ roots: [] }))]]),
  };
  const written = await begun(era, [ROOTS, SAMPLE]);
  assert.deepEqual(written[0], { jsonrpc: "2.0", method: "notifications/initialized" });
  const answers = written.filter((message) => "id" in message);
  assert.deepEqual(answers.find((m) => m.id === "a"), {
    jsonrpc: "2.0",
    id: "a",
    result: { roots: [] },
  });
  assert.equal(answers.find((m) => m.id === "b")?.error?.code, -32601);
});

Deno.test("a modern session leaves a server's request it serves none of unanswered", async () => {
  const written = await begun(MODERN_ERA, [SAMPLE]);
  assert.deepEqual(written.filter((message) => "id" in message), []);
});
