/**
 * What the harness's governance costs on a call's path, against the echo
 * fixture server: a tools/call through the census's client alone (no
 * harness), through `harness.call` (the tool named, its arguments checked
 * against the input schema, its structured content against the output
 * schema, with validators prepared at boot), the same with an approval hook
 * that allows every call, and a call refused for its arguments (nothing
 * sent); then the same path with a client that answers at once (no
 * process, no thread: what the harness itself adds, free of the round
 * trip's noise); then the two checks alone.
 *
 * Run: `deno bench -A bench/governance_bench.ts`. Under `deno bench` each
 * case runs its iterations in one stretch, so on a shared machine the round
 * trips drift between cases; `deno run -A bench/governance_bench.ts --rounds`
 * alternates the three round-trip cases in rounds of 1,000 calls instead and
 * prints each round's means.
 */

import { boot } from "../harness/harness.ts";
import { routeCalls } from "../harness/_call.ts";
import { ApprovalGate } from "../harness/_approval.ts";
import { adoptListing } from "../harness/_listing.ts";
import type { Census } from "../client/census.ts";
import { ok } from "../codec/result.ts";
import { valueValidator } from "../codegen/validate.ts";
import type { JsonValue } from "../codec/json.ts";

const ECHO = new URL("../tests/fixtures/echo_server.ts", import.meta.url).pathname;
const spec = {
  name: "echo",
  command: Deno.execPath(),
  args: ["run", "--quiet", "--no-lock", ECHO],
  inheritEnv: ["DENO_DIR"],
};

const plain = await boot([spec], { retirementTimeoutMs: 5_000 });
const hooked = await boot([spec], { retirementTimeoutMs: 5_000, approve: () => true });
const booted = plain.census.clients.get("echo");
if (booted === undefined || plain.reports.get("echo")?.state !== "ready") {
  throw new Error("The echo fixture did not boot");
}
const client = booted;
const tool = plain.reports.get("echo");
const echo = tool?.state === "ready" ? tool.tools.find((each) => each.name === "echo") : undefined;
if (echo?.outputSchema === undefined) throw new Error("The echo tool has no output schema");
const input = valueValidator(echo.inputSchema);
const output = valueValidator(echo.outputSchema as JsonValue);

function must(passed: boolean, what: string): void {
  if (!passed) throw new Error(`${what} did not go as expected`);
}

// The same route, to a client that answers at once.
const answer = {
  content: [{ type: "text" as const, text: "hello" }],
  structuredContent: { text: "hello" },
  isError: false,
};
const instant = {
  spec: client.spec,
  callTool: () => Promise.resolve(ok(answer)),
};
const census = { clients: new Map([["echo", instant]]) } as unknown as Census;
const adopted = await adoptListing(
  { spec: client.spec, pins: new Map(), options: {}, info: () => client.serverInfo },
  tool?.state === "ready" ? tool.tools : [],
  "boot",
);
if (!adopted.ok) throw new Error(adopted.error.message);
const exposures = new Map([["echo", adopted.value.exposure]]);
const routes = { census, reports: plain.reports, exposures, gate: new ApprovalGate() };
const routed = routeCalls({ ...routes, approve: undefined });
const routedHooked = routeCalls({ ...routes, approve: () => true });

/** Mean microseconds of one call, over `count` calls made one after another. */
async function mean(call: () => Promise<unknown>, count: number): Promise<number> {
  const started = performance.now();
  for (let index = 0; index < count; index++) await call();
  return (performance.now() - started) * 1000 / count;
}

async function rounds(): Promise<void> {
  const cases: [string, () => Promise<unknown>][] = [
    ["client alone", () => client.callTool("echo", { text: "hello" })],
    ["harness.call", () => plain.call("echo", "echo", { text: "hello" })],
    ["harness.call, hook", () => hooked.call("echo", "echo", { text: "hello" })],
  ];
  for (const [, call] of cases) await mean(call, 300);
  for (let round = 1; round <= 5; round++) {
    const figures: string[] = [];
    for (const [name, call] of cases) {
      figures.push(`${name} ${(await mean(call, 1_000)).toFixed(0)} µs`);
    }
    console.log(`round ${round}: ${figures.join(", ")}`);
  }
  await Promise.all([plain.retire(), hooked.retire()]);
}

if (Deno.args.includes("--rounds")) {
  await rounds();
} else {
  Deno.bench({
    name: "a tools/call through the client alone",
    group: "call path",
    baseline: true,
    async fn() {
      must((await client.callTool("echo", { text: "hello" })).ok, "the call");
    },
  });

  Deno.bench({
    name: "harness.call: named, arguments and result checked against the schemas",
    group: "call path",
    async fn() {
      must((await plain.call("echo", "echo", { text: "hello" })).ok, "the call");
    },
  });

  Deno.bench({
    name: "harness.call with an approval hook that allows it",
    group: "call path",
    async fn() {
      must((await hooked.call("echo", "echo", { text: "hello" })).ok, "the call");
    },
  });

  Deno.bench({
    name: "harness.call refused for its arguments, nothing sent",
    group: "call path",
    async fn() {
      must(!(await plain.call("echo", "echo", { text: 3 })).ok, "the refusal");
    },
  });

  Deno.bench({
    name: "an instant client's callTool alone",
    group: "call path, no round trip",
    baseline: true,
    async fn() {
      must((await instant.callTool()).ok, "the call");
    },
  });

  Deno.bench({
    name: "routed: named, arguments and result checked against the schemas",
    group: "call path, no round trip",
    async fn() {
      must((await routed("echo", "echo", { text: "hello" }, {}, undefined)).ok, "the call");
    },
  });

  Deno.bench({
    name: "routed with an approval hook that allows it",
    group: "call path, no round trip",
    async fn() {
      must((await routedHooked("echo", "echo", { text: "hello" }, {}, undefined)).ok, "the call");
    },
  });

  Deno.bench({
    name: "the input check alone",
    group: "checks",
    fn() {
      must(input.validate({ text: "hello" }).ok, "the input check");
    },
  });

  Deno.bench({
    name: "the output check alone",
    group: "checks",
    fn() {
      must(output.validate({ text: "hello" }).ok, "the output check");
    },
  });

  Deno.bench({
    name: "retire the bench harnesses",
    // In a group of its own, so that it runs after the others.
    group: "teardown",
    n: 1,
    warmup: 0,
    async fn() {
      await Promise.all([plain.retire(), hooked.retire()]);
    },
  });
}
