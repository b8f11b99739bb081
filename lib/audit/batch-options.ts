/**
 * The audit backends' mode and batch flags (`--audit-<plugin>-mode`, `--audit-<plugin>-batch-*`,
 * `--audit-webhook-version`) read into a BatchConfig and checked as kube-apiserver's
 * AuditOptions.Validate does: only for an enabled backend, the batch values only in batch mode,
 * with kube-apiserver's messages.
 */
import { Flavor, namingFor } from '../naming';
import type { BatchConfig } from './buffered-backend';

export const AUDIT_MODES = ['batch', 'blocking', 'blocking-strict'] as const;
export type AuditMode = typeof AUDIT_MODES[number];
export type AuditPlugin = 'log' | 'webhook';

/**
 * The flags read here, by their ServerConfig names (a ServerConfig has them all): lib/audit/flags.ts
 * calls the check below with the parsed command line.
 */
export interface AuditBackendFlags {
  flavor: Flavor;
  auditLogPath: string; auditLogMode: string;
  auditLogBatchBufferSize: number; auditLogBatchMaxSize: number; auditLogBatchMaxWaitMs: number;
  auditLogBatchThrottleEnable: boolean; auditLogBatchThrottleQps: number; auditLogBatchThrottleBurst: number;
  auditWebhookConfigFile: string; auditWebhookMode: string; auditWebhookVersion: string;
  auditWebhookBatchBufferSize: number; auditWebhookBatchMaxSize: number; auditWebhookBatchMaxWaitMs: number;
  auditWebhookBatchThrottleEnable: boolean; auditWebhookBatchThrottleQps: number; auditWebhookBatchThrottleBurst: number;
}

/** The batch settings of one backend's flags. */
export function batchConfigFrom(c: AuditBackendFlags, plugin: AuditPlugin): BatchConfig {
  return plugin === 'log'
    ? {
      bufferSize: c.auditLogBatchBufferSize, maxBatchSize: c.auditLogBatchMaxSize, maxBatchWaitMs: c.auditLogBatchMaxWaitMs,
      throttleEnable: c.auditLogBatchThrottleEnable, throttleQPS: c.auditLogBatchThrottleQps, throttleBurst: c.auditLogBatchThrottleBurst,
    }
    : {
      bufferSize: c.auditWebhookBatchBufferSize, maxBatchSize: c.auditWebhookBatchMaxSize, maxBatchWaitMs: c.auditWebhookBatchMaxWaitMs,
      throttleEnable: c.auditWebhookBatchThrottleEnable, throttleQPS: c.auditWebhookBatchThrottleQps, throttleBurst: c.auditWebhookBatchThrottleBurst,
    };
}

/** The group-versions --audit-webhook-version accepts: Kubernetes' spelling and the flavor's. */
export function auditVersions(c: Pick<AuditBackendFlags, 'flavor'>): string[] {
  return [...new Set(['audit.k8s.io/v1', `${namingFor(c.flavor).group('audit')}/v1`])];
}

/** Go's %v of a float32 flag value (10, 0.5, -1). */
const num = (n: number) => String(n);

/** The flag at fault and kube-apiserver's message, or undefined. */
function batchProblem(plugin: AuditPlugin, mode: string, b: BatchConfig): { flag: string; message: string } | undefined {
  const bad = (flag: string, message: string) => ({ flag: `audit-${plugin}-${flag}`, message });
  if (!(AUDIT_MODES as readonly string[]).includes(mode)) {
    return bad('mode', `invalid audit ${plugin} mode ${mode}, allowed modes are "${AUDIT_MODES.join(',')}"`);
  }
  if (mode !== 'batch') return undefined;
  const positive = (flag: string, what: string, v: number) =>
    (v <= 0 ? bad(flag, `invalid audit batch ${plugin} ${what} ${num(v)}, must be a positive number`) : undefined);
  return positive('batch-buffer-size', 'buffer size', b.bufferSize)
    ?? positive('batch-max-size', 'max batch size', b.maxBatchSize)
    ?? (b.throttleEnable
      ? positive('batch-throttle-qps', 'throttle QPS', b.throttleQPS) ?? positive('batch-throttle-burst', 'throttle burst', b.throttleBurst)
      : undefined);
}

/**
 * The first problem with the audit backend flags as `{ flag, message }` (message one line, as
 * kube-apiserver words it), or undefined.
 */
export function auditBackendFlagsProblem(c: AuditBackendFlags): { flag: string; message: string } | undefined {
  if (c.auditWebhookConfigFile !== '') {
    const problem = batchProblem('webhook', c.auditWebhookMode, batchConfigFrom(c, 'webhook'));
    if (problem) return problem;
    const versions = auditVersions(c);
    if (!versions.includes(c.auditWebhookVersion)) {
      return { flag: 'audit-webhook-version', message: `invalid group version, allowed versions are ["${versions.join('" "')}"]` };
    }
  }
  if (c.auditLogPath !== '') {
    const problem = batchProblem('log', c.auditLogMode, batchConfigFrom(c, 'log'));
    if (problem) return problem;
  }
  return undefined;
}
