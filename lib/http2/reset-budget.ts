/**
 * How many stream resets a client may cause: a token bucket of `burst` resets that refills at
 * `perSecond` (nghttp2's defaults, 1000 and 33, which node:http2 uses). It counts the streams the
 * client resets itself (rapid reset, CVE-2023-44487) and the streams the server resets because of
 * what the client sent (MadeYouReset, CVE-2025-8671: a WINDOW_UPDATE of 0, DATA past a stream's
 * window, a malformed request), so that neither way makes the server start and abandon requests
 * without end.
 */
export class ResetBudget {
  private tokens: number;
  private last = Date.now();

  constructor(private readonly burst = 1000, private readonly perSecond = 33) {
    this.tokens = burst;
  }

  /** Spends one reset; false when the budget is gone (the session must end). */
  take(): boolean {
    const now = Date.now();
    if (now > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.perSecond);
      this.last = now;
    }
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
