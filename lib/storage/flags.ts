/**
 * The flags of etcd and the storage on it (kube-apiserver's etcd options): where etcd is, how the
 * objects are kept there, and the etcd client's connection. Parsed by lib/server/flags.ts.
 */
import { STORAGE_MEDIA_TYPES, ETCD_CLIENTS, type ServerConfig } from '../config';
import { bool, duration, flag, givenTogether, list, oneOf, text, type FlagDef, type FlagProblem } from '../flag-definitions';

function mustBeHttpUrls(urls: string[]): string | undefined {
  for (const u of urls) {
    let url: URL | undefined;
    try { url = new URL(u); } catch { url = undefined; }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
      return `${JSON.stringify(u)} is not an http or https URL`;
    }
  }
  return undefined;
}

const positive = (v: number) => (v > 0 ? undefined : 'must be greater than 0');

/** Where etcd is (or which one to start) and how objects are stored, listed and cached. */
export const STORAGE_FLAGS: readonly FlagDef[] = [
  flag('etcd-servers', 'etcdServers', list(), [],
    'Comma-separated etcd URLs; empty starts an embedded etcd under <data-dir>/etcd.', { check: mustBeHttpUrls }),
  flag('etcd-prefix', 'etcdPrefix', text, '/registry',
    'Key prefix of every object in etcd.', { check: (v) => (v.startsWith('/') ? undefined : 'must start with "/"') }),
  flag('etcd-cafile', 'etcdCafile', text, '', 'CA bundle that verifies the etcd servers.'),
  flag('etcd-certfile', 'etcdCertfile', text, '', 'Client certificate for etcd (with --etcd-keyfile).'),
  flag('etcd-keyfile', 'etcdKeyfile', text, '', 'Client key for etcd (with --etcd-certfile).'),
  flag('etcd-binary', 'etcdBinary', text, 'etcd', 'The etcd executable run when --etcd-servers is empty.'),
  flag('etcd-compaction-interval', 'etcdCompactionIntervalMs', duration, 300_000,
    'Interval between etcd compactions; 0 disables them.'),
  flag('storage-media-type', 'storageMediaType', oneOf(STORAGE_MEDIA_TYPES), 'application/json',
    'Encoding of objects stored in etcd.'),
  flag('watch-cache', 'watchCache', bool, true, 'Serve lists and watches from an in-memory cache of etcd.'),
  flag('etcd-count-metric-poll-period', 'etcdCountMetricPollPeriodMs', duration, 60_000,
    'Frequency of polling etcd for number of resources per type (without the watch cache). 0 disables the metric collection.'),
  flag('continue-token-ttl', 'continueTokenTtlMs', duration, 300_000,
    'Lifetime of list continue tokens; an older token is answered 410 Expired.'),
];

/** The etcd client: which one, how an idle connection is probed, the health checks, and events' leases. */
export const ETCD_CLIENT_FLAGS: readonly FlagDef[] = [
  flag('etcd-client', 'etcdClient', oneOf(ETCD_CLIENTS), 'lean',
    'The etcd client library: lean (written here: HTTP/2 and protobuf by hand, the least CPU per request) or etcd3 (the etcd3 npm package on grpc-js). Both run the same storage layer.'),
  flag('etcd-keepalive-interval', 'etcdKeepaliveIntervalMs', duration, 1_000,
    'Interval of the liveness probe on an idle connection to etcd (a serializable Range with hasleader: etcd refuses HTTP/2 PINGs closer than 5 s); an unanswered one moves to the next --etcd-servers member. 0 disables it.'),
  flag('etcd-keepalive-timeout', 'etcdKeepaliveTimeoutMs', duration, 1_000,
    'How long the etcd liveness probe may go unanswered before the connection is dropped.',
    { check: positive }),
  flag('event-ttl', 'eventTtlMs', duration, 3_600_000,
    'Amount of time to retain events. Whole seconds; 0 keeps them until deleted.',
    { check: (v) => (v >= 0 ? undefined : 'must be greater than or equal to 0') }),
  flag('etcd-healthcheck-timeout', 'etcdHealthcheckTimeoutMs', duration, 2_000,
    'The timeout to use when checking etcd health (the etcd check of /healthz, /livez and /readyz). etcd is probed at most every half of it; checks in between give the newest probe\'s outcome.',
    { check: positive }),
  flag('etcd-readycheck-timeout', 'etcdReadycheckTimeoutMs', duration, 2_000,
    'The timeout to use when checking etcd readiness (the etcd-readiness check of /readyz), probed at most every half of it.',
    { check: positive }),
];

/** The first broken rule between the storage flags, or undefined. */
export function storageFlagsProblem(c: ServerConfig): FlagProblem | undefined {
  return givenTogether('etcd-certfile', c.etcdCertfile, 'etcd-keyfile', c.etcdKeyfile);
}
