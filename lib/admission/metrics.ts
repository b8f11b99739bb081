/**
 * Admission metrics as kube-apiserver 1.32 names them (k8s.io/apiserver pkg/admission/metrics),
 * on the server's MetricsRegistry:
 *  - apiserver_admission_step_admission_duration_seconds (STABLE; type admit|validate,
 *    operation, rejected): each phase of the chain, once per request (reinvocation included);
 *  - apiserver_admission_controller_admission_duration_seconds (STABLE; name, type, operation,
 *    rejected): each plugin's call in each phase;
 *  - apiserver_admission_webhook_admission_duration_seconds (STABLE; name, type admit|validating,
 *    operation, rejected): each webhook call;
 *  - apiserver_admission_webhook_request_total (ALPHA; name, type, operation, code, rejected);
 *  - the spec's apiserver_admission_webhook_rejection_count (ALPHA; name, type, operation,
 *    error_type, rejection_code): codes above 600 count as 600, bounding the label's values.
 * Series are resolved once per label set and kept (a handful per plugin and operation).
 */
import { MetricsRegistry } from '../metrics/registry';

export type RejectionErrorType = 'calling_webhook_error' | 'no_error' | 'apiserver_internal_error';

export interface WebhookRejectionLabels {
  /** The webhook's name. */
  name: string;
  operation: string;
  /** `admit` (mutating) or `validating`. */
  type: 'admit' | 'validating';
  error_type: RejectionErrorType;
  /** The HTTP code of the rejection; values above 600 count as 600. */
  rejection_code: number;
}

export interface CounterSample<L> {
  labels: L;
  value: number;
}

/** The chain's phase, as the step and controller metrics label it. */
export type StepType = 'admit' | 'validate';

const STEP_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];
const WEBHOOK_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25];

/** Kubernetes keeps the code labels bounded: anything above 600 is 600. */
const boundedCode = (code: number): number => Math.min(code, 600);

type Observer = { observe(v: number): void };

export class AdmissionMetrics {
  private readonly step;
  private readonly controller;
  private readonly webhook;
  private readonly webhookRequest;
  private readonly rejection;
  /** Resolved series by type, operation: [not rejected, rejected] (nested maps: no key string is built per call). */
  private readonly steps = new Map<StepType, Map<string, [Observer, Observer]>>();
  /** The same by plugin name, type, operation. */
  private readonly controllers = new Map<string, Map<StepType, Map<string, [Observer, Observer]>>>();

  /** Without a registry (unit tests of plugins), the metrics live in a private one. */
  constructor(readonly registry: MetricsRegistry = new MetricsRegistry()) {
    this.step = registry.histogram({
      name: 'apiserver_admission_step_admission_duration_seconds', labelNames: ['type', 'operation', 'rejected'], stability: 'STABLE', buckets: STEP_BUCKETS,
      help: 'Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
    });
    this.controller = registry.histogram({
      name: 'apiserver_admission_controller_admission_duration_seconds', labelNames: ['name', 'type', 'operation', 'rejected'], stability: 'STABLE', buckets: STEP_BUCKETS,
      help: 'Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    });
    this.webhook = registry.histogram({
      name: 'apiserver_admission_webhook_admission_duration_seconds', labelNames: ['name', 'type', 'operation', 'rejected'], stability: 'STABLE', buckets: WEBHOOK_BUCKETS,
      help: 'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    });
    this.webhookRequest = registry.counter({
      name: 'apiserver_admission_webhook_request_total', labelNames: ['name', 'type', 'operation', 'code', 'rejected'],
      help: 'Admission webhook request total, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    });
    this.rejection = registry.counter({
      name: 'apiserver_admission_webhook_rejection_count', labelNames: ['name', 'type', 'operation', 'error_type', 'rejection_code'],
      help: 'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    });
  }

  /** One phase of the chain took `seconds`. */
  observeStep(type: StepType, operation: string, rejected: boolean, seconds: number): void {
    let pair = this.steps.get(type)?.get(operation);
    if (!pair) {
      pair = this.pair(this.step, [type, operation]);
      entry(this.steps, type, newMap<string, [Observer, Observer]>).set(operation, pair);
    }
    pair[rejected ? 1 : 0].observe(seconds);
  }

  /** One plugin's call in one phase took `seconds`. */
  observeController(name: string, type: StepType, operation: string, rejected: boolean, seconds: number): void {
    let pair = this.controllers.get(name)?.get(type)?.get(operation);
    if (!pair) {
      pair = this.pair(this.controller, [name, type, operation]);
      const byType = entry(this.controllers, name, newMap<StepType, Map<string, [Observer, Observer]>>);
      entry(byType, type, newMap<string, [Observer, Observer]>).set(operation, pair);
    }
    pair[rejected ? 1 : 0].observe(seconds);
  }

  /** One webhook call: its duration and its request count with the HTTP code (0: no answer). */
  observeWebhook(name: string, type: 'admit' | 'validating', operation: string, rejected: boolean, code: number, seconds: number): void {
    const c = boundedCode(code);
    this.webhook.labels(name, type, operation, String(rejected)).observe(seconds);
    this.webhookRequest.labels(name, type, operation, String(c), String(rejected)).inc();
  }

  webhookRejected(labels: WebhookRejectionLabels): void {
    this.rejection.labels(labels.name, labels.type, labels.operation, labels.error_type, String(boundedCode(labels.rejection_code))).inc();
  }

  /** `apiserver_admission_webhook_rejection_count`, one sample per label set. */
  async webhookRejections(): Promise<CounterSample<WebhookRejectionLabels>[]> {
    const { values } = await this.rejection.get();
    return values.map((v) => ({
      labels: {
        name: String(v.labels.name), operation: String(v.labels.operation), type: v.labels.type as WebhookRejectionLabels['type'],
        error_type: v.labels.error_type as RejectionErrorType, rejection_code: Number(v.labels.rejection_code),
      },
      value: v.value,
    }));
  }

  private pair(h: { labels(...values: string[]): Observer }, labels: string[]): [Observer, Observer] {
    return [h.labels(...labels, 'false'), h.labels(...labels, 'true')];
  }
}

const newMap = <K, V>() => new Map<K, V>();

function entry<K, V>(m: Map<K, V>, k: K, make: () => V): V {
  let v = m.get(k);
  if (v === undefined) m.set(k, (v = make()));
  return v;
}
