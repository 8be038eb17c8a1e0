// Private to client/: who hears that a server's tools (or prompts, or
// resources) changed. A listener that throws stops no other, and never the
// client.

/** The listeners of one client's changes of one list. */
export class ToolWatchers {
  #listeners = new Set<() => void>();
  #noun: string;

  /** Listeners of the list named `noun` (in a misuse's message). */
  constructor(noun = "tools") {
    this.#noun = noun;
  }

  /** Adds a listener; returns the function that removes it. */
  add(listener: () => void): () => void {
    if (typeof listener !== "function") {
      throw new TypeError(`Cannot watch the ${this.#noun}: the listener is not a function`);
    }
    const watcher = () => listener();
    this.#listeners.add(watcher);
    return () => void this.#listeners.delete(watcher);
  }

  /** Tells every listener. */
  tell(): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch {
        // The listener's failure is its own; the client goes on.
      }
    }
  }
}
