/**
 * What one thread sends another carries its place in order (0, 1, 2, …),
 * and the receiver acts on each in that order, however it arrived: the
 * batches of calls cross a ring of shared memory (`ring.ts`) while control
 * messages are posted, and either may overtake the other.
 *
 * @module
 */

/** The receiving side of an ordered channel: runs each action at its turn. */
export class InOrder {
  #next = 0;
  #early = new Map<number, () => void>();

  /**
   * Runs `act` now if `order` is next, with every action held that follows
   * it; holds it while an earlier one is missing. Returns false, running
   * nothing, for an order that is not a count, that came before, or that
   * is already held: a sender that breaks the order.
   */
  take(order: number, act: () => void): boolean {
    if (!Number.isSafeInteger(order) || order < this.#next || this.#early.has(order)) return false;
    if (order !== this.#next) {
      this.#early.set(order, act);
      return true;
    }
    act();
    this.#next++;
    for (let held = this.#early.get(this.#next); held !== undefined;) {
      this.#early.delete(this.#next);
      held();
      held = this.#early.get(++this.#next);
    }
    return true;
  }
}
