// A round trip between the main thread and a worker, one short text each
// way, through `postMessage` and through two rings of shared memory
// (`client/thread/ring.ts`), alternating; prints medians of wall time and of this
// process's CPU per round trip.
//
//   deno run -A bench/ring_bench.ts [round trips] [rounds]

import process from "node:process";
import { ringMemory, RingReader, RingWriter } from "../client/thread/ring.ts";
import { median } from "./_mcp_clients.ts";

const trips = Number(Deno.args[0] ?? 20_000);
const rounds = Number(Deno.args[1] ?? 5);
const REQUEST = '7|60000|tools/call|{"name":"echo","arguments":{"text":"hello"}}';

function cpu(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

const ring = new URL("../client/thread/ring.ts", import.meta.url).href;
const source = `
  import { RingReader, RingWriter } from ${JSON.stringify(ring)};
  self.onmessage = (event) => {
    if (typeof event.data === "string") {
      self.postMessage(event.data);
      return;
    }
    const back = new RingWriter(event.data.back);
    const reader = new RingReader(event.data.there, (text) => back.write(text), () => {});
    reader.listen();
  };`;
const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })), {
  type: "module",
});
const there = ringMemory();
const back = ringMemory();
const writer = new RingWriter(there);
let wake: () => void = () => {};
const reader = new RingReader(back, () => wake(), () => {});
reader.listen();
worker.postMessage({ there, back });

async function viaPost(): Promise<[number, number]> {
  const started = performance.now();
  const spent = cpu();
  let left = trips;
  await new Promise<void>((resolve) => {
    worker.onmessage = () => {
      if (--left === 0) resolve();
      else worker.postMessage(REQUEST);
    };
    worker.postMessage(REQUEST);
  });
  return [(performance.now() - started) * 1000 / trips, (cpu() - spent) / trips];
}

async function viaRing(): Promise<[number, number]> {
  const started = performance.now();
  const spent = cpu();
  for (let trip = 0; trip < trips; trip++) {
    await new Promise<void>((resolve) => {
      wake = resolve;
      writer.write(REQUEST);
    });
  }
  return [(performance.now() - started) * 1000 / trips, (cpu() - spent) / trips];
}

const post: [number[], number[]] = [[], []];
const rings: [number[], number[]] = [[], []];
await viaPost();
await viaRing();
for (let round = 0; round < rounds; round++) {
  for (
    const [run, into] of round % 2 === 0
      ? [[viaPost, post], [viaRing, rings]] as const
      : [[viaRing, rings], [viaPost, post]] as const
  ) {
    const [wall, spent] = await run();
    into[0].push(wall);
    into[1].push(spent);
  }
}
console.log(
  `round trip, µs (wall / CPU of both threads): postMessage ${median(post[0]).toFixed(1)} / ` +
    `${median(post[1]).toFixed(1)}, rings ${median(rings[0]).toFixed(1)} / ${
      median(rings[1]).toFixed(1)
    } (${trips} round trips, ${rounds} rounds alternating)`,
);
writer.close();
reader.close();
worker.terminate();
