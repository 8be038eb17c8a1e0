// The CPU of each thread per call over HTTP in the 2026-07-28 era, read from
// /proc/self/task (Linux), for our client and for the Worker floor of
// http_bench.ts (a bare `fetch` in a Worker, one message each way), against
// the official SDK v2's server: 1,000 calls untimed, then `calls` timed.
//
//   deno run -A bench/http_threads.ts [ours | floor] [calls]     (default ours, 2000)

import { Client } from "../client/client.ts";
import { serveFixture } from "../tests/client/_http_servers.ts";
const server = await serveFixture("sdk_v2_http.ts");
const url = `${server.origin}/mcp`;
const n = Number(Deno.args[1] ?? 2000);
function threads(): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of Deno.readDirSync("/proc/self/task")) {
    try {
      const stat = Deno.readTextFileSync(`/proc/self/task/${e.name}/stat`);
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(`${e.name} ${comm}`, (Number(f[11]) + Number(f[12])) * 10000); // µs (100 Hz)
    } catch { /* gone */ }
  }
  return out;
}
const RAW = `
let url = ""; let headers = {};
self.onmessage = async (event) => {
  if (event.data.url !== undefined) ({ url, headers } = event.data);
  else {
    const r = await fetch(url, { method: "POST", headers: { ...headers, "mcp-name": "echo" }, body: event.data.body });
    await r.text();
  }
  self.postMessage(0);
};`;
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
};
async function peer(
  kind: string,
): Promise<{ call(i: number): Promise<void>; close(): Promise<void> }> {
  if (kind === "ours") {
    const client = new Client({ name: "bench", url, headers: {}, era: "auto" });
    const c = await client.connect();
    if (!c.ok) throw new Error(c.error.message);
    return {
      async call(i) {
        const r = await client.callTool("echo", { text: `c ${i}` } as never);
        if (!r.ok) throw new Error(r.error.message);
      },
      async close() {
        await client.retire();
      },
    };
  }
  const w = new Worker(`data:application/javascript,${encodeURIComponent(RAW)}`, {
    type: "module",
  });
  let wake: (() => void) | undefined;
  w.onmessage = () => wake?.();
  const ask = (m: unknown) =>
    new Promise<void>((r) => {
      wake = r;
      w.postMessage(m);
    });
  await ask({
    url,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
    },
  });
  let id = 1;
  return {
    async call(i) {
      await ask({
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: id++,
          method: "tools/call",
          params: { _meta: ENVELOPE, name: "echo", arguments: { text: `c ${i}` } },
        }),
      });
    },
    close() {
      w.terminate();
      return Promise.resolve();
    },
  };
}
for (const kind of [Deno.args[0] ?? "ours"]) {
  const p = await peer(kind);
  for (let i = 0; i < 1000; i++) await p.call(i);
  const before = threads();
  const t: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    await p.call(i);
    t.push(performance.now() - s);
  }
  const after = threads();
  t.sort((a, b) => a - b);
  const rows = [...after].map(([k, v]) => [k, (v - (before.get(k) ?? 0)) / n] as const).filter((
    [, v],
  ) => v > 1).sort((a, b) => b[1] - a[1]);
  console.log(
    kind,
    `p50 ${((t[n >> 1] ?? NaN) * 1000).toFixed(0)} µs`,
    rows.map(([k, v]) => `${k}: ${v.toFixed(0)}`).join(", "),
  );
  await p.close();
}
await server.close();
