/**
 * API priority and fairness metrics as kube-apiserver 1.32 names them
 * (k8s.io/apiserver pkg/util/flowcontrol/metrics): labels priority_level, flow_schema (in that
 * order), stability levels and buckets as kube's. One flow (schema x level) resolves its series
 * once; the dispatcher then records without building labels.
 */
import type { MetricsRegistry } from '../metrics/registry';
import type { CounterChild, HistogramChild } from '../metrics/fast';

const DURATION_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];
const QUEUE_LENGTH_BUCKETS = [0, 10, 25, 50, 100, 250, 500, 1000];

export type RejectReason = 'queue-full' | 'time-out' | 'concurrency-limit' | 'cancelled';

interface GaugeChild { inc(n?: number): void; dec(n?: number): void; set(n: number): void }

/**
 * A gauge series kept as a plain number on the request path and handed to prom-client only when
 * /metrics is scraped (its `collect`): prom-client's own Gauge hashes and validates the labels on
 * every inc() and dec(), even through a child, and a request moves three of these gauges twice.
 */
class PlainGauge implements GaugeChild {
  value = 0;
  constructor(readonly labels: readonly [string, string]) {}
  inc(n = 1): void { this.value += n; }
  dec(n = 1): void { this.value -= n; }
  set(n: number): void { this.value = n; }
}

/** The series of one gauge, by flow; `collect` copies them into prom-client at each scrape. */
class PlainGaugeFamily {
  private readonly series = new Map<string, PlainGauge>();
  child(key: string, level: string, flowSchema: string): PlainGauge {
    let g = this.series.get(key);
    if (!g) this.series.set(key, g = new PlainGauge([level, flowSchema]));
    return g;
  }
  collect(gauge: { labels(...values: string[]): { set(n: number): void } }): void {
    for (const g of this.series.values()) gauge.labels(...g.labels).set(g.value);
  }
}

/** The series of one flow schema within one priority level. */
export interface FlowRecorder {
  dispatched: CounterChild;
  rejected(reason: RejectReason): void;
  inqueue: GaugeChild;
  executing: GaugeChild;
  seats: GaugeChild;
  waitExecuted: HistogramChild;
  waitRejected: HistogramChild;
  execution: HistogramChild;
  queueLength: HistogramChild;
  estimatedSeats: HistogramChild;
}

export class FlowControlMetrics {
  private readonly dispatched;
  private readonly rejected;
  private readonly inqueue;
  private readonly executing;
  private readonly seats;
  private readonly wait;
  private readonly execution;
  private readonly queueLength;
  private readonly estimatedSeats;
  private readonly concurrencyLimit;
  private readonly nominal;
  private readonly current;
  private readonly flows = new Map<string, FlowRecorder>();
  private readonly inqueueSeries = new PlainGaugeFamily();
  private readonly executingSeries = new PlainGaugeFamily();
  private readonly seatsSeries = new PlainGaugeFamily();

  constructor(registry: MetricsRegistry) {
    const labelNames = ['priority_level', 'flow_schema'] as const;
    this.dispatched = registry.counter({ name: 'apiserver_flowcontrol_dispatched_requests_total', labelNames, stability: 'BETA',
      help: 'Number of requests executed by API Priority and Fairness subsystem' });
    this.rejected = registry.counter({ name: 'apiserver_flowcontrol_rejected_requests_total', labelNames: [...labelNames, 'reason'], stability: 'BETA',
      help: 'Number of requests rejected by API Priority and Fairness subsystem' });
    const inqueue = this.inqueueSeries, executing = this.executingSeries, seats = this.seatsSeries;
    this.inqueue = registry.gauge({ name: 'apiserver_flowcontrol_current_inqueue_requests', labelNames, stability: 'BETA', collect() { inqueue.collect(this); },
      help: 'Number of requests currently pending in queues of the API Priority and Fairness subsystem' });
    this.executing = registry.gauge({ name: 'apiserver_flowcontrol_current_executing_requests', labelNames, stability: 'BETA', collect() { executing.collect(this); },
      help: 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem' });
    this.seats = registry.gauge({ name: 'apiserver_flowcontrol_current_executing_seats', labelNames, stability: 'BETA', collect() { seats.collect(this); },
      help: 'Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem' });
    this.wait = registry.histogram({ name: 'apiserver_flowcontrol_request_wait_duration_seconds', labelNames: [...labelNames, 'execute'], stability: 'BETA',
      buckets: DURATION_BUCKETS, help: 'Length of time a request spent waiting in its queue' });
    this.execution = registry.histogram({ name: 'apiserver_flowcontrol_request_execution_seconds', labelNames: [...labelNames, 'type'],
      buckets: DURATION_BUCKETS, help: 'Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem' });
    this.queueLength = registry.histogram({ name: 'apiserver_flowcontrol_request_queue_length_after_enqueue', labelNames,
      buckets: QUEUE_LENGTH_BUCKETS, help: 'Length of queue in the API Priority and Fairness subsystem, as seen by each request after it is enqueued' });
    this.estimatedSeats = registry.histogram({ name: 'apiserver_flowcontrol_work_estimated_seats', labelNames, buckets: [1, 2, 4, 10],
      help: 'Number of estimated seats (maximum of initial and final seats) associated with requests in API Priority and Fairness' });
    this.concurrencyLimit = registry.gauge({ name: 'apiserver_flowcontrol_request_concurrency_limit', labelNames: ['priority_level'], deprecatedVersion: '1.30.0',
      help: 'Nominal number of execution seats configured for each priority level' });
    this.nominal = registry.gauge({ name: 'apiserver_flowcontrol_nominal_limit_seats', labelNames: ['priority_level'], stability: 'BETA',
      help: 'Nominal number of execution seats configured for each priority level' });
    this.current = registry.gauge({ name: 'apiserver_flowcontrol_current_limit_seats', labelNames: ['priority_level'],
      help: 'current derived number of execution seats available to each priority level' });
  }

  /** The series of `flowSchema` in `level`, made on first use. */
  flow(level: string, flowSchema: string, type: string): FlowRecorder {
    const key = `${level}\0${flowSchema}\0${type}`;
    let r = this.flows.get(key);
    if (!r) {
      const rejected = this.rejected;
      r = {
        dispatched: this.dispatched.labels(level, flowSchema),
        rejected: (reason) => rejected.labels(level, flowSchema, reason).inc(),
        inqueue: this.inqueueSeries.child(`${level}\0${flowSchema}`, level, flowSchema),
        executing: this.executingSeries.child(`${level}\0${flowSchema}`, level, flowSchema),
        seats: this.seatsSeries.child(`${level}\0${flowSchema}`, level, flowSchema),
        waitExecuted: this.wait.labels(level, flowSchema, 'true'),
        waitRejected: this.wait.labels(level, flowSchema, 'false'),
        execution: this.execution.labels(level, flowSchema, type),
        queueLength: this.queueLength.labels(level, flowSchema),
        estimatedSeats: this.estimatedSeats.labels(level, flowSchema),
      };
      this.flows.set(key, r);
    }
    return r;
  }

  /** A level's nominal limit (both names) and its current limit after borrowing. */
  limits(level: string, nominal: number, current: number): void {
    this.concurrencyLimit.labels(level).set(nominal);
    this.nominal.labels(level).set(nominal);
    this.current.labels(level).set(current);
  }
}
