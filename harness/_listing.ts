// Private to harness/: what a harness makes of one server's listing, at boot
// and at every re-listing: which tools its lists allow (`_tool_lists.ts`),
// which of those its pins trust (`_pins.ts`, asking `onToolsChanged` about
// what changed), the module and surface of the tools exposed, and their
// schemas' validators, prepared here once per listing (`_schemas.ts`).

import type { ToolDescriptor } from "../codec/protocol.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { Generated, GenerateError } from "../codegen/generate.ts";
import { identifierFor } from "../codegen/names.ts";
import type { ServerSpec } from "../settings/mod.ts";
import { bootSteps } from "./_boot_steps.ts";
import type { ServerInfo } from "../client/errors.ts";
import { serverRunsTasks } from "../client/tasks.ts";
import { declaresResources } from "../client/resources.ts";
import {
  applyDecision,
  changesOf,
  firstPins,
  type Pins,
  readDecision,
  relisted,
  trusted,
} from "./_pins.ts";
import { prepareSchemas, type ToolSchemas } from "./_schemas.ts";
import { judgeLists } from "./_tool_lists.ts";
import type { BootOptions, BootWarning, ToolsChange, WithheldReason } from "./types.ts";

/** What the harness exposes of one server's listing. */
export type Exposure = {
  /** Every tool listed. */
  tools: readonly ToolDescriptor[];
  /** The module and surface of the tools exposed. */
  generated: Generated;
  /** The listed tools not exposed, by wire name. */
  withheld: Map<string, WithheldReason>;
  /** The validators of each exposed tool, by wire name. */
  schemas: Map<string, ToolSchemas>;
  /** Every listed tool, by wire name. */
  byWire: Map<string, ToolDescriptor>;
  /** The function name of every listed tool, by wire name. */
  functions: Map<string, string>;
};

/** What adopting a listing needs: the server's spec, the harness's pins and its options. */
export type ListingContext = {
  spec: ServerSpec;
  /** Every server's pins, by server name; this server's are read and updated. */
  pins: Map<string, Pins>;
  options: Pick<BootOptions, "onToolsChanged" | "capSpecifier">;
  /** What the server said of itself, now: whether its module calls tasks and reads resources. */
  info: () => ServerInfo | undefined;
};

/**
 * Adopts a listing: the lists judged, the pins decided on, the module
 * generated. A first listing (no pins for the server) is trusted as it is.
 */
export async function adoptListing(
  context: ListingContext,
  tools: readonly ToolDescriptor[],
  cause: ToolsChange["cause"],
): Promise<Result<{ exposure: Exposure; warnings: BootWarning[] }, GenerateError>> {
  const { spec, pins: all } = context;
  const verdict = judgeLists(spec, tools);
  const allowed = tools.filter((tool) => !verdict.disabled.has(tool.name));
  let pins = all.get(spec.name);
  if (pins === undefined) {
    pins = firstPins(allowed);
    all.set(spec.name, pins);
  } else {
    const change = changesOf(spec.name, pins, allowed, new Set(tools.map((t) => t.name)), cause);
    if (change !== undefined) {
      applyDecision(pins, change, await decide(context.options.onToolsChanged, change));
    }
    relisted(pins, allowed);
  }
  const exposed = exposeListing(context, tools, verdict.disabled);
  return exposed.ok ? ok({ exposure: exposed.value, warnings: verdict.warnings }) : exposed;
}

/** The exposure of a listing under the pins as they stand (after an acceptance, say). */
export function exposeListing(
  context: ListingContext,
  tools: readonly ToolDescriptor[],
  disabled: ReadonlySet<string> = judgeLists(context.spec, tools).disabled,
): Result<Exposure, GenerateError> {
  const { spec } = context;
  const pins = context.pins.get(spec.name) ?? new Map();
  const withheld = new Map<string, WithheldReason>();
  const exposed: ToolDescriptor[] = [];
  for (const tool of tools) {
    if (disabled.has(tool.name)) withheld.set(tool.name, "disabled");
    else if (trusted(pins, tool)) exposed.push(tool);
    else withheld.set(tool.name, pins.has(tool.name) ? "changed" : "added");
  }
  const capSpecifier = context.options.capSpecifier;
  const info = context.info();
  const generated = bootSteps.generate(spec.name, exposed, {
    ...(capSpecifier === undefined ? {} : { capSpecifier }),
    tasks: serverRunsTasks(info),
    resources: declaresResources(info),
  });
  if (!generated.ok) return err(generated.error);
  const functions = new Map(tools.map((tool) => [tool.name, identifierFor(tool.name)]));
  for (const [identifier, wire] of generated.value.manifest) functions.set(wire, identifier);
  return ok({
    tools,
    generated: generated.value,
    withheld,
    schemas: prepareSchemas(exposed),
    byWire: new Map(tools.map((tool) => [tool.name, tool])),
    functions,
  });
}

async function decide(
  handler: BootOptions["onToolsChanged"],
  change: ToolsChange,
): Promise<ReturnType<typeof readDecision>> {
  if (handler === undefined) return undefined;
  try {
    return readDecision(await handler(change));
  } catch {
    // A handler that throws decides nothing: the default stands.
    return undefined;
  }
}
