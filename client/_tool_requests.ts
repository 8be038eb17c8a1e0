// Private to client/: a client's requests of tools: the listing, and by it
// which tools run as tasks (by the listing of the generation that answered);
// a call made as a task or as rounds that may ask for input (2026-07-28
// `input_required`); and a call made once more after the user visited the
// URLs a server asked for (-32042). Each send goes to the client's
// generation of that moment.

import { isJsonObject, type JsonObject, type JsonValue } from "../codec/json.ts";
import type { CallToolResult } from "../codec/protocol.ts";
import { ok, type Result } from "../codec/result.ts";
import type { ClientError } from "./thread/outcomes.ts";
import type { ServedRequests } from "./thread/asked.ts";
import { callParams } from "./_checks.ts";
import { decodeCallResult, listFresh } from "./_results.ts";
import type { RequestHost } from "./_lists.ts";
import { followOf } from "./_progress.ts";
import { afterVisits, requestRounds } from "./_rounds.ts";
import type { ServerAnswers } from "./_answers.ts";
import { type TaskSupport, taskTools } from "./tasks.ts";
import type { ToolListing } from "./tool_listing.ts";
import type { CallOptions } from "./client_options.ts";

/** What a client's tool requests need of it, besides what every request does. */
export type ToolHost = RequestHost & {
  /** Call the tools whose `taskSupport` is `"optional"` as tasks too, unless a call says. */
  optionalTasks: boolean;
  /** What the server's requests are answered with. */
  served: ServedRequests;
  /** The answers to the server's requests, by the harness's handlers. */
  answers: ServerAnswers;
};

/** The tool requests of one client. */
export class ToolRequests {
  #host: ToolHost;
  #taskTools = new Map<string, TaskSupport>();

  /** The requests of the client `host` describes. */
  constructor(host: ToolHost) {
    this.#host = host;
  }

  /** Lists every tool, with how long the listing stays fresh (see `Client.listing`). */
  listing(options: { timeoutMs?: number } = {}): Promise<Result<ToolListing, ClientError>> {
    const timeoutMs = this.#host.timeout(options.timeoutMs);
    const generation = this.#host.generation();
    const info = generation.info;
    // A server that offers prompts, resources or skills but declared no tools lists none.
    if (generation.state === "ready" && !isJsonObject(info?.capabilities.tools)) {
      return Promise.resolve(ok({ tools: [] }));
    }
    const page = (params: string, ms: number) =>
      generation.request("tools/list", params, ms, undefined);
    return listFresh(this.#host.server, page, { timeoutMs, era: generation.era }).then((listed) => {
      // Which tools run as tasks, by the listing of the generation that answered.
      if (listed.ok && generation === this.#host.generation()) {
        this.#taskTools = taskTools(info, listed.value.tools);
      }
      return listed;
    });
  }

  /** Calls one tool (see `Client.callTool`). */
  call(
    name: string,
    args: JsonObject,
    options: CallOptions,
  ): Promise<Result<CallToolResult, ClientError>> {
    const params = callParams(name, args);
    const timeoutMs = this.#host.timeout(options.timeoutMs);
    const support = this.#taskTools.size === 0 ? undefined : this.#taskTools.get(name);
    const task = support === "required" ||
      (support === "optional" && (options.task ?? this.#host.optionalTasks));
    const follow = followOf(options, task);
    // A task's input arrives by its status, not by its result.
    const send = task
      ? () =>
        this.#host.generation().request(
          "tools/call",
          params,
          timeoutMs,
          options.signal,
          this.#decodeCall,
          follow,
        )
      : () =>
        requestRounds({
          server: this.#host.server,
          answers: this.#host.answers,
          generation: this.#host.generation(),
          method: "tools/call",
          subject: `tool ${JSON.stringify(name)}`,
          params,
          timeoutMs,
          signal: options.signal,
          decode: this.#decodeCall,
          follow,
          tool: name,
        });
    // A server may need the user to visit URLs first (-32042): asked only with a handler.
    if (!this.#host.served.elicit) return send();
    return afterVisits(this.#host.answers, name, options.signal, send);
  }

  // Decodes a tools/call result in the step that settles the call.
  #decodeCall = (value: JsonValue) =>
    decodeCallResult(this.#host.server, value, this.#host.generation().era);
}
