// Private to client/worker/: one task-augmented `tools/call`, driven in the era the
// server speaks (what differs is the era object's: `client/thread/era.ts`),
// for a caller to whom it is an ordinary call. Legacy
// (2025-11-25, experimental tasks): the call carries `task: { ttl }`, its
// answer is a `CreateTaskResult` (`{ task }`), `tasks/get` is polled at the
// task's `pollInterval` until it is terminal (or needs input), and
// `tasks/result` answers what the call would have. Modern (the 2026-07-28
// tasks extension): the call's envelope declares the extension, a
// `resultType: "task"` answer is the task, and `tasks/get` is polled at its
// `pollIntervalMs` until it carries the `result` or the `error`. A server
// that answers with a plain result has run the call plainly: that is the
// answer. Each status change, with its message, is reported.
//
// Who ends what: the call ends once, with `settle`, or when its caller
// gives up (`cancel`: the call's deadline, kept on the main thread, or an
// abort), which sends `tasks/cancel` for a task that exists (and
// `notifications/cancelled` for a creation still waiting) and settles
// nothing, the caller having been answered. `stop` clears the poll timer
// when the client retires. Every leg is a request of the machine's, so a
// death settles the leg, and the call with it.

import { isJsonObject, type JsonObject, type JsonValue } from "../../codec/json.ts";
import { err, ok, type Result } from "../../codec/result.ts";
import { TASK_POLL_DEFAULT_MS, TASK_POLL_MAX_MS, TASK_POLL_MIN_MS } from "../../settings/limits.ts";
import { type ClientError, serverError } from "../thread/outcomes.ts";
import { type CallProgress, TASK_STATUSES, type TaskStatus } from "../thread/progress.ts";
import type { Clock, TimerHandle } from "../transport/clock.ts";
import type { EraCodec } from "../thread/era.ts";
import type { Pending, Settle } from "./_pending.ts";

/** The JSON-RPC code a task cancelled by its server is reported with (as LSP names it). */
export const TASK_CANCELLED_CODE = -32800;

/** What a task call needs of its worker. */
export type TaskIo = {
  /** The server's name, for messages. */
  name: string;
  /** The era the session speaks. */
  era: EraCodec;
  /** The clock the polls wait on. */
  clock: Clock;
  /** Sends one leg (its params compact JSON of an object); `undefined` when refused at once. */
  send(method: string, params: string, settle: Settle, long?: Pending["long"]): number | undefined;
  /** Gives up on a leg still waiting. */
  cancel(id: number): void;
  /** A status of the task, or its message, changed. */
  report(progress: CallProgress): void;
  /** The call's outcome: the raw result, or why there is none. Called once. */
  settle(outcome: Result<JsonValue, ClientError>): void;
};

/** What the call was asked with. */
export type TaskRequest = { params: string; progress: boolean; ttlMs: number };

type Task = {
  taskId: string;
  status: TaskStatus;
  message: string | undefined;
  pollMs: number;
  result: JsonValue | undefined;
  error: JsonValue | undefined;
};

const TERMINAL: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "cancelled"]);

/** One task-augmented call (see the module doc). */
export class TaskCall {
  #io: TaskIo;
  #request: TaskRequest;
  #phase: "creating" | "waiting" | "polling" | "fetching" | "done" = "creating";
  #leg: number | undefined;
  #createId: number | undefined;
  #timer: TimerHandle | undefined;
  #task: Task | undefined;
  #told: string | undefined;

  constructor(io: TaskIo, request: TaskRequest) {
    this.#io = io;
    this.#request = request;
  }

  /** The id of the creating request: the call's progress token. */
  get createId(): number | undefined {
    return this.#createId;
  }

  /** The task's id, once created. */
  get taskId(): string | undefined {
    return this.#task?.taskId;
  }

  /** Whether the call has ended. */
  get done(): boolean {
    return this.#phase === "done";
  }

