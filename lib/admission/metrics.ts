/**
 * Admission counts kept until the server exposes metrics: the spec's
 * `apiserver_admission_webhook_rejection_count` (labels name, operation, type, error_type,
 * rejection_code, the code truncated to 600). Each series is one counter keyed by its labels.
 */

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

export class AdmissionMetrics {
  private readonly rejections = new Map<string, CounterSample<WebhookRejectionLabels>>();

  webhookRejected(labels: WebhookRejectionLabels): void {
    const l = { ...labels, rejection_code: Math.min(labels.rejection_code, 600) };
    const key = JSON.stringify([l.name, l.operation, l.type, l.error_type, l.rejection_code]);
    const sample = this.rejections.get(key);
    if (sample) sample.value++;
    else this.rejections.set(key, { labels: l, value: 1 });
  }

  /** `apiserver_admission_webhook_rejection_count`, one sample per label set. */
  webhookRejections(): CounterSample<WebhookRejectionLabels>[] {
    return [...this.rejections.values()].map((s) => ({ labels: { ...s.labels }, value: s.value }));
  }
}
