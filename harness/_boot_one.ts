// Private to harness/: one server's boot, start to module: connect, list
// every page, generate. Each step's failure is the report's, with the
// server's stderr tail where one came back.

import { quote } from "../codec/quote.ts";
import type { Census } from "../client/census.ts";
import { bootSteps } from "./_boot_steps.ts";
import { serverRunsTasks } from "../client/tasks.ts";
import { declaresResources } from "../client/resources.ts";
import type { BootFailure, BootOptions, ServerReport } from "./types.ts";

/** Boots the server `name` of the census and says how its boot ended. */
export async function bootOne(
  census: Census,
  name: string,
  started: number,
  options: BootOptions,
): Promise<ServerReport> {
  const client = census.clients.get(name);
  if (client === undefined) throw new TypeError(`Server ${quote(name)} is missing from the census`);
  const failed = (failure: BootFailure, stderrTail: string): ServerReport => ({
    state: "failed",
    name,
    failure,
    message: failure.error.message,
    stderrTail,
    elapsedMs: performance.now() - started,
  });
  const connected = await bootSteps.connect(client);
  if (!connected.ok) {
    return failed({ stage: "start", error: connected.error }, connected.error.stderrTail);
  }
  const listed = await bootSteps.list(
    client,
    options.listTimeoutMs === undefined ? {} : { timeoutMs: options.listTimeoutMs },
  );
  if (!listed.ok) {
    const tail = "stderrTail" in listed.error ? listed.error.stderrTail : "";
    return failed({ stage: "list", error: listed.error }, tail);
  }
  const generated = bootSteps.generate(name, listed.value, {
    ...(options.capSpecifier === undefined ? {} : { capSpecifier: options.capSpecifier }),
    tasks: serverRunsTasks(connected.value),
    resources: declaresResources(connected.value),
  });
  if (!generated.ok) return failed({ stage: "generate", error: generated.error }, "");
  return {
    state: "ready",
    name,
    info: connected.value,
    tools: listed.value,
    generated: generated.value,
    elapsedMs: performance.now() - started,
  };
}
