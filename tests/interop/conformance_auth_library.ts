// The client under test of the conformance suite's authorization scenarios
// (`auth/*`) when the library's own client signs in: a census of one remote
// server, its `oauth` settings taken from the scenario's context as a harness
// would configure them (client ids, secrets, keys, assertions), its worker
// run with least privilege (`--unstable-worker-options`: the network to the
// server's one host, so every request to an authorization server is the main
// thread's), then the start (the era the scenario speaks), `tools/list` and a
// call of each tool. The suite runs it with the scenario's server URL as the
// last argument, the scenario in MCP_CONFORMANCE_SCENARIO, the protocol
// version in MCP_CONFORMANCE_PROTOCOL_VERSION and the context in
// MCP_CONFORMANCE_CONTEXT. It says what happened on stderr, checks that no
// secret of the context reached a report, a message or a stderr tail, and
// exits 0 when every step worked.

import { Census } from "../../client/census.ts";
import { MemoryTokenStore } from "../../oauth/mod.ts";
import type { SupportedVersion } from "../../codec/protocol.ts";
import { context, log, modern, settings, url, version } from "./_conformance_scenario.ts";

const census = Census.prepare([{
  name: "conformance",
  url,
  era: modern ? "modern" : "legacy",
  versions: [version as SupportedVersion],
  connectTimeoutMs: 30_000,
  callTimeoutMs: 30_000,
  oauth: settings(),
}], { tokenStore: new MemoryTokenStore() });
const client = census.clients.get("conformance")!;
const told: unknown[] = [];

async function run(): Promise<boolean> {
  log(`worker permissions: ${census.permissions}`);
  const started = await client.connect();
  told.push(started);
  log(
    `start (${modern ? "server/discover" : "initialize"}): ${
      started.ok ? "ok" : `${started.error.kind}: ${started.error.message}`
    }`,
  );
  if (!started.ok) return false;
  const listed = await client.listTools();
  told.push(listed);
  log(`tools/list: ${listed.ok ? "ok" : `${listed.error.kind}: ${listed.error.message}`}`);
  if (!listed.ok) return false;
  for (const tool of listed.value) {
    const called = await client.callTool(tool.name, {});
    told.push(called);
    log(`tools/call ${tool.name}: ${called.ok ? "ok" : called.error.message}`);
    if (!called.ok) return false;
  }
  return true;
}

const passed = await run();
const retired = await census.retire();
told.push([...retired.clients], client.signInStatus(), client.stderrTail());
log(`retired: ${retired.confirmed ? "confirmed" : "NOT confirmed"}`);
log(`sign-in: ${JSON.stringify(client.signInStatus())}`);
// What a harness is handed must hold none of what it configured as secret.
const secrets = [context.client_secret, context.private_key_pem, context.valid_jwt]
  .concat(context.idp_id_token).filter((s): s is string => typeof s === "string" && s.length > 8);
const leaked = secrets.filter((secret) => JSON.stringify(told).includes(secret));
log(leaked.length === 0 ? "no secret in a report" : `${leaked.length} secrets in a report`);
Deno.exit(passed && retired.confirmed && leaked.length === 0 ? 0 : 1);
