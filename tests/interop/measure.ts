/**
 * Measures what docs/INTEROP.md records about the official MCP servers: for
 * each server of tests/interop/data/official.toml, what it needed beyond the
 * catalog's `deno run -A npm:<package>` (arguments, environment), its tool
 * count, its negotiated protocol version, its boot time (the harness report's
 * `elapsedMs`: spawn, handshake, listing and generation) booted alone and
 * booted together with the other three, and how its retirement ended.
 *
 * Boot times are medians over several runs after one warm-up run (so the npm
 * packages are in Deno's cache). Prints a Markdown table.
 *
 * Run with `deno run -A tests/interop/measure.ts [runs]` (default 5 runs).
 *
 * @module
 */

import { boot } from "../../harness/harness.ts";
import type { ResolvedStdioSpec } from "../../settings/mod.ts";
import {
  localize,
  makeScratch,
  MARKER_VARIABLE,
  SERVER_VERSION,
  type ServerName,
  SERVERS,
  tomlCatalogSpecs,
} from "./_servers.ts";

type Sample = {
  elapsedMs: number;
  tools: number;
  protocol: string;
  serverInfo: string;
  retirement: string;
};

async function bootOnce(names: readonly ServerName[]): Promise<Map<string, Sample>> {
  const scratch = await makeScratch();
  try {
    const specs = localize(tomlCatalogSpecs(), scratch).filter((spec) =>
      (names as readonly string[]).includes(spec.name)
    );
    const harness = await boot(specs);
    const samples = new Map<string, Sample>();
    const retired = await harness.retire();
    for (const [name, report] of harness.reports) {
      if (report.state !== "ready") throw new Error(`Cannot measure ${name}: ${report.message}`);
      const outcome = retired.clients.get(name);
      const retirement = outcome?.ok && outcome.value.kind === "exited"
        ? `${outcome.value.escalation}, code ${outcome.value.code}, drained ${outcome.value.drained}`
        : `unconfirmed: ${JSON.stringify(outcome)}`;
      samples.set(name, {
        elapsedMs: report.elapsedMs,
        tools: report.tools.length,
        protocol: `${report.info.protocolVersion} (${report.info.era})`,
        serverInfo: `${report.info.serverInfo.name} ${report.info.serverInfo.version}`,
        retirement,
      });
    }
    return samples;
  } finally {
    await Deno.remove(scratch.root, { recursive: true });
  }
}

function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? sorted[middle] ?? 0
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

// What a server needed beyond `deno run -A npm:<package>@<version>`.
function needs(spec: ResolvedStdioSpec): { args: string; env: string } {
  const extra = spec.args.slice(spec.args.findIndex((arg) => arg.startsWith("npm:")) + 1);
  const args = extra.map((arg) => arg.startsWith("/") ? "(a temporary folder)" : arg);
  const env = Object.keys(spec.env).filter((name) => name !== MARKER_VARIABLE).map((name) =>
    `${name} (a file in a temporary folder)`
  );
  return { args: args.join(" ") || "none", env: env.join(", ") || "none" };
}

const runs = Number(Deno.args[0] ?? "5");
if (!Number.isSafeInteger(runs) || runs < 1) {
  throw new RangeError(
    `Cannot measure: runs ${JSON.stringify(Deno.args[0])} is not a positive integer`,
  );
}

await bootOnce(SERVERS); // Warm-up: fills Deno's npm cache and its code cache.
const alone = new Map<string, number[]>();
const together = new Map<string, number[]>();
let last = new Map<string, Sample>();
for (let run = 0; run < runs; run++) {
  last = await bootOnce(SERVERS);
  for (const [name, sample] of last) {
    together.set(name, [...together.get(name) ?? [], sample.elapsedMs]);
  }
  for (const server of SERVERS) {
    const sample = (await bootOnce([server])).get(server);
    if (sample !== undefined) alone.set(server, [...alone.get(server) ?? [], sample.elapsedMs]);
  }
}

const scratch = await makeScratch();
const specs = localize(tomlCatalogSpecs(), scratch);
await Deno.remove(scratch.root, { recursive: true });

const load = Deno.build.os === "linux"
  ? `, load average ${(await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ")}`
  : "";
console.log(
  `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores${load}, ${runs} runs, ` +
    `medians; packages @modelcontextprotocol/server-<name>@${SERVER_VERSION}\n`,
);
console.log(
  "| server | arguments after the package | environment | tools | protocol | serverInfo | " +
    "boot alone (ms) | boot with the other three (ms) | retirement |",
);
console.log("| --- | --- | --- | ---: | --- | --- | ---: | ---: | --- |");
for (const spec of specs) {
  const sample = last.get(spec.name);
  if (sample === undefined) continue;
  const { args, env } = needs(spec);
  console.log(
    `| ${spec.name} | ${args} | ${env} | ${sample.tools} | ${sample.protocol} | ` +
      `${sample.serverInfo} | ${median(alone.get(spec.name) ?? []).toFixed(0)} | ` +
      `${median(together.get(spec.name) ?? []).toFixed(0)} | ${sample.retirement} |`,
  );
}
