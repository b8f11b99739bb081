/**
 * The metrics of structured authentication as Kubernetes 1.32 names them:
 * apiserver_authentication_config_controller_automatic_reloads_total and
 * ..._automatic_reload_last_timestamp_seconds (k8s.io/apiserver/pkg/server/options/
 * authenticationconfig/metrics), and apiserver_authentication_jwt_authenticator_latency_seconds
 * (the JWT authenticator's cache misses, by result and issuer hash). Issuers and the server
 * identity are labels only as SHA-256 hashes, as Kubernetes does.
 */
import { createHash } from 'node:crypto';
import type { MetricsRegistry } from '../../metrics/registry';

export const sha256Label = (data: string): string => (data ? `sha256:${createHash('sha256').update(data).digest('hex')}` : '');

export interface AuthenticationConfigMetrics {
  reload(status: 'success' | 'failure'): void;
  jwtLatency(result: 'success' | 'failure', issuer: string, seconds: number): void;
}

export const NO_METRICS: AuthenticationConfigMetrics = { reload: () => undefined, jwtLatency: () => undefined };

export function authenticationConfigMetrics(registry: MetricsRegistry, apiServerId: string): AuthenticationConfigMetrics {
  const idHash = sha256Label(apiServerId);
  const reloads = registry.counter({
    name: 'apiserver_authentication_config_controller_automatic_reloads_total', labelNames: ['status', 'apiserver_id_hash'] as const,
    help: 'Total number of automatic reloads of authentication configuration split by status and apiserver identity.',
  });
  const last = registry.gauge({
    name: 'apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds', labelNames: ['status', 'apiserver_id_hash'] as const,
    help: 'Timestamp of the last automatic reload of authentication configuration split by status and apiserver identity.',
    aggregator: 'max',
  });
  const latency = registry.histogram({
    name: 'apiserver_authentication_jwt_authenticator_latency_seconds', labelNames: ['result', 'jwt_issuer_hash'] as const,
    help: 'Latency of jwt authentication operations in seconds. This is the time spent authenticating a token for cache miss only (i.e. when the token is not found in the cache).',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  return {
    reload(status) {
      reloads.labels(status, idHash).inc();
      last.labels(status, idHash).set(Date.now() / 1000);
    },
    jwtLatency(result, issuer, seconds) {
      latency.labels(result, sha256Label(issuer)).observe(seconds);
    },
  };
}
