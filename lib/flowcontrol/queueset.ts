/**
 * One priority level's queue set, as kube-apiserver's fair queuing
 * (k8s.io/apiserver pkg/util/flowcontrol/fairqueuing/queueset): a request is shuffle-sharded to
 * the queue of its hand holding the least waiting work, refused when the level is full and that
 * queue is at queueLengthLimit (`queue-full`), and dispatched when seats are free from the queue
 * whose oldest request has the least virtual finish time. Virtual time R advances at
 * min(seats requested, limit) / active queues per second, so each active queue gets an equal
 * share of the level's seats whatever its flow sends (fairness between flows).
 * A level with limitResponse Reject has no queues: a request runs at once or is refused
 * (`concurrency-limit`). Seats are held for a request's execution, then its final seats for its
 * additional latency (writes with many watchers), as kube's work estimates say.
 */
import { performance } from 'node:perf_hooks';
import { dealIntoHand } from './dealer';
import type { RejectReason } from './metrics';

/** kube's estimatedServiceDuration: the guess of a request's time, corrected when it finishes. */
const ESTIMATED_SERVICE_SECONDS = 0.003;

export interface QueuingConfig { queues: number; handSize: number; queueLengthLimit: number }

/** A request's seats (kube's WorkEstimate). */
export interface WorkEstimate { initialSeats: number; finalSeats: number; additionalLatencyMs: number }

interface Queue { index: number; waiting: WaitingRequest[]; nextDispatchR: number; seatsInUse: number; executing: number }

export interface WaitingRequest {
  readonly work: WorkEstimate;
  queue?: Queue;
  arrivalR: number;
  /** Called once: dispatched (a ticket) or refused. */
  settle(outcome: Ticket | RejectReason): void;
}

/** A running request's hold on its seats; `finish` gives them back (once). */
export interface Ticket { finish(): void }

export class QueueSet {
  private readonly queues: Queue[] = [];
  private readonly hands = new Map<string, number[]>();
  private seatsInUse = 0;
  private executing = 0;
  private waitingCount = 0;
  private waitingSeats = 0;
  private activeQueues = 0;
  private currentR = 0;
  private lastSync: number;
  private enqueues = 0;
  private robin = -1;

  /** `now`: milliseconds (tests drive a fake clock). */
  constructor(readonly config: QueuingConfig, public concurrencyLimit: number, private readonly onChange: () => void = () => {},
    private readonly now: () => number = () => performance.now()) {
    this.lastSync = now();
    for (let i = 0; i < config.queues; i++) this.queues.push({ index: i, waiting: [], nextDispatchR: 0, seatsInUse: 0, executing: 0 });
  }

  /** Seats executing plus seats waiting: the level's seat demand. */
  get demand(): number { return this.seatsInUse + this.waitingSeats; }
  get seatsExecuting(): number { return this.seatsInUse; }
  get requestsWaiting(): number { return this.waitingCount; }
  get requestsExecuting(): number { return this.executing; }

  /**
   * Starts a request of flow `flowKey` (`hash` gives its hand). Answers a ticket (run now), a
   * reason (refused now), or the waiting request (settled later; `cancel` it on time-out).
   */
  start(work: WorkEstimate, flowKey: string, hash: () => bigint, settle: WaitingRequest['settle']): Ticket | RejectReason | WaitingRequest {
    this.syncTime();
    const seats = Math.max(work.initialSeats, work.finalSeats);
    if (this.config.queues < 1) {
      if (!this.canAccommodate(seats)) return 'concurrency-limit';
      return this.dispatch(work, undefined);
    }
    const queue = this.queues[this.chooseQueue(flowKey, hash)];
    if (this.seatsInUse >= this.concurrencyLimit && queue.waiting.length >= this.config.queueLengthLimit) return 'queue-full';
    if (this.waitingCount === 0 && this.canAccommodate(seats)) {
      // Nothing waits and the seats are free: enqueueing it and dispatching as much as possible
      // would dispatch this request from its queue at once. The same bookkeeping, without the
      // round through the queue (kube's enqueue then dispatchAsMuchAsPossibleLocked).
      if (queue.executing === 0) {
        queue.nextDispatchR = this.currentR;
        this.activeQueues++;
      }
      queue.nextDispatchR += totalWork(work);
      this.robin = queue.index;
      const ticket = this.dispatch(work, queue);
      this.onChange();
      return ticket;
    }
    // Dispatched while still in start (seats free): answered as a ticket, not through settle.
    let inStart = true;
    let now: Ticket | RejectReason | undefined;
    const req: WaitingRequest = { work, queue, arrivalR: this.currentR, settle: (o) => { if (inStart) now = o; else settle(o); } };
    if (queue.waiting.length === 0 && queue.executing === 0) {
      queue.nextDispatchR = this.currentR;
      this.activeQueues++;
    }
    queue.waiting.push(req);
    this.waitingCount++;
    this.waitingSeats += seats;
    this.dispatchAsMuchAsPossible();
    inStart = false;
    this.onChange();
    return now ?? req;
  }

