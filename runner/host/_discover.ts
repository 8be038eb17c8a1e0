/**
 * The host's answer to a program's discovery request (`search` or
 * `describe` of the build root's `tools.ts`): the request decoded from its
 * tagged form as untrusted input, checked by the same rule the harness's
 * own `search` is, and answered with the runner's {@linkcode Discovery} (the
 * harness's functions) as a reply the sandbox's `tools.ts` reads. Private to
 * the runner.
 *
 * @module
 */

import type { JsonValue } from "../../codec/json.ts";
import { decodeTagged } from "./_tagged.ts";
import { type Discovery, searchProblem, type ToolMatch } from "./discovery.ts";
import type { FeatureRequest } from "./run.ts";

/** The method a run's report names each program request of prompts and resources by. */
export const FEATURE_METHODS: Readonly<Record<FeatureRequest["op"], string>> = {
  listPrompts: "prompts/list",
  getPrompt: "prompts/get",
  listResources: "resources/list",
};

/**
 * A discovery request that asks for a server's prompts or resources,
 * decoded as untrusted input: the request, or the refusal of one that is
 * malformed; `undefined` for any other request.
 */
export function readFeatureRequest(
  tagged: unknown,
):
  | { kind: "feature"; request: FeatureRequest }
  | { kind: "refused"; reply: JsonValue }
  | undefined {
  const decoded = decodeTagged(tagged);
  if (!decoded.ok || !isRecord(decoded.value)) return undefined;
  const { op, server, name, args } = decoded.value;
  if (op !== "listPrompts" && op !== "getPrompt" && op !== "listResources") return undefined;
  const method = FEATURE_METHODS[op];
  if (op !== "getPrompt") {
    if (server !== undefined && typeof server !== "string") {
      return {
        kind: "refused",
        reply: refusal("invalid_arguments", `Cannot send ${method}: the server is not a string`),
      };
    }
    return { kind: "feature", request: server === undefined ? { op } : { op, server } };
  }
  if (typeof server !== "string" || typeof name !== "string") {
    return {
      kind: "refused",
      reply: refusal("invalid_arguments", "Cannot get a prompt: name its server and prompt"),
    };
  }
  if (!isRecord(args) || Object.values(args).some((value) => typeof value !== "string")) {
    return {
      kind: "refused",
      reply: refusal(
        "invalid_arguments",
        `Cannot get prompt ${JSON.stringify(name)}: its arguments must be an object of strings`,
      ),
    };
  }
  return {
    kind: "feature",
    request: { op, server, name, args: { ...args } as Record<string, string> },
  };
}

function refusal(code: string, message: string): JsonValue {
  return { ok: false, code, message };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function matches(found: readonly ToolMatch[]): JsonValue {
  return found.map(({ server, tool, name, line, score }) => ({ server, tool, name, line, score }));
}

/**
 * The reply to one request, in the tagged request form the sandbox sent;
 * `undefined` when the request cannot be read at all (a broken channel).
 */
export function answerDiscovery(
  tagged: unknown,
  discovery: Discovery | undefined,
): JsonValue | undefined {
  const decoded = decodeTagged(tagged);
  if (!decoded.ok || !isRecord(decoded.value)) return undefined;
  const request = decoded.value;
  if (discovery === undefined) {
    return refusal(
      "discovery_unavailable",
      "Cannot discover tools: this runner was given no discovery; run the program through a harness",
    );
  }
  if (request.op === "search") {
    const problem = searchProblem(request.query, request.limit);
    if (problem !== undefined) return refusal("invalid_arguments", problem);
    const found = discovery.search(
      request.query as string,
      request.limit === undefined ? {} : { limit: request.limit as number },
    );
    return { ok: true, value: matches(found) };
  }
  if (request.op === "describe") {
    if (typeof request.server !== "string" || typeof request.tool !== "string") {
      return refusal("invalid_arguments", "Cannot describe a tool: name its server and tool");
    }
    const block = discovery.describe(request.server, request.tool);
    return block.ok
      ? { ok: true, value: block.value }
      : refusal(block.error.kind, block.error.message);
  }
  return undefined;
}
