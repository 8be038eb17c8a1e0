// Private to client/: the one `subscriptions/listen` a 2026-07-28 session
// keeps open for the list changes someone watches. Its server tells list
// changes only on a listen that asked for them, so the client asks for
// exactly the lists watched that the server declared `listChanged` for,
// opens it again when that set or the generation changes, and closes it
// when nobody watches. A listen the server ends is opened again after a
// wait that doubles up to MAX_LIST_LISTEN_BACKOFF_MS: never a hot loop.

import { compactJson, isJsonObject } from "../codec/json.ts";
import {
  LIST_LISTEN_BACKOFF_MS,
  MAX_LIST_LISTEN_BACKOFF_MS,
  MAX_TIMEOUT_MS,
} from "../settings/limits.ts";
import type { Generation } from "./_generation.ts";

/** The lists whose changes a listen may ask for, in the order it asks. */
const LISTS = ["tools", "prompts", "resources"] as const;

/** A list whose changes may be watched. */
export type WatchedList = typeof LISTS[number];

type Open = { generation: Generation; key: string; stop: AbortController };

/** Keeps one client's listen for list changes matched to who watches. */
export class ListListen {
  #generation: () => Generation;
  #watched: (list: WatchedList) => boolean;
  #open: Open | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  // The generation a pending reopening is for.
  #waiting: Generation | undefined;
  #waitMs = LIST_LISTEN_BACKOFF_MS;

  /** A listen for the generation `generation()` names, of the lists `watched` says. */
  constructor(generation: () => Generation, watched: (list: WatchedList) => boolean) {
    this.#generation = generation;
    this.#watched = watched;
  }

  /** Opens, reopens or closes the listen to match who watches now. */
  update(): void {
    const generation = this.#generation();
    const lists = this.#wanted(generation);
    const key = lists.join(",");
    const open = this.#open;
    if (open !== undefined && open.generation === generation && open.key === key) return;
    // A reopening already waited for opens what is wanted when its wait ends.
    if (open === undefined && this.#waiting === generation && lists.length > 0) return;
    this.#close();
    const era = generation.era;
    if (lists.length === 0 || era.listChanges === undefined || era.subscription.kind !== "listen") {
      return;
    }
    const params = compactJson(era.listChanges(lists));
    const opened: Open = { generation, key, stop: new AbortController() };
    this.#open = opened;
    void generation
      .request(era.subscription.method, params, MAX_TIMEOUT_MS, opened.stop.signal)
      .then(() => {
        if (this.#open !== opened) return;
        this.#open = undefined;
        // A generation that ended is replaced by one whose start updates again.
        if (this.#generation() !== generation || generation.state !== "ready") return;
        const waitMs = this.#waitMs;
        this.#waitMs = Math.min(waitMs * 2, MAX_LIST_LISTEN_BACKOFF_MS);
        this.#waiting = generation;
        this.#timer = setTimeout(() => {
          this.#timer = undefined;
          this.#waiting = undefined;
          this.update();
        }, waitMs);
      });
  }

  /** A change the listen told: the server keeps it, so the next end waits the least again. */
  heard(): void {
    this.#waitMs = LIST_LISTEN_BACKOFF_MS;
  }

  #wanted(generation: Generation): WatchedList[] {
    if (generation.state !== "ready") return [];
    const capabilities = generation.info?.capabilities ?? {};
    return LISTS.filter((list) => {
      const declared = capabilities[list];
      return this.#watched(list) && isJsonObject(declared) && declared.listChanged === true;
    });
  }

  #close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#waiting !== this.#generation()) this.#waitMs = LIST_LISTEN_BACKOFF_MS;
    this.#waiting = undefined;
    this.#open?.stop.abort();
    this.#open = undefined;
  }
}
