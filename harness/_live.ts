// Private to harness/: what a harness exposes of its servers, kept true as
// their listings change. It holds each server's boot report, the exposure of
// each ready server (its listing, the tools withheld, the module, the
// validators), the modules, the surface and every server's pins. A server
// that says its tools changed, or whose stateless-era listing expires, is
// listed again (`_refresh.ts`, bounded), its listing adopted as at boot
// (`_listing.ts`), and its module and part of the surface replaced; code
// mode is handed the new modules, and a program already running keeps the
// ones it was checked against.
//
// Who closes what: the harness's `retire` calls `stop`, which stops the
// watching and the scheduler's timers before the servers are retired; a
// listing under way then changes nothing.

import { BOOT_ABORT_RETIREMENT_MS } from "./limits.ts";
import type { Generated } from "../codegen/generate.ts";
import { moduleSegment } from "../codegen/names.ts";
import { quote } from "../codec/quote.ts";
import type { Census } from "../client/census.ts";
import { ToolIndex } from "./_discovery.ts";
import { DEFAULT_SURFACE_BUDGET_BYTES } from "./limits.ts";
import { bootOne } from "./_boot_one.ts";
import { adoptListing, exposeListing, type Exposure, type ListingContext } from "./_listing.ts";
import { decodePins, definitionDigest, encodePins, type Pins } from "./_pins.ts";
import { type RelistCause, RelistScheduler } from "./_refresh.ts";
import type { BootOptions, PinSet, ServerReport } from "./types.ts";

/** A harness's servers as it exposes them (see the module doc). */
export class LiveListings {
  readonly reports = new Map<string, ServerReport>();

  /**
   * The servers that failed at boot, by the module segment theirs would
   * have, with why: a program importing one is told so.
   */
  absent(): Map<string, string> {
    const found = new Map<string, string>();
    for (const [name, report] of this.reports) {
      if (report.state !== "failed") continue;
      const segment = moduleSegment(name);
      if (segment.ok) {
        found.set(segment.value, `server ${quote(name)} failed at boot (${report.message})`);
      }
    }
    return found;
  }
  readonly modules = new Map<string, Generated>();
  readonly exposures = new Map<string, Exposure>();
  readonly #pins: Map<string, Pins>;
  readonly #census: Census;
  readonly #options: BootOptions;
  readonly #scheduler: RelistScheduler;
  readonly #unwatch: (() => void)[] = [];
  #index: ToolIndex;
  // The tools seen to ask (an elicitation, a sampling request), by server;
  // a mark found while a run is under way waits for the last run's end.
  readonly #asking = new Map<string, Set<string>>();
  #marksPending = false;
  #runs = 0;
  #stopped = false;
  #booted: Promise<void> | undefined;
  /** Told each time the modules change. */
  modulesChanged: (modules: ReadonlyMap<string, Generated>) => void = () => {};

  /** Throws `TypeError` for pins that do not read. */
  constructor(census: Census, options: BootOptions) {
    this.#census = census;
    this.#options = options;
    if (options.pins === undefined) {
      this.#pins = new Map();
    } else {
      const pins = decodePins(options.pins);
      if (!pins.ok) throw new TypeError(`Cannot boot: ${pins.error}`);
      this.#pins = pins.value;
    }
    this.#scheduler = new RelistScheduler((server, cause) => this.#relist(server, cause));
    this.#index = this.#indexOf();
  }

  /** What the model reads now. */
  get surface(): string {
    return this.#index.surface;
  }

  /**
   * The surface, the search and the blocks of the listings as they are now:
   * a new one each time a listing changes (read it again for each use).
   */
  get index(): ToolIndex {
    return this.#index;
  }

  #indexOf(): ToolIndex {
    const budget = this.#options.surfaceBudgetBytes ?? DEFAULT_SURFACE_BUDGET_BYTES;
    this.#marksPending = false;
    return new ToolIndex(this.reports, budget, this.exposures, this.#asking);
  }

