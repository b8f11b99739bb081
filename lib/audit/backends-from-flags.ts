/**
 * What buildAudit (lib/audit/build.ts) takes beyond the policy and the log: the audit metrics
 * on the server's registry, the webhook backend of --audit-webhook-*, and the batch wrapper of
 * --audit-log-mode=batch (--audit-log-batch-*). A bad webhook kubeconfig throws a one-line Error.
 */
import type { ServerConfig } from '../config';
import type { MetricsRegistry } from '../metrics/registry';
import type { AuditBuildOptions } from './build';
import { AuditMetrics } from './metrics';
import { BufferedBackend } from './buffered-backend';
import { batchConfigFrom } from './batch-options';
import { webhookBackendFromFlags } from './webhook-backend';

/** The counters, extra backends and log batch wrapper for buildAudit. */
export function auditBackendsFromFlags(config: ServerConfig, registry: MetricsRegistry,
  log: { warn(msg: string, meta?: Record<string, unknown>): void }): Pick<AuditBuildOptions, 'counters' | 'extraBackends' | 'wrapBatch'> {
  const metrics = new AuditMetrics(registry);
  const webhook = webhookBackendFromFlags(config, { metrics, log });
  return {
    counters: metrics,
    extraBackends: webhook ? [webhook] : [],
    wrapBatch: (b) => new BufferedBackend(b, { ...batchConfigFrom(config, 'log'), metrics, log }),
  };
}
