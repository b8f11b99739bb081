/**
 * Audit from the flags, built before etcd is reached (a bad policy file or an unwritable log
 * stops the start): the policy evaluator and the backends (log, and B2's webhook) behind one
 * sink that counts events. Without --audit-policy-file nothing is recorded, as kube-apiserver.
 */
import type { ServerConfig } from '../config';
import type { Naming } from '../naming';
import type { AuditBackend, AuditEvent } from './types';
import { readAuditPolicyFile } from './policy-file';
import { AuditPolicyEvaluator } from './policy-evaluator';
import { LogBackend, LogFormat } from './log-backend';
import type { AuditFilterDeps, AuditSink } from './filter';

/** What build needs of the audit metrics (lib/audit/metrics.ts). */
export interface AuditCounters {
  event(): void;
  level(level: string): void;
  error(plugin: string, events: number): void;
}

export interface BuiltAudit {
  /** Undefined without a policy or a backend: the filters only set Audit-Id. */
  filter?: AuditFilterDeps;
  backends: AuditBackend[];
  /** Flushes and stops the backends. */
  shutdown(): Promise<void>;
}

export interface AuditBuildOptions {
  config: ServerConfig;
  naming: Naming;
  counters: AuditCounters;
  log: { warn(msg: string, meta?: Record<string, unknown>): void; info(msg: string, meta?: Record<string, unknown>): void };
  /** Further backends (the webhook), wrapped as they need. */
  extraBackends?: AuditBackend[];
  /** Wraps the log backend in --audit-log-mode=batch. */
  wrapBatch?: (b: AuditBackend) => AuditBackend;
  /** A worker process of --workers: the log file is written by the primary (shared-file.ts). */
  worker?: boolean;
}

/** Reads the policy and opens the log; throws an Error with a one-line message. */
export async function buildAudit(o: AuditBuildOptions): Promise<BuiltAudit> {
  const { config, naming } = o;
  // The policy first: a bad file stops the start even when no backend is configured.
  const policy = config.auditPolicyFile ? readAuditPolicyFile(config.auditPolicyFile, [naming.group('audit'), 'audit.k8s.io'], (m) => o.log.warn(m)) : undefined;
  const backends: AuditBackend[] = [];
  if (config.auditLogPath) {
    const log = new LogBackend({
      path: config.auditLogPath, format: config.auditLogFormat as LogFormat,
      maxSizeMb: config.auditLogMaxsize, maxBackups: config.auditLogMaxbackup, maxAgeDays: config.auditLogMaxage, compress: config.auditLogCompress,
      worker: o.worker,
      onError: (n, err) => {
        o.counters.error('log', n);
        o.log.warn('audit log write failed', { events: n, error: err.message });
      },
    });
    try {
      await log.open();
    } catch (err) {
      throw new Error(`--audit-log-path ${config.auditLogPath}: ${(err as Error).message}`);
    }
    backends.push(config.auditLogMode === 'batch' && o.wrapBatch ? o.wrapBatch(log) : log);
  }
  backends.push(...(o.extraBackends ?? []));
  const shutdown = async () => { await Promise.all(backends.map((b) => b.shutdown())); };
  if (!policy) {
    if (backends.length) o.log.info('no audit policy file provided, no events will be recorded');
    return { backends, shutdown };
  }
  if (!backends.length) return { backends, shutdown };
  const sink: AuditSink = {
    processEvent: (e: AuditEvent) => {
      o.counters.event();
      for (const b of backends) b.processEvents([e]);
    },
    observeLevel: (l) => o.counters.level(l),
  };
  return { filter: { evaluator: new AuditPolicyEvaluator(policy), sink, apiVersion: `${naming.group('audit')}/v1` }, backends, shutdown };
}
