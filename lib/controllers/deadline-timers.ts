/**
 * One timer per key that fires at a wall-clock deadline (a token's expiration, say). Deadlines
 * beyond setTimeout's range (about 24.8 days) are reached in steps; setting a key again
 * replaces its timer.
 */
const MAX_DELAY_MS = 2_147_483_647;

export class DeadlineTimers {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly fire: (key: string) => void) {}

  /** Calls fire(key) once `at` (ms since the epoch) has passed. */
  set(key: string, at: number): void {
    this.clear(key);
    const delay = Math.max(0, at - Date.now());
    const timer = setTimeout(() => {
      this.timers.delete(key);
      if (delay > MAX_DELAY_MS) this.set(key, at);
      else this.fire(key);
    }, Math.min(delay, MAX_DELAY_MS));
    timer.unref();
    this.timers.set(key, timer);
  }

  clear(key: string): void {
    const t = this.timers.get(key);
    if (t) clearTimeout(t);
    this.timers.delete(key);
  }

  clearAll(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
