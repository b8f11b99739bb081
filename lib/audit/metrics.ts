/**
 * The audit metrics of kube-apiserver (k8s.io/apiserver pkg/audit/metrics.go), all ALPHA:
 * events generated, events lost by a backend (by plugin), the policy level of each request,
 * and requests rejected because auditing failed. Built from the server's registry.
 */
import type { CounterMetric as Counter } from '../metrics/fast';
import type { MetricsRegistry } from '../metrics/registry';
import type { AuditLevel } from '../meta/audit-annotations';

/** The audit counters of one server; also satisfies build.ts's AuditCounters (event/level/error). */
export class AuditMetrics {
  private readonly eventTotal: Counter<string>;
  private readonly errorTotal: Counter<'plugin'>;
  private readonly levelTotal: Counter<'level'>;
  private readonly rejectedTotal: Counter<string>;
  // Label children cached: the level counter moves once per request.
  private readonly levelChildren = new Map<string, ReturnType<Counter<'level'>['labels']>>();
  private readonly pluginChildren = new Map<string, ReturnType<Counter<'plugin'>['labels']>>();

  constructor(registry: MetricsRegistry) {
    this.eventTotal = registry.counter({
      name: 'apiserver_audit_event_total',
      help: 'Counter of audit events generated and sent to the audit backend.',
    });
    this.errorTotal = registry.counter({
      name: 'apiserver_audit_error_total',
      help: 'Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.',
      labelNames: ['plugin'],
    });
    this.levelTotal = registry.counter({
      name: 'apiserver_audit_level_total',
      help: 'Counter of policy levels for audit events (1 per request).',
      labelNames: ['level'],
    });
    this.rejectedTotal = registry.counter({
      name: 'apiserver_audit_requests_rejected_total',
      help: 'Counter of apiserver requests rejected due to an error in audit logging backend.',
    });
  }

  /** One event generated and handed to the backends. */
  eventRecorded(): void {
    this.eventTotal.inc();
  }

  /** The policy level chosen for one request. */
  levelObserved(level: AuditLevel | string): void {
    let child = this.levelChildren.get(level);
    if (!child) {
      child = this.levelTotal.labels(level);
      this.levelChildren.set(level, child);
    }
    child.inc();
  }

  /** `count` events a backend (`log`, `webhook`, `buffered`) failed to record. */
  errors(plugin: string, count: number): void {
    if (count <= 0) return;
    let child = this.pluginChildren.get(plugin);
    if (!child) {
      child = this.errorTotal.labels(plugin);
      this.pluginChildren.set(plugin, child);
    }
    child.inc(count);
  }

  /** A request refused because a blocking-strict backend could not record its event. */
  requestRejected(): void {
    this.rejectedTotal.inc();
  }

  // The names lib/audit/build.ts's AuditCounters uses.
  /** Same as eventRecorded. */
  event(): void { this.eventRecorded(); }
  /** Same as levelObserved. */
  level(level: string): void { this.levelObserved(level); }
  /** Same as errors. */
  error(plugin: string, count: number): void { this.errors(plugin, count); }
}
