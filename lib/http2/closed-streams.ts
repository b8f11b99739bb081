/**
 * What the session remembers of streams no longer open, to answer a late frame on one as RFC 9113
 * 5.1 asks: frames on a stream this server reset are ignored (the client may have sent them before
 * it saw the reset); other frames on a closed stream are the client's error (STREAM_CLOSED); and a
 * HEADERS for a lower stream id that was never opened is an unexpected identifier (PROTOCOL_ERROR,
 * 5.1.1). Only the most recent `limit` streams are remembered, so a long session costs no more;
 * an older one counts as never opened, which is a connection error all the same.
 */
export const enum ClosedAs {
  /** Both sides ended it, or the client reset it. */
  Closed,
  /** This server reset it (or refused, or ignored it after GOAWAY). */
  ResetHere,
}

export class ClosedStreams {
  private readonly streams = new Map<number, ClosedAs>();

  constructor(private readonly limit = 1024) {}

  add(id: number, how: ClosedAs): void {
    this.streams.set(id, how);
    if (this.streams.size > this.limit) this.streams.delete(this.streams.keys().next().value as number);
  }

  get(id: number): ClosedAs | undefined {
    return this.streams.get(id);
  }
}
