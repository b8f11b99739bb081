/**
 * Process and Node.js runtime metrics on a server's registry: prom-client's default collectors
 * (process_cpu_seconds_total, process_resident_memory_bytes, process_start_time_seconds,
 * process_open_fds, nodejs_eventloop_lag_*, nodejs_heap_*, nodejs_gc_duration_seconds, ...).
 * As kube-apiserver's process and Go collectors, they are raw: no stability level in their help.
 */
import client from 'prom-client';
import { MetricsRegistry } from './registry';

/** Adds the default collectors to `metrics` (nothing when metrics are off). */
export function collectProcessMetrics(metrics: MetricsRegistry): void {
  if (!metrics.enabled) return;
  client.collectDefaultMetrics({ register: metrics.registry });
}