  /**
   * Records that `tool` (a wire name) of `server` asked during a call; the
   * surface and `describe` say so from their next rendering, once no run is
   * under way (a run reads one surface from its start to its end).
   */
  markAsking(server: string, tool: string): void {
    let tools = this.#asking.get(server);
    if (tools === undefined) this.#asking.set(server, tools = new Set());
    if (tools.has(tool)) return;
    tools.add(tool);
    this.#marksPending = true;
    if (this.#runs === 0) this.#index = this.#indexOf();
  }

  /** A run starts: marks wait for the end of the last run. */
  runStarted(): void {
    this.#runs++;
  }

  /** A run ended: marks found meanwhile are rendered when it was the last. */
  runEnded(): void {
    this.#runs--;
    if (this.#runs === 0 && this.#marksPending && !this.#stopped) this.#index = this.#indexOf();
  }

  /**
   * Boots every server of the census in parallel, each to its end before a
   * throw leaves, and reports each as it ends.
   */
  boot(): Promise<void> {
    return this.#booted ??= this.#boot();
  }

  async #boot(): Promise<void> {
    const started = performance.now();
    const names = [...this.#census.clients.keys()];
    for (const name of names) {
      const client = this.#census.clients.get(name);
      // Watched before the listing: a change said while it is taken is not lost.
      if (client !== undefined) {
        this.#unwatch.push(client.watchTools(() => this.#scheduler.changed(name)));
      }
    }
    // An abort retires every server whose boot has not ended: its start (or
    // listing) settles as failed, and the boot below ends with it.
    const booting = new Set(names);
    const signal = this.#options.signal;
    const giveUp = () => {
      for (const name of booting) {
        void this.#census.clients.get(name)?.retire({ timeoutMs: BOOT_ABORT_RETIREMENT_MS });
      }
    };
    signal?.addEventListener("abort", giveUp, { once: true });
    if (signal?.aborted) giveUp();
    const settled = await Promise.allSettled(names.map(async (name) => {
      const booted = await bootOne(
        this.#census,
        name,
        started,
        this.#options,
        this.#context(name),
        (at) => this.#scheduler.listed(name, at),
      );
      booting.delete(name);
      this.#options.onServer?.(booted.report);
      return booted;
    })).finally(() => signal?.removeEventListener("abort", giveUp));
    for (const outcome of settled) {
      if (outcome.status === "rejected") throw outcome.reason;
    }
    for (const outcome of settled) {
      const { report, exposure, listed } = (outcome as PromiseFulfilledResult<
        Awaited<ReturnType<typeof bootOne>>
      >).value;
      this.reports.set(report.name, report);
      if (exposure === undefined) continue;
      this.exposures.set(report.name, exposure);
      this.modules.set(report.name, exposure.generated);
      if (listed !== undefined) this.#scheduler.listed(report.name, listed.at, listed.ttlMs);
    }
    this.#index = this.#indexOf();
  }

  /** A server was started again and lists other tools: they are judged as a change it said. */
  restarted(server: string): void {
    this.#scheduler.changed(server);
  }

  /** Every server's pins, those of servers not booted here included. */
  pins(): PinSet {
    return encodePins(this.#pins);
  }

  /** Accepts withheld definitions of `server` now (see `Harness.acceptTools`). */
  acceptTools(server: string, tools?: readonly string[]): Promise<string[]> {
    if (!this.reports.has(server)) {
      throw new TypeError(`Cannot accept tools of ${JSON.stringify(server)}: no such server`);
    }
    const exposure = this.exposures.get(server);
    if (exposure === undefined || this.#stopped) return Promise.resolve([]);
    const names = tools === undefined
      ? [...exposure.withheld.keys()]
      : [...new Set(tools.map((name) => String(name)))];
    const accepted = names.filter((name) => {
      const reason = exposure.withheld.get(name);
      return reason === "changed" || reason === "added";
    });
    if (accepted.length === 0) return Promise.resolve([]);
    const pins = this.#pins.get(server) ?? new Map();
    this.#pins.set(server, pins);
    const before = new Map(pins);
    for (const name of accepted) {
      const tool = exposure.byWire.get(name);
      if (tool !== undefined) pins.set(name, { digest: definitionDigest(tool), removed: false });
    }
    const exposed = exposeListing(this.#context(server), exposure.tools);
    if (!exposed.ok) {
      // A module that cannot be made of them: nothing is accepted.
      pins.clear();
      for (const [name, pin] of before) pins.set(name, pin);
      return Promise.resolve([]);
    }
    this.#install(server, exposed.value);
    return Promise.resolve(accepted);
  }

  /** Stops watching the servers and listing them again. */
  stop(): void {
    this.#stopped = true;
    for (const unwatch of this.#unwatch.splice(0)) unwatch();
    this.#scheduler.stop();
  }

  #context(server: string): ListingContext {
    const spec = this.#census.clients.get(server)?.spec;
    if (spec === undefined) throw new TypeError(`Server ${JSON.stringify(server)} is missing`);
    return {
      spec,
      pins: this.#pins,
      options: this.#options,
      info: () => this.#census.clients.get(server)?.serverInfo,
    };
  }

  async #relist(server: string, cause: RelistCause): Promise<number | undefined> {
    // A change said while the boot lists the server waits for the boot to end.
    await this.#booted?.catch(() => {});
    const client = this.#census.clients.get(server);
    if (this.#stopped || client === undefined || !this.exposures.has(server)) return undefined;
    const timeoutMs = this.#options.listTimeoutMs;
    const listed = await client.listing(timeoutMs === undefined ? {} : { timeoutMs });
    if (!listed.ok || this.#stopped) return undefined;
    const adopted = await adoptListing(this.#context(server), listed.value.tools, cause);
    if (adopted.ok && !this.#stopped) this.#install(server, adopted.value.exposure);
    return listed.value.ttlMs;
  }

  #install(server: string, exposure: Exposure): void {
    this.exposures.set(server, exposure);
    this.modules.set(server, exposure.generated);
    const report = this.reports.get(server);
    if (report?.state === "ready") {
      this.reports.set(server, {
        ...report,
        tools: exposure.tools,
        generated: exposure.generated,
        withheld: exposure.withheld,
      });
    }
    this.#index = this.#indexOf();
    this.modulesChanged(this.modules);
  }
}