  /** Sends the creating call. */
  start(): void {
    const long: Pending["long"] = {
      extra: this.#io.era.taskCall(this.#request.ttlMs),
      progress: this.#request.progress,
    };
    const id = this.#io.send("tools/call", this.#request.params, (outcome) => {
      this.#leg = undefined;
      this.#created(outcome);
    }, long);
    this.#createId = id;
    this.#leg = id;
  }

  /** The caller gave up: the task is cancelled where it exists; nothing is settled. */
  cancel(): void {
    if (this.#phase === "done") return;
    const task = this.#task;
    this.#end();
    if (this.#leg !== undefined) this.#io.cancel(this.#leg);
    if (task !== undefined && !TERMINAL.has(task.status)) {
      this.#io.send("tasks/cancel", JSON.stringify({ taskId: task.taskId }), () => {});
    }
  }

  /** The client retires: nothing more is sent, and no timer is left. */
  stop(): void {
    this.#end();
  }

  /** A status notification of this call's task (either era's), its parameters the task. */
  notified(params: unknown): void {
    if (this.#phase !== "waiting" && this.#phase !== "polling") return;
    const task = this.#read(params);
    if (task === undefined || task.taskId !== this.#task?.taskId) return;
    if (this.#phase === "waiting") {
      if (this.#timer !== undefined) this.#io.clock.clearTimer(this.#timer);
      this.#timer = undefined;
    }
    this.#status(task);
  }

  #created(outcome: Result<JsonValue, ClientError>): void {
    if (this.#phase !== "creating") return;
    if (!outcome.ok) return this.#finish(outcome);
    const value = outcome.value;
    const created = this.#io.era.createdTask(value);
    // A server that did not make a task ran the call: its result is the answer.
    if (created === undefined) return this.#finish(outcome);
    const task = this.#read(created);
    if (task === undefined) {
      return this.#finish(err({
        kind: "result_malformed",
        method: "tools/call",
        message: `Server "${this.#io.name}" sent a malformed task for tools/call: it has no ` +
          `string "taskId" or no known "status"`,
      }));
    }
    this.#status(task);
  }

  /** Reads a task of either era; `undefined` when it is not one. */
  #read(value: unknown): Task | undefined {
    if (!isJsonObject(value as JsonValue)) return undefined;
    const fields = value as JsonObject;
    const { taskId, status, statusMessage } = fields;
    if (typeof taskId !== "string" || !(TASK_STATUSES as readonly unknown[]).includes(status)) {
      return undefined;
    }
    const suggested = this.#io.era.pollInterval(fields);
    const pollMs = typeof suggested === "number" && Number.isFinite(suggested)
      ? Math.min(TASK_POLL_MAX_MS, Math.max(TASK_POLL_MIN_MS, suggested))
      : TASK_POLL_DEFAULT_MS;
    return {
      taskId,
      status: status as TaskStatus,
      message: typeof statusMessage === "string" ? statusMessage : undefined,
      pollMs,
      result: fields.result,
      error: fields.error,
    };
  }

  /** The task as the server last said it: told when it changed, then followed. */
  #status(task: Task): void {
    this.#task = task;
    const said = `${task.status}\n${task.message ?? ""}`;
    if (said !== this.#told) {
      this.#told = said;
      const progress: CallProgress = { kind: "task", taskId: task.taskId, status: task.status };
      if (task.message !== undefined) progress.message = task.message;
      this.#io.report(progress);
    }
    if (this.#phase === "done") return;
    if (this.#io.era.taskCarriesResult) return this.#followCarried(task);
    // Legacy: a terminal task, or one that needs input, answers on tasks/result.
    if (TERMINAL.has(task.status) || task.status === "input_required") return this.#fetch();
    if (this.#phase !== "polling") this.#wait(task.pollMs);
  }

  /** A task that carries its own outcome (the modern era's): followed until it does. */
  #followCarried(task: Task): void {
    switch (task.status) {
      case "completed": {
        const result = task.result;
        if (!isJsonObject(result as JsonValue)) {
          return this.#malformed("a completed task with no result object");
        }
        const complete = result as JsonObject;
        return this.#finish(
          ok("resultType" in complete ? complete : { ...complete, resultType: "complete" }),
        );
      }
      case "failed": {
        const error = task.error;
        if (!isJsonObject(error as JsonValue)) {
          return this.#malformed("a failed task with no error object");
        }
        const { code, message, data } = error as JsonObject;
        if (!Number.isSafeInteger(code) || typeof message !== "string") {
          return this.#malformed("a failed task whose error has no integer code or string message");
        }
        const rpc = data === undefined
          ? { code: code as number, message }
          : { code: code as number, message, data };
        return this.#finish(err(serverError(this.#io.name, "tools/call", rpc)));
      }
      case "cancelled":
        return this.#finish(err(serverError(this.#io.name, "tools/call", {
          code: TASK_CANCELLED_CODE,
          message: `the server cancelled task "${task.taskId}"` +
            (task.message === undefined ? "" : `: ${task.message}`),
        })));
      case "input_required":
        // This client offers no elicitation nor sampling: nothing can answer it.
        this.#io.send("tasks/cancel", JSON.stringify({ taskId: task.taskId }), () => {});
        return this.#finish(err(serverError(this.#io.name, "tools/call", {
          code: TASK_CANCELLED_CODE,
          message: `task "${task.taskId}" needs input this client cannot give (it offers no ` +
            "elicitation or sampling), so it was cancelled",
        })));
      case "working":
        if (this.#phase !== "polling") this.#wait(task.pollMs);
    }
  }

  #wait(ms: number): void {
    this.#phase = "waiting";
    this.#timer = this.#io.clock.setTimer(ms, () => {
      this.#timer = undefined;
      this.#poll();
    });
  }

  #poll(): void {
    const task = this.#task;
    if (this.#phase !== "waiting" || task === undefined) return;
    this.#phase = "polling";
    this.#leg = this.#io.send("tasks/get", JSON.stringify({ taskId: task.taskId }), (outcome) => {
      this.#leg = undefined;
      if (this.#phase !== "polling") return;
      if (!outcome.ok) return this.#finish(outcome);
      const next = this.#read(outcome.value);
      if (next === undefined || next.taskId !== task.taskId) {
        return this.#malformed(`a tasks/get answer that is not task "${task.taskId}"`);
      }
      this.#phase = "waiting";
      this.#status(next);
    });
  }

  #fetch(): void {
    const task = this.#task;
    if (task === undefined) return;
    this.#phase = "fetching";
    this.#leg = this.#io.send(
      "tasks/result",
      JSON.stringify({ taskId: task.taskId }),
      (outcome) => {
        this.#leg = undefined;
        if (this.#phase === "fetching") this.#finish(outcome);
      },
    );
  }

  #malformed(what: string): void {
    this.#finish(err({
      kind: "result_malformed",
      method: "tools/call",
      message: `Server "${this.#io.name}" sent ${what}`,
    }));
  }

  #finish(outcome: Result<JsonValue, ClientError>): void {
    if (this.#phase === "done") return;
    this.#end();
    this.#io.settle(outcome);
  }

  #end(): void {
    this.#phase = "done";
    if (this.#timer !== undefined) this.#io.clock.clearTimer(this.#timer);
    this.#timer = undefined;
  }
}
