/**
 * The audit flags, as kube-apiserver's: the policy, the log backend (file, rotation, format) and
 * the webhook backend, each with its mode and batching. Parsed by lib/server/flags.ts; the values
 * are checked together as kube-apiserver's AuditOptions.Validate does (batch-options.ts).
 */
import type { ServerConfig } from '../config';
import { bool, duration, flag, float, int, INT_MAX, oneOf, text, type FlagDef, type FlagProblem } from '../flag-definitions';
import { auditBackendFlagsProblem } from './batch-options';

export const AUDIT_FLAGS: readonly FlagDef[] = [
  flag('audit-log-path', 'auditLogPath', text, '', 'If set, all requests coming to the apiserver will be logged to this file.  \'-\' means standard out.'),
  flag('audit-log-maxage', 'auditLogMaxage', int(0, INT_MAX), 366,
    'The maximum number of days to retain old audit log files based on the timestamp encoded in their filename. 0: not removed by age.'),
  flag('audit-log-maxbackup', 'auditLogMaxbackup', int(0, INT_MAX), 100, 'The maximum number of old audit log files to retain. 0: no limit.'),
  flag('audit-log-maxsize', 'auditLogMaxsize', int(0, INT_MAX), 100,
    'The maximum size in megabytes of the audit log file before it gets rotated. 0 disables rotation.'),
  flag('audit-log-format', 'auditLogFormat', oneOf<'json' | 'legacy'>(['legacy', 'json']), 'json',
    'Format of saved audits: "legacy" (1-line text) or "json" (one Event per line).'),
  flag('audit-log-mode', 'auditLogMode', oneOf<'blocking' | 'blocking-strict' | 'batch'>(['batch', 'blocking', 'blocking-strict']), 'blocking',
    'Strategy for sending audit events to the log: batch (buffered, asynchronous), blocking or blocking-strict.'),
  flag('audit-log-compress', 'auditLogCompress', bool, false, 'If set, the rotated log files will be compressed using gzip.'),
  flag('audit-policy-file', 'auditPolicyFile', text, '', 'Path to the file that defines the audit policy configuration.'),
  // The batch flags of the log and the webhook, as kube-apiserver's (values checked in auditFlagsProblem below).
  flag('audit-log-batch-buffer-size', 'auditLogBatchBufferSize', int(-INT_MAX, INT_MAX), 10000,
    'The size of the buffer to store events before batching and writing. Only used in batch mode.'),
  flag('audit-log-batch-max-size', 'auditLogBatchMaxSize', int(-INT_MAX, INT_MAX), 1, 'The maximum size of a batch. Only used in batch mode.'),
  flag('audit-log-batch-max-wait', 'auditLogBatchMaxWaitMs', duration, 0,
    'The amount of time to wait before force writing the batch that hadn\'t reached the max size. Only used in batch mode.'),
  flag('audit-log-batch-throttle-enable', 'auditLogBatchThrottleEnable', bool, false, 'Whether batching throttling is enabled. Only used in batch mode.'),
  flag('audit-log-batch-throttle-qps', 'auditLogBatchThrottleQps', float(-INT_MAX, INT_MAX), 0,
    'Maximum average number of batches per second. Only used in batch mode.'),
  flag('audit-log-batch-throttle-burst', 'auditLogBatchThrottleBurst', int(-INT_MAX, INT_MAX), 0,
    'Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before. Only used in batch mode.'),
  flag('audit-webhook-config-file', 'auditWebhookConfigFile', text, '',
    'Path to a kubeconfig formatted file that defines the audit webhook configuration.'),
  flag('audit-webhook-mode', 'auditWebhookMode', text, 'batch',
    'Strategy for sending audit events. Blocking indicates sending events should block server responses. Batch causes the backend to buffer and write events asynchronously. Known modes are batch,blocking,blocking-strict.'),
  flag('audit-webhook-batch-buffer-size', 'auditWebhookBatchBufferSize', int(-INT_MAX, INT_MAX), 10000,
    'The size of the buffer to store events before batching and writing. Only used in batch mode.'),
  flag('audit-webhook-batch-max-size', 'auditWebhookBatchMaxSize', int(-INT_MAX, INT_MAX), 400, 'The maximum size of a batch. Only used in batch mode.'),
  flag('audit-webhook-batch-max-wait', 'auditWebhookBatchMaxWaitMs', duration, 30_000,
    'The amount of time to wait before force writing the batch that hadn\'t reached the max size. Only used in batch mode.'),
  flag('audit-webhook-batch-throttle-enable', 'auditWebhookBatchThrottleEnable', bool, true, 'Whether batching throttling is enabled. Only used in batch mode.'),
  flag('audit-webhook-batch-throttle-qps', 'auditWebhookBatchThrottleQps', float(-INT_MAX, INT_MAX), 10,
    'Maximum average number of batches per second. Only used in batch mode.'),
  flag('audit-webhook-batch-throttle-burst', 'auditWebhookBatchThrottleBurst', int(-INT_MAX, INT_MAX), 15,
    'Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before. Only used in batch mode.'),
  flag('audit-webhook-initial-backoff', 'auditWebhookInitialBackoffMs', duration, 10_000,
    'The amount of time to wait before retrying the first failed request.'),
  flag('audit-webhook-version', 'auditWebhookVersion', text, 'audit.k8s.io/v1',
    'API group and version used for serializing audit events written to webhook.'),
];

/** The first problem with the backends' mode and batch flags, as kube-apiserver words it; or undefined. */
export function auditFlagsProblem(c: ServerConfig): FlagProblem | undefined {
  const problem = auditBackendFlagsProblem(c);
  return problem && { code: 'InvalidValue', ...problem };
}
