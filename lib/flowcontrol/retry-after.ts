/**
 * The Retry-After of a 429 from priority and fairness, per priority level, as kube-apiserver
 * 1.32's dropped-requests tracker (dropped_requests_tracker.go): it starts at 1 s, doubles (up to
 * 32 s) when at least 3 x Retry-After requests were refused in the last Retry-After seconds, and
 * shrinks by 1 s when fewer than Retry-After were: clients back off more the longer a level drowns.
 */
const MAX_RETRY_AFTER = 32;

class LevelStats {
  retryAfter = 1;
  private updatedAt: number;
  private history: { second: number; count: number }[] = [];

  constructor(now: number) { this.updatedAt = now; }

  record(second: number): void {
    const last = this.history[this.history.length - 1];
    if (last && last.second === second) {
      last.count++;
      return;
    }
    // A new second: first adjust on the seconds before it, then start counting it.
    this.adjust(second);
    this.history.push({ second, count: 1 });
    const keep = Math.min(2 * this.retryAfter, MAX_RETRY_AFTER);
    while (this.history.length > 0 && second - this.history[0].second > keep) this.history.shift();
  }

  private adjust(second: number): void {
    let dropped = 0;
    for (let i = this.history.length - 1; i >= 0; i--) {
      if (second - this.history[i].second > this.retryAfter) break;
      if (this.history[i].second < second) dropped += this.history[i].count;
    }
    if (second - this.updatedAt >= this.retryAfter && dropped >= 3 * this.retryAfter) {
      this.retryAfter = Math.min(this.retryAfter * 2, MAX_RETRY_AFTER);
      this.updatedAt = second;
    } else if (dropped < this.retryAfter && this.retryAfter > 1) {
      this.retryAfter--;
    }
  }
}

export class DroppedRequestsTracker {
  private readonly levels = new Map<string, LevelStats>();

  constructor(private readonly now: () => number = () => Math.floor(Date.now() / 1000)) {}

  record(level: string): void {
    const second = this.now();
    let s = this.levels.get(level);
    if (!s) {
      s = new LevelStats(second);
      this.levels.set(level, s);
    }
    s.record(second);
  }

  /** Seconds a refused client of `level` is told to wait. */
  retryAfter(level: string): number {
    return this.levels.get(level)?.retryAfter ?? 1;
  }
}
