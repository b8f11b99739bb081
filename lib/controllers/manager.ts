/**
 * The in-process controller manager: the controllers --controllers turns on, made from their
 * factories and started and stopped together. Each term of running makes fresh instances (a
 * controller is never started twice), so that leader election can stop them when this replica
 * loses its lease and start new ones when it holds it again.
 */
import { ControllerName, controllerEnabled } from './enabled';

/** What every controller of this server is. */
export interface Controller {
  start(): Promise<void>;
  stop(): Promise<void> | void;
}

export interface ControllerEntry {
  name: ControllerName;
  make(): Controller | undefined;
}

/** What runs the controllers only while this replica leads (leader-election.ts's LeaderElector). */
export interface Elector {
  /** Tries to lead at once (starting the controllers when it does), then keeps trying. */
  start(): Promise<void>;
  /** Stops the controllers and gives up the lease. */
  stop(): Promise<void>;
  isLeader(): boolean;
  readonly identity: string;
}

export class ControllerManager {
  private readonly entries: ControllerEntry[] = [];
  private running: { name: ControllerName; controller: Controller }[] = [];
  private leaderElector?: Elector;

  /** Enabled controllers whose factory found the server lacking a resource they need. */
  private readonly unavailable = new Set<ControllerName>();
  private warned = false;

  /**
   * `entries`: the --controllers list; `warn` hears once which enabled controllers cannot run
   * (a resource they need is not served, e.g. switched off by --runtime-config).
   */
  constructor(private readonly enabledEntries: readonly string[], private readonly warn?: (message: string) => void) {}

  /**
   * Registers a controller by name; its factory is called only when --controllers enables it
   * (and may answer undefined when the server lacks what it needs).
   */
  add(name: ControllerName, make: () => Controller | undefined): void {
    if (controllerEnabled(name, this.enabledEntries)) this.entries.push({ name, make });
  }

  /** The names registered and enabled, in start order. */
  names(): ControllerName[] {
    return this.entries.map((e) => e.name);
  }

  /** Names of the controllers running now. */
  runningNames(): ControllerName[] {
    return this.running.map((r) => r.name);
  }

  /** Makes and starts every enabled controller, in order (a no-op while they run). */
  async startAll(): Promise<void> {
    if (this.running.length) return;
    for (const entry of this.entries) {
      const controller = entry.make();
      if (!controller) { this.unavailable.add(entry.name); continue; }
      this.running.push({ name: entry.name, controller });
      await controller.start();
    }
    if (this.unavailable.size && !this.warned) {
      this.warned = true;
      this.warn?.(`controllers not started, a resource they need is not served: ${[...this.unavailable].join(', ')}`);
    }
  }

  /** Enabled controllers not running because a resource they need is not served. */
  unavailableNames(): ControllerName[] {
    return [...this.unavailable];
  }

  /** The election the controllers run under (--leader-elect), if any. */
  get elector(): Elector | undefined {
    return this.leaderElector;
  }

  /**
   * Runs the controllers under `elector` (which calls startAll / stopAll as this replica gains
   * and loses its lease), or, without one (--leader-elect=false), starts them now.
   */
  async run(elector?: Elector): Promise<void> {
    this.leaderElector = elector;
    if (elector) await elector.start();
    else await this.startAll();
  }

  /** Stops the controllers for good: through the elector (releasing the lease) when there is one. */
  async shutdown(): Promise<void> {
    if (this.leaderElector) await this.leaderElector.stop();
    await this.stopAll();
  }

  /** Stops the running controllers, last started first. */
  async stopAll(): Promise<void> {
    const running = this.running.reverse();
    this.running = [];
    for (const r of running) await r.controller.stop();
  }
}
