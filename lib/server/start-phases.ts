/**
 * Where a start's time goes: each phase of startServer() timed from the previous mark, logged
 * once as one line at `-v=2` (`start-up phases`), with the time since the process began (Node's
 * boot and module loading are the first entry). Costs one performance.now() per phase.
 */
import { logger, v } from '../logger';

export class StartPhases {
  private readonly phases: Record<string, number> = {};
  private last = performance.now();

  constructor() {
    this.phases.process = Math.round(this.last);
  }

  /** The phase that ended now, named after what it did. */
  mark(phase: string): void {
    const now = performance.now();
    this.phases[phase] = Math.round(now - this.last);
    this.last = now;
  }

  /** Logs the phases (ms) and the total since the process began. */
  log(): void {
    if (v(2)) logger.info('start-up phases', { ms: this.phases, total: Math.round(this.last) });
  }
}
