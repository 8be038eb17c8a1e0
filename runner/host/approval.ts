/**
 * The approval hook's vocabulary: what a harness is asked about each call a
 * program (or the harness itself) makes, and what it may answer. The hook is
 * the harness's (`boot(specs, { approve })`, `harness.run(program, { approve
 * })`); the runner only carries a run's hook, and the run it comes from, to
 * the harness's call.
 *
 * @module
 */

import type { JsonObject } from "../../codec/json.ts";

/** The run a call comes from, as the harness's call and its approval hook are told it. */
export type RunInfo = {
  /** The run's number in its runner, from 0. */
  readonly id: number;
  /** The program's file name as its author knows it; `program.ts` by default. */
  readonly programName: string;
  /** The program's source. */
  readonly source: string;
};

/** One call, as the approval hook is asked about it. */
export type ApprovalRequest = {
  /** The server the call is for. */
  server: string;
  /** The wire name of the tool. */
  tool: string;
  /** The tool's function name in the generated module (`get_sum` for `get-sum`). */
  name: string;
  /** The arguments, as JSON, already checked against the tool's input schema. */
  args: JsonObject;
  /**
   * The listing's annotations of the tool (`readOnlyHint`, `destructiveHint`,
   * `idempotentHint`, `openWorldHint`, ...) as the server gave them, unread:
   * hints from the server, not facts. Empty when the tool has none.
   */
  annotations: JsonObject;
  /** The run the call comes from; `undefined` for the harness's own `call`. */
  run: RunInfo | undefined;
  /**
   * Present only for a program's read of a resource (`read_resource(uri)`
   * of a module): the URI it reads. `tool` is then `resources/read` (as
   * the run's report names the read), `name` is `read_resource`, `args` is
   * `{ uri }` and `annotations` is empty. A read
   * changes nothing on the server by the protocol's rule, but what it reads
   * may be private: the hook decides on it as on a call.
   */
  resource?: string;
  /**
   * Present only for a program's get of a prompt (`getPrompt` of
   * `./tools.ts`): the prompt's name. `tool` is then `prompts/get`, `name`
   * is `getPrompt`, `args` is `{ name, arguments }` and `annotations` is
   * empty.
   */
  prompt?: string;
};

/**
 * What the approval hook answers: `true` (or `{ allow: true }`) lets the
 * call go; `false` or `{ allow: false, reason }` denies it. Anything else
 * denies it too.
 */
export type Approval = boolean | { allow: true } | { allow: false; reason: string };

/**
 * The approval hook: asked about every call that would otherwise be sent,
 * one at a time, in the order the calls were made. Its time counts in the
 * call's deadline and in its run's; a hook that throws, or does not answer
 * within the call's deadline, denies the call.
 *
 * @example Allow only tools the server marks read-only
 * ```ts
 * import type { Approve } from "@loom/mcp/runner";
 * const approve: Approve = ({ annotations }) =>
 *   annotations.readOnlyHint === true || { allow: false, reason: "only read-only tools" };
 * console.log(approve({
 *   server: "s", tool: "t", name: "t", args: {}, annotations: {}, run: undefined,
 * }));
 * ```
 */
export type Approve = (request: ApprovalRequest) => Approval | Promise<Approval>;
