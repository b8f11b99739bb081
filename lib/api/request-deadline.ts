/**
 * The deadline of one request (`ctx.state.deadline`), for work that can stop when it passes.
 * Cheaper than an AbortSignal, an EventTarget whose making and listening cost more than the
 * request body's read. Set and expired by the request timeout (lib/server/request-timeout.ts);
 * here so the handlers that read it need not import the server's filter chain.
 */
export class RequestDeadline {
  private expiredFlag = false;
  private callbacks?: Array<() => void>;

  get expired(): boolean {
    return this.expiredFlag;
  }

  /** Calls `cb` once when the deadline passes; the returned function cancels that. */
  onExpire(cb: () => void): () => void {
    (this.callbacks ??= []).push(cb);
    return () => {
      const i = this.callbacks?.indexOf(cb) ?? -1;
      if (i >= 0) this.callbacks!.splice(i, 1);
    };
  }

  expire(): void {
    if (this.expiredFlag) return;
    this.expiredFlag = true;
    const callbacks = this.callbacks ?? [];
    this.callbacks = undefined;
    for (const cb of callbacks) cb();
  }
}
