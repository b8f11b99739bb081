/**
 * Splits bursts of requests across turns of the event loop. Node answers every request that
 * arrived in one read of a connection before it writes any response: with client-go's single
 * HTTP/2 connection carrying dozens of requests at once, the client then waits for the whole
 * burst and the server for the client's next one, each idle in turn. Starting at most `perTurn`
 * requests per turn (the rest, in arrival order, in the turns right after) lets the first answers
 * go out while the next are computed, so client and server work at the same time.
 */
/**
 * A bound on the requests waiting for a turn: past `limit` waiting, a new one is answered by
 * `refuse` (a 429) unless `exempt` (long-running requests and health probes wait regardless),
 * so a flood costs bounded memory. They are not yet authenticated, so nobody is exempt by user.
 */
export interface TurnQueueBound<R, S> {
  limit: number;
  exempt(req: R): boolean;
  refuse(req: R, res: S): void;
  /** Started at once, never queued (health probes: cheap, and a load balancer must get them answered under load). */
  urgent?(req: R): boolean;
}

export function withTurnBudget<R, S>(handle: (req: R, res: S) => unknown, perTurn: number,
  bound?: TurnQueueBound<R, S>): (req: R, res: S) => void {
  const waiting: Array<[R, S]> = [];
  let startedThisTurn = 0;
  let scheduled = false;

  const nextTurn = (): void => {
    scheduled = false;
    startedThisTurn = 0;
    // What arrived in the meantime waits behind what was already waiting. One splice per turn,
    // not a shift per request: a burst of thousands (watches opening) stays linear.
    const batch = waiting.splice(0, perTurn);
    startedThisTurn = batch.length;
    for (const [req, res] of batch) handle(req, res);
    schedule();
  };

  function schedule(): void {
    if (!scheduled && (startedThisTurn > 0 || waiting.length > 0)) {
      scheduled = true;
      setImmediate(nextTurn);
    }
  }

  return (req: R, res: S) => {
    if (startedThisTurn < perTurn && waiting.length === 0) {
      startedThisTurn++;
      handle(req, res);
    } else if (bound?.urgent?.(req)) {
      handle(req, res);
    } else if (bound && waiting.length >= bound.limit && !bound.exempt(req)) {
      bound.refuse(req, res);
    } else {
      waiting.push([req, res]);
    }
    schedule();
  };
}
