// Private to harness/: a program's listings of prompts and resources and its
// gets of prompts (`listPrompts`, `getPrompt`, `listResources` of the build
// root's `./tools.ts`), answered by the harness's own. A server unknown to
// the catalog or failed at boot is refused as a value, as a read is; a get
// asks the approval hook first, in the run's queue, as a read does (a
// listing asks nothing: like `search`, it says what a server offers, and
// reaches nothing private). What comes back is what the client decoded,
// made plain JSON for the reply.

import type { JsonObject } from "../codec/json.ts";
import { toJson } from "../codec/interchange.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type {
  CallFailure,
  FeatureFunction,
  FeatureRequest,
  ReadContext,
} from "../runner/host/run.ts";
import { approveRead, type ReadApproval } from "./_resources.ts";
import type { Harness } from "./types.ts";

type Asks = Pick<Harness, "listPrompts" | "getPrompt" | "listResources">;

function asJson(
  value: unknown,
  request: FeatureRequest,
): Result<JsonObject[] | JsonObject, CallFailure> {
  const json = toJson(value);
  if (json.ok) return ok(json.value as JsonObject);
  return err({
    kind: "result_malformed",
    message:
      `Cannot answer ${request.op}: what the server gave is not JSON (${json.error.message})`,
  });
}

function failure(error: { kind: string; message: string }): Result<never, CallFailure> {
  return err({ ...error });
}

/** Sends a get of a prompt of `server` so that what its server asks meanwhile is the run's. */
export type Follow = <T>(
  server: string,
  context: ReadContext | undefined,
  send: () => Promise<T>,
) => Promise<T>;

/** The harness's answer to a program's request of prompts and resources (see the module doc). */
export function featuresForProgram(
  asks: Asks,
  approval: ReadApproval,
  follow: Follow,
): FeatureFunction {
  return async (request, context = {}) => {
    // A listing still waiting when the run ends is given up with it.
    const { signal } = context;
    const given = signal === undefined ? {} : { signal };
    switch (request.op) {
      case "listPrompts": {
        const listed = await asks.listPrompts(request.server, given);
        return listed.ok ? asJson(listed.value, request) : failure(listed.error);
      }
      case "listResources": {
        const listed = await asks.listResources(request.server, given);
        return listed.ok ? asJson(listed.value, request) : failure(listed.error);
      }
      case "getPrompt": {
        const { server, name, args } = request;
        const approved = await approveRead(approval, {
          server,
          tool: "prompts/get",
          name: "getPrompt",
          args: { name, arguments: { ...args } },
          prompt: name,
        }, context);
        if (!approved.ok) return approved;
        const timeoutMs = approved.value;
        const got = await follow(server, context, () =>
          asks.getPrompt(server, name, args, {
            ...(signal === undefined ? {} : { signal }),
            ...(timeoutMs === undefined ? {} : { timeoutMs }),
          }));
        return got.ok ? asJson(got.value, request) : failure(got.error);
      }
    }
  };
}
