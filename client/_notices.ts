// Private to client/: who hears what a client's server tells unasked: its
// log messages (`onLog`), the changes of its lists (tools, prompts,
// resources: the watchers, and the listen a 2026-07-28 session keeps open
// for them, `_list_listen.ts`), a resource's updates (handed to the
// subscriptions, `_resource_requests.ts`), and a URL elicitation's completion
// (to the answers, `_answers.ts`). A listener that throws changes
// nothing of the client.

import type { Notice } from "./thread/notices.ts";
import type { Generation } from "./_generation.ts";
import { tell, ToolWatchers } from "./_tool_watch.ts";
import { ListListen, type WatchedList } from "./_list_listen.ts";
import { logEntry } from "./_logs.ts";
import type { LogEntry } from "./logs.ts";

/** What the notices of a client need of it. */
export type NoticeHost = {
  /** The server's name. */
  server: string;
  /** The client's generation now. */
  generation: () => Generation;
  /** Hears each log message, when a caller asked to. */
  onLog: ((entry: LogEntry) => void) | undefined;
  /** Hears each update of a resource. */
  updated: (notice: Extract<Notice, { kind: "resource_updated" }>) => void;
  /** Hears that the server forgot its session and a new one was opened. */
  renewed: () => void;
  /** Hears that the interaction at a URL an elicitation named is complete. */
  completed: (elicitationId: string) => void;
};

/** The listeners of one client's notices. */
export class Notices {
  #host: NoticeHost;
  #toolWatchers = new ToolWatchers("tools", () => this.#lists.update());
  #promptWatchers = new ToolWatchers("prompts", () => this.#lists.update());
  #resourceWatchers = new ToolWatchers("resources", () => this.#lists.update());
  // A modern session hears list changes only on a listen that asked for them.
  #lists: ListListen;

  /** The listeners of the client `host` describes. */
  constructor(host: NoticeHost) {
    this.#host = host;
    this.#lists = new ListListen(host.generation, (list) => this.#watchersOf(list).watched);
  }

  /** Calls `listener` whenever the server says `list` changed; returns what stops it. */
  watch(list: WatchedList, listener: () => void): () => void {
    return this.#watchersOf(list).add(listener);
  }

  /** A generation became ready: the listen is matched to it. */
  ready(): void {
    // The generation is ready once its start settles.
    queueMicrotask(() => this.#lists.update());
  }

  /** The server said its tools changed. */
  toolsChanged(): void {
    this.#lists.heard();
    this.#toolWatchers.tell();
  }

  /** What a server told: handed to whoever listens for it; a listener that throws changes nothing. */
  noticed(notice: Notice): void {
    if (notice.kind === "log") {
      return tell(() => this.#host.onLog?.(logEntry(this.#host.server, notice)));
    }
    if (notice.kind === "list_changed") {
      this.#lists.heard();
      if (notice.list === "prompts") return this.#promptWatchers.tell();
      return this.#resourceWatchers.tell();
    }
    if (notice.kind === "resource_updated") this.#host.updated(notice);
    if (notice.kind === "session_renewed") this.#host.renewed();
    if (notice.kind === "elicitation_complete") this.#host.completed(notice.elicitationId);
  }

  #watchersOf(list: WatchedList): ToolWatchers {
    if (list === "tools") return this.#toolWatchers;
    return list === "prompts" ? this.#promptWatchers : this.#resourceWatchers;
  }
}