  /** How long the queue of a waiting request is (the queue-length metric). */
  queueLength(req: WaitingRequest): number { return req.queue?.waiting.length ?? 0; }

  /** Takes a request that still waits out of its queue (time-out, client gone); false if it was dispatched. */
  cancel(req: WaitingRequest): boolean {
    const q = req.queue;
    if (!q) return false;
    const i = q.waiting.indexOf(req);
    if (i < 0) return false;
    this.syncTime();
    q.waiting.splice(i, 1);
    this.waitingCount--;
    this.waitingSeats -= Math.max(req.work.initialSeats, req.work.finalSeats);
    if (q.waiting.length === 0 && q.executing === 0) this.activeQueues--;
    req.queue = undefined;
    this.onChange();
    return true;
  }

  /** A new limit (borrowing, configuration): waiting requests may now fit. */
  setLimit(limit: number): void {
    this.concurrencyLimit = limit;
    this.syncTime();
    this.dispatchAsMuchAsPossible();
  }

  private chooseQueue(flowKey: string, hash: () => bigint): number {
    let hand = this.hands.get(flowKey);
    if (!hand) {
      hand = dealIntoHand(hash(), this.config.queues, Math.min(this.config.handSize, this.config.queues));
      if (this.hands.size >= 10_000) this.hands.clear();
      this.hands.set(flowKey, hand);
    }
    // kube: start at a rotating offset, take the queue with the least waiting work.
    const n = hand.length;
    const offset = this.enqueues++ % n;
    let best = hand[offset];
    let bestWork = Infinity;
    for (let i = 0; i < n; i++) {
      const idx = hand[(offset + i) % n];
      let work = 0;
      for (const r of this.queues[idx].waiting) work += totalWork(r.work);
      if (work < bestWork) { bestWork = work; best = idx; }
    }
    return best;
  }

  private canAccommodate(seats: number): boolean {
    if (seats > this.concurrencyLimit) return this.executing === 0;
    return this.seatsInUse + seats <= this.concurrencyLimit;
  }

  private dispatchAsMuchAsPossible(): void {
    while (this.waitingCount > 0) {
      let min: Queue | undefined;
      let minIndex = -1;
      let minFinish = Infinity;
      const nq = this.queues.length;
      for (let k = 0; k < nq; k++) {
        this.robin = (this.robin + 1) % nq;
        const q = this.queues[this.robin];
        if (q.waiting.length === 0) continue;
        const finish = q.nextDispatchR + totalWork(q.waiting[0].work);
        if (finish < minFinish) { minFinish = finish; min = q; minIndex = this.robin; }
      }
      if (!min) return;
      const req = min.waiting[0];
      if (!this.canAccommodate(Math.max(req.work.initialSeats, req.work.finalSeats))) return;
      min.waiting.shift();
      this.waitingCount--;
      this.waitingSeats -= Math.max(req.work.initialSeats, req.work.finalSeats);
      this.robin = minIndex;
      min.nextDispatchR += totalWork(req.work);
      req.queue = undefined;
      req.settle(this.dispatch(req.work, min));
    }
  }

  private dispatch(work: WorkEstimate, queue: Queue | undefined): Ticket {
    const seats = work.initialSeats;
    this.seatsInUse += seats;
    this.executing++;
    if (queue) { queue.seatsInUse += seats; queue.executing++; }
    // Every path here has just synced virtual time: its clock reading is the start.
    const started = this.lastSync;
    let done = false;
    const release = (n: number) => {
      this.syncTime();
      this.seatsInUse -= n;
      if (queue) queue.seatsInUse -= n;
    };
    return {
      finish: () => {
        if (done) return;
        done = true;
        release(seats);
        const actual = (this.lastSync - started) / 1000;
        this.executing--;
        if (queue) {
          queue.executing--;
          // kube: the queue's R is corrected by (estimated - actual) x seats.
          queue.nextDispatchR -= seats * (ESTIMATED_SERVICE_SECONDS - actual);
          if (queue.waiting.length === 0 && queue.executing === 0) this.activeQueues--;
        }
        if (work.finalSeats > 0 && work.additionalLatencyMs > 0) {
          // The watchers' share of a write: its final seats for its additional latency.
          this.seatsInUse += work.finalSeats;
          setTimeout(() => { release(work.finalSeats); this.dispatchAsMuchAsPossible(); this.onChange(); }, work.additionalLatencyMs).unref();
        }
        this.dispatchAsMuchAsPossible();
        this.onChange();
      },
    };
  }

  /** Advances virtual time to now (kube's syncTimeLocked). */
  private syncTime(): void {
    const now = this.now();
    const dt = (now - this.lastSync) / 1000;
    this.lastSync = now;
    if (this.activeQueues > 0) this.currentR += dt * Math.min(this.demand, this.concurrencyLimit) / this.activeQueues;
  }
}

function totalWork(w: WorkEstimate): number {
  return w.initialSeats * ESTIMATED_SERVICE_SECONDS + w.finalSeats * w.additionalLatencyMs / 1000;
}
