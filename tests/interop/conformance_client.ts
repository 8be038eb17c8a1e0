// The client under test of the MCP conformance suite's client scenarios: the
// suite runs this with the scenario's server URL as the last argument and
// the scenario and protocol version in MCP_CONFORMANCE_SCENARIO and
// MCP_CONFORMANCE_PROTOCOL_VERSION. It connects as a harness would (one
// remote server, its era pinned to the version's era, that version offered
// first), lists the tools, calls each with arguments made from its input
// schema, and retires the server. It answers what a server asks (elicitation
// accepted as the form stands, sampling with a fixed answer, one root). For
// the skills extension's scenarios it lists the skills, and for the verify
// ones reads each, as a harness loading it would: a refused read is what
// those scenarios expect. It says what happened on stderr and exits 0 when
// every step worked.

import { Census } from "../../client/census.ts";
import type { Client } from "../../client/client.ts";
import type { JsonObject, JsonValue } from "../../codec/json.ts";
import { eraOf, isSupportedVersion, SUPPORTED_VERSIONS } from "../../codec/protocol.ts";

const url = Deno.args.at(-1) ?? "";
const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "";
const wanted = Deno.env.get("MCP_CONFORMANCE_PROTOCOL_VERSION") ?? "2025-11-25";
const version = isSupportedVersion(wanted) ? wanted : "2025-11-25";
const era = eraOf(version);
const versions = [version, ...SUPPORTED_VERSIONS.filter((v) => v !== version && eraOf(v) === era)];

/** An argument of each property's type, from a tool's input schema. */
function argumentsFor(schema: JsonValue): JsonObject {
  const args: JsonObject = {};
  const properties = typeof schema === "object" && schema !== null && !Array.isArray(schema)
    ? schema.properties
    : undefined;
  if (typeof properties !== "object" || properties === null || Array.isArray(properties)) {
    return args;
  }
  let n = 1;
  for (const [key, property] of Object.entries(properties)) {
    const type = typeof property === "object" && property !== null && !Array.isArray(property)
      ? property.type
      : undefined;
    args[key] = type === "number" || type === "integer"
      ? n++
      : type === "boolean"
      ? true
      : type === "array"
      ? []
      : type === "object"
      ? {}
      : "conformance";
  }
  return args;
}

/** The calls MCP_CONFORMANCE_CONTEXT asks for, if any. */
function contextCalls(): Array<{ name: string; arguments: JsonObject }> {
  let context: unknown;
  try {
    context = JSON.parse(Deno.env.get("MCP_CONFORMANCE_CONTEXT") ?? "null");
  } catch {
    return [];
  }
  const calls = (context as { toolCalls?: unknown } | null)?.toolCalls;
  if (!Array.isArray(calls)) return [];
  return calls.filter((call) => typeof call?.name === "string").map((call) => ({
    name: call.name,
    arguments: call.arguments ?? {},
  }));
}

const census = Census.prepare([{
  name: "conformance",
  url,
  headers: {},
  era,
  versions,
  connectTimeoutMs: 15_000,
  callTimeoutMs: 10_000,
}], {
  // A person who accepts every form as it stands: the schema's defaults fill it.
  onElicit: (request) => {
    console.error(`[${scenario}] elicitation: ${JSON.stringify(request).slice(0, 300)}`);
    return Promise.resolve({ action: "accept", content: {} });
  },
  onSample: () =>
    Promise.resolve({
      role: "assistant",
      content: { type: "text", text: "A conformance answer" },
      model: "conformance-model",
      stopReason: "endTurn",
    }),
  roots: [{ uri: "file:///tmp/conformance", name: "conformance" }],
});
let failed = false;

/** Lists the server's skills; reads each, but for the scenario where nothing may be read. */
async function skills(client: Client): Promise<void> {
  const listed = await client.listSkills();
  console.error(`[${scenario}] skills/list: ${JSON.stringify(listed).slice(0, 300)}`);
  if (!listed.ok) {
    failed = true;
    return;
  }
  if (scenario === "sep-2640-client-no-prefetch") return;
  for (const skill of listed.value) {
    const read = await client.readSkill(skill.uri);
    console.error(`[${scenario}] read ${skill.uri}: ${JSON.stringify(read).slice(0, 300)}`);
    // A refusal is the client's part done; another failure is not.
    if (!read.ok && read.error.kind !== "skill_mismatch") failed = true;
  }
}

const client = census.clients.get("conformance");
const started = await client?.connect();
console.error(`[${scenario}] connect ${version}: ${JSON.stringify(started)}`);
if (client !== undefined && started?.ok) {
  const tools = await client.listTools();
  console.error(
    `[${scenario}] tools/list: ${
      JSON.stringify(tools.ok ? tools.value.map((t) => t.name) : tools)
    }`,
  );
  if (!tools.ok) failed = true;
  const listed = tools.ok ? tools.value : [];
  if (scenario.startsWith("sep-2640-client-")) await skills(client);
  // A scenario may say which calls to make, with which arguments.
  for (const call of contextCalls()) {
    const called = await client.callTool(call.name, call.arguments);
    console.error(`[${scenario}] tools/call ${call.name}: ${JSON.stringify(called).slice(0, 300)}`);
    if (!called.ok && called.error.kind !== "server_error") failed = true;
  }
  for (const tool of contextCalls().length > 0 ? [] : listed) {
    // A tool that echoes a schema is given the schema of the tool listed
    // beside it, as this client decoded it: what comes back shows what it kept.
    const echoed = tool.name === "json_schema_echo"
      ? listed.find((other) => other.name !== tool.name)?.inputSchema
      : undefined;
    const args = echoed === undefined ? argumentsFor(tool.inputSchema) : { schema: echoed };
    const called = await client.callTool(tool.name, args);
    console.error(`[${scenario}] tools/call ${tool.name}: ${JSON.stringify(called).slice(0, 300)}`);
    // A server's refusal is an answer: the client did its part.
    if (!called.ok && called.error.kind !== "server_error") failed = true;
  }
} else if (started !== undefined && !started.ok && started.error.kind === "tools_not_declared") {
  // The handshake completed; a server without tools is refused by design.
  console.error(`[${scenario}] the server declares no tools: nothing to call`);
} else {
  failed = true;
}
const retired = await census.retire();
console.error(`[${scenario}] retired: ${JSON.stringify([...retired.clients.values()])}`);
Deno.exit(failed || !retired.confirmed ? 1 : 0);
